"""MuJoCo's own verdict on a model file, for tests that hold robotsim's readers to it."""

from __future__ import annotations

import warnings
from pathlib import Path

import mujoco


def mujoco_accepts(path: Path) -> bool:
    """True when MuJoCo reads and compiles ``path`` (its warnings silenced)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mujoco.MjSpec.from_file(str(path)).compile()
    except ValueError:
        return False
    return True


def robotsim_reader(path: Path) -> str:
    """Which reader ``load_mjcf`` used for ``path`` (``metadata["reader"]``), its warnings
    silenced; a refusal raises as ``load_mjcf`` does."""
    from robotsim.model.mjcf import load_mjcf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(load_mjcf(path).metadata["reader"])
