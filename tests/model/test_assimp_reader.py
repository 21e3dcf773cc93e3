"""Legacy meshes (.3ds, .x) are read by assimp in a child process bounded by the memory
budget (issue 17): a damaged binary .x whose counts made assimp allocate 24 GB (the
kernel killed the fuzz run) is now a one-line error, and this process does not grow."""

from __future__ import annotations

import random
import resource
from pathlib import Path

import pytest
from tests.fuzz.mutate import byte_mutation

from robotsim.budget import memory_budget
from robotsim.errors import ModelFileError
from robotsim.model.meshes import load_mesh

CUBE_X = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "meshes" / "X"


def _damaged_cube(tmp_path: Path) -> Path:
    """Case 36 of the fuzz suite's seed 17 for ``test_cube_binary.x``."""
    seed = CUBE_X / "test_cube_binary.x"
    rng, data = random.Random(f"17:{seed.name}"), seed.read_bytes()
    for _ in range(37):
        case = byte_mutation(rng, data)
    out = tmp_path / "damaged.x"
    out.write_bytes(case)
    return out


def test_a_damaged_x_file_is_one_line_within_the_budget(tmp_path: Path) -> None:
    bad = _damaged_cube(tmp_path)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    with memory_budget("64M"), pytest.raises(ModelFileError) as err:
        load_mesh(bad)
    msg = str(err.value)
    assert "\n" not in msg and str(bad) in msg
    assert "more memory than the reader's" in msg and "--max-memory" in msg
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before < 256 * 1024**2


def test_good_legacy_meshes_still_load(tmp_path: Path) -> None:
    cube = load_mesh(CUBE_X / "test_cube_binary.x")
    assert cube.vertices.shape[1] == 3 and len(cube.faces) == 12
