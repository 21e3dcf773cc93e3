"""Session fixtures: the shared folder and its fixtures (paths in ``tests/paths.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.paths import FIXTURES, SHARED

os.environ.setdefault("MUJOCO_GL", "egl")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return SHARED


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES
