"""Every name in each package's __all__ really imports."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = [
    "robotsim",
    "robotsim.model",
    "robotsim.kinematics",
    "robotsim.spatial",
    "robotsim.physics",
    "robotsim.geometry",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_names_import(name) -> None:
    mod = importlib.import_module(name)
    for attr in mod.__all__:
        assert hasattr(mod, attr), f"{name}.{attr} in __all__ but missing"
