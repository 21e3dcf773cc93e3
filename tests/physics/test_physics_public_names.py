"""Every name in the physics, control and scenario packages' ``__all__`` imports."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "module", ["robotsim.physics", "robotsim.control", "robotsim.scenario", "robotsim.plots"]
)
def test_all_names_import(module: str) -> None:
    mod = importlib.import_module(module)
    assert mod.__all__
    for name in mod.__all__:
        assert getattr(mod, name) is not None, f"{module}.{name}"
