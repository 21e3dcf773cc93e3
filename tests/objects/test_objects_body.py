"""An object in MuJoCo: the compiled body carries exactly the mass properties the loader
decided, and its convex pieces rest on the ground at the hull's lowest point."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh

from robotsim.objects import load_object, object_body
from robotsim.physics import Scene, World
from robotsim.spatial import make_T, rpy_to_R


def test_compiled_mass_properties_are_the_objects(make_urdf) -> None:  # type: ignore[no-untyped-def]
    p = make_urdf(
        "duck",
        '<box size="0.05 0.04 0.03"/>',
        '<inertial><mass value="0.1"/><inertia ixx="1" iyy="1" izz="1"/></inertial>',
    )
    obj = load_object(str(p))
    w = World(Scene(bodies=(object_body(obj),)))
    b = w.body("object").id
    assert w.model.body_mass[b] == pytest.approx(0.1)
    np.testing.assert_allclose(
        sorted(w.model.body_inertia[b]), sorted(np.linalg.eigvalsh(obj.inertial.inertia)), rtol=1e-9
    )
    assert max(w.model.body_inertia[b]) < 1e-4  # the placeholder's 1 kg m^2 is gone


def test_a_decomposed_ring_rests_on_its_pieces(tmp_path: Path) -> None:
    ring = tmp_path / "ring.obj"
    trimesh.creation.torus(0.04, 0.01, major_sections=20, minor_sections=8).export(ring)
    obj = load_object(str(ring))
    assert obj.collision == "coacd" and len(obj.shapes) >= 3
    T = make_T(rpy_to_R([0.3, 0.2, 0.0]), [0, 0, 0.1])
    w = World(Scene(bodies=(object_body(obj, T_world_object=T),)))
    w.advance(1.5)
    pose = w.body("object").pose
    lowest = (obj.hull_points @ pose[:3, :3].T + pose[:3, 3])[:, 2].min()
    assert abs(lowest) < 2e-3  # lies on the ground, not sunk, not floating
    assert abs(pose[2, 2]) > 0.99  # flat
    assert pose[2, 3] == pytest.approx(0.01, abs=2e-3)  # the tube's radius up
