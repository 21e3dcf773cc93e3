"""The tiny sweep file fixture (see tiny.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sweep.tiny import write_sweep


@pytest.fixture
def tiny_sweep(tmp_path: Path) -> Path:
    return write_sweep(tmp_path)
