"""Grasp tests: the Panda URDF from the shared fixtures and ``dual_arm_hands`` from the
library, their hands measured once per session; convex pieces cached in a temporary
folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.paths import FIXTURES

PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.getbasetemp() / "robotsim-cache"
    monkeypatch.setenv("ROBOTSIM_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def panda_hand():  # type: ignore[no-untyped-def]
    from robotsim.grasp.hand import grasp_hands
    from robotsim.model import load_robot

    return next(iter(grasp_hands(load_robot(str(PANDA))).values()))


@pytest.fixture(scope="session")
def dual_hands():  # type: ignore[no-untyped-def]
    from robotsim.grasp.hand import grasp_hands
    from robotsim.model import load_robot

    return grasp_hands(load_robot("dual_arm_hands"))


@pytest.fixture(scope="session")
def panda_path() -> Path:
    return PANDA
