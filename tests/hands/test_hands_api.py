"""The hands package's public surface: every name in ``__all__`` imports, and each
module's ``__all__`` names real objects."""

from __future__ import annotations

import importlib

import pytest

MODULES = [
    "robotsim.hands",
    "robotsim.hands.ball",
    "robotsim.hands.commands",
    "robotsim.hands.contact",
    "robotsim.hands.kinematic",
    "robotsim.hands.layout",
    "robotsim.hands.physics",
    "robotsim.hands.run",
    "robotsim.hands.scenario_spec",
    "robotsim.hands.scene",
    "robotsim.hands.script",
    "robotsim.hands.state",
    "robotsim.hands.teleop",
    "robotsim.studio.hands.driver",
    "robotsim.studio.hands.panel",
]


@pytest.mark.parametrize("name", MODULES)
def test_all_names_exist(name: str) -> None:
    mod = importlib.import_module(name)
    for attr in mod.__all__:
        assert hasattr(mod, attr), f"{name}.{attr} in __all__ but missing"
