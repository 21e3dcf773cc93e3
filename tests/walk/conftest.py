"""Robots for the walk tests: humanoid17, MuJoCo's humanoid and humanoids written as
their makers ship them (tests/walk/robots.py), built once per session."""

from __future__ import annotations

import pytest

from robotsim.model.loader import load_robot
from robotsim.walk.biped import Biped, biped_of
from tests.paths import FIXTURES
from tests.walk.robots import h1_like_mjcf, urdf_humanoid

HUMANOID_XML = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"


@pytest.fixture(scope="session")
def h17() -> Biped:
    return biped_of(load_robot("humanoid17"))


@pytest.fixture(scope="session")
def urdfbot(tmp_path_factory: pytest.TempPathFactory) -> Biped:
    return biped_of(load_robot(urdf_humanoid(tmp_path_factory.mktemp("urdfbot"))))


@pytest.fixture(scope="session")
def h1like(tmp_path_factory: pytest.TempPathFactory) -> Biped:
    return biped_of(load_robot(h1_like_mjcf(tmp_path_factory.mktemp("h1like"))))


@pytest.fixture(scope="session")
def mjhumanoid() -> Biped:
    return biped_of(load_robot(HUMANOID_XML))
