"""Every name in the run store, remote and teleop packages' ``__all__`` imports."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = ["robotsim.recording", "robotsim.remote", "robotsim.teleop"]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_names_import(name: str) -> None:
    mod = importlib.import_module(name)
    assert mod.__all__ == sorted(mod.__all__, key=lambda s: (not s.isupper(), s))
    for attr in mod.__all__:
        assert getattr(mod, attr) is not None, f"{name}.{attr} in __all__ but missing"
