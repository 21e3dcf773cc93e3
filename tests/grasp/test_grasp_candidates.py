"""Candidates on a box, checked against its closed form: antipodal pairs across its
faces, fingers that stop where the box is, and a box too wide for the hand named."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robotsim.grasp.candidates import close_fingers, sample_candidates
from robotsim.objects import load_object
from robotsim.objects.query import signed_distance
from robotsim.spatial import make_T


def test_closing_on_a_box_stops_at_its_faces(panda_hand) -> None:  # type: ignore[no-untyped-def]
    h = panda_hand
    box = load_object("box:0.04,0.1,0.1")
    # the grasp frame at the box centre, closing along x (the 0.04 m faces)
    T_obj_grasp = np.eye(4)
    T_obj_tool = T_obj_grasp @ np.linalg.inv(h.contact_frames[len(h.closures) // 2])
    con = close_fingers(h, box, T_obj_tool[None])
    assert con.complete[0]
    d, _ = signed_distance(box.piece_set, con.points[0])
    np.testing.assert_allclose(d, 0.0, atol=5e-4)  # the contacts lie on the surface
    np.testing.assert_allclose(np.abs(con.points[0][:, 0]), 0.02, atol=5e-4)
    np.testing.assert_allclose(np.abs(con.normals[0] @ [1.0, 0, 0]), 1.0, atol=1e-9)
    # the pads stop where the opening equals the box: width(s) = 0.04
    s = float(con.s[0].mean())
    assert np.interp(s, h.closures, h.widths) == pytest.approx(0.04, abs=2e-3)


def test_candidates_are_antipodal_across_the_box(panda_hand) -> None:  # type: ignore[no-untyped-def]
    box = load_object("box:0.06,0.03,0.05")
    c = sample_candidates(panda_hand, box, make_T(None, [0.5, 0.0, 0.3]), np.random.default_rng(1))
    assert len(c) > 20 and c.counts["antipodal"] > 0
    # every pair faces across one of the box's sizes that fit the 0.08 m opening (flat
    # pads touch anywhere on the face: measure along the normal)
    # (a pad whose end reaches past the box touches an edge: its true normal is tilted,
    # so only pairs of face contacts are exactly opposite)
    face = np.all(np.abs(c.contacts.normals).max(axis=2) > 1 - 1e-9, axis=1)
    assert face.mean() > 0.7
    n = c.contacts.normals[face, 0]
    np.testing.assert_allclose(np.einsum("bi,bi->b", n, c.contacts.normals[face, 1]), -1.0,
                               atol=1e-9)  # fmt: skip
    p = c.contacts.points[face]
    width = np.abs(np.einsum("bi,bi->b", p[:, 0] - p[:, 1], n))
    assert np.all(np.min(np.abs(width[:, None] - [0.06, 0.03, 0.05]), axis=1) < 2e-3)
    assert np.all(c.margin > 0) and np.all(np.diff(c.score) <= 1e-12)


def test_a_box_wider_than_the_opening_has_no_candidates(panda_hand) -> None:  # type: ignore[no-untyped-def]
    big = load_object("box:0.12,0.12,0.12")
    c = sample_candidates(panda_hand, big, make_T(None, [0.5, 0.0, 0.3]), np.random.default_rng(0))
    assert len(c) == 0 and c.counts["within opening"] == 0


def test_a_tip_on_an_edge_towards_the_palm_is_told_apart(panda_hand) -> None:  # type: ignore[no-untyped-def]
    h = panda_hand
    box = load_object("box:0.04,0.1,0.1")
    T_tool = np.linalg.inv(h.contact_frames[len(h.closures) // 2])
    # approach along +z: the box's bottom face lies on the palm side of the pads
    on = {}
    for z in (-0.049, -0.04):  # the face ends 1 mm, then 10 mm, towards the palm
        con = close_fingers(h, box, (make_T(None, [0, 0, z]) @ T_tool)[None])
        assert con.complete[0]
        on[z] = bool(con.on_faces[0])
    assert on == {-0.049: False, -0.04: True}


def test_level_squeezes_across_a_lying_ring(dual_hands, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import trimesh

    from robotsim.objects import load_object as load

    hand = dual_hands["L_hand"]
    ring = trimesh.creation.torus(0.03, 0.009, major_sections=32, minor_sections=12)
    ring.export(path := tmp_path / "ring.obj")
    obj = load(str(path))
    c = sample_candidates(hand, obj, make_T(None, [0.5, 0.2, 0.35]), np.random.default_rng(2))
    assert len(c) > 0
    # besides each point's own normal chord, a level one across the tube wherever the
    # normal lies within the friction cone of level: more chords than points
    assert c.counts["within opening"] > c.counts["surface points"]
    # and grasps whose every contact lies above the tube's equator (the normal's own
    # chord from there ends under the ring, where no tip goes on a table)
    assert np.any(c.contacts.points[:, :, 2].min(axis=1) > 0.0005)


def test_a_handle_on_a_body_too_wide_for_the_hand_gets_the_candidates(  # type: ignore[no-untyped-def]
    panda_hand, tmp_path: Path
) -> None:
    """A cup 9 cm across (the Panda opens 8.2 cm) with a 12 mm handle: the sampled points
    are too few on the handle, so every sampled surface point is tried (480, not 120),
    and every candidate closes on the handle; a box with pairs enough keeps to 120 (NO)."""
    path = tmp_path / "cup.urdf"
    path.write_text("""<robot name="cup"><link name="cup">
  <inertial><mass value="0.2"/><inertia ixx="3e-4" iyy="3e-4" izz="2e-4" ixy="0" ixz="0" iyz="0"/>
  </inertial>
  <collision><geometry><cylinder radius="0.045" length="0.1"/></geometry></collision>
  <collision><origin xyz="0 0.062 0"/><geometry><box size="0.012 0.012 0.07"/></geometry>
  </collision>
</link></robot>""")
    cup = load_object(str(path))
    To = make_T(None, [0.5, 0.0, 0.3])
    c = sample_candidates(panda_hand, cup, To, np.random.default_rng(2), n_points=120)
    assert c.counts["surface points"] == 480 and len(c) > 0
    np.testing.assert_allclose(c.contacts.points[..., 1], 0.062, atol=0.0065)  # on the handle
    box = load_object("box:0.06,0.03,0.05")
    c = sample_candidates(panda_hand, box, To, np.random.default_rng(2), n_points=120)
    assert c.counts["surface points"] == 120
