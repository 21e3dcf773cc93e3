"""A multi-material 3DS file in the studio: one shape drawn as one textured mesh per
material (issue 22, item 7)."""

from __future__ import annotations

from pathlib import Path

from tests.multi_material import robot, three_ds


def test_studio_adds_every_part(tmp_path: Path, studio) -> None:
    view = studio.add_robot(robot(tmp_path, three_ds(tmp_path), False))
    assert view.count("visual") == 1  # one shape, drawn as three textured meshes
    view.set_visible("visual", False)
    view.set_visible("visual", True)
