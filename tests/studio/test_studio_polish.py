"""Studio views without a browser: robot names in 3D, the follow camera, plots with a
seconds axis, the keyframe strip of a loaded program, the teleop key table and held
keys, and the explanations empty tabs show."""

from __future__ import annotations

import os

import numpy as np
import pytest

from robotsim.errors import UnknownNameError
from robotsim.studio.follow import robot_centre
from robotsim.studio.labels import label_gap
from robotsim.studio.motion.strip import SELECTED_RGB, StripTile, draw_strip, tile_at
from robotsim.studio.uplots import TIME_LABEL, time_axes

os.environ.setdefault("MUJOCO_GL", "egl")


def test_every_robot_has_its_name_above_it(studio):
    studio.open("three_puma_clearance")
    labels = studio.panels["view"].labels
    assert labels.text() == {"A": "A", "B": "B", "C": "C"}
    for (name, _), h in labels.handles.items():
        view = studio.robot(name)
        T = view.link_poses()[0]
        p_world = T[:3, :3] @ np.asarray(h.position) + T[:3, 3]
        b = view.world_bounds()
        assert p_world[2] == pytest.approx(b[1, 2] + label_gap(b))
        assert 0.02 <= label_gap(b) <= 0.05 * (b[1, 2] - b[0, 2])  # close to its robot
        np.testing.assert_allclose(p_world[:2], T[:2, 3], atol=1e-9)
    studio.panels["view"].names.value = False
    labels.show(False)
    assert not any(h.visible for h in labels.handles.values())
    labels.show(True)
    studio.load_default()
    assert set(labels.text()) == set(studio.robot_names())


def test_follow_moves_the_camera_target_with_the_robot(studio):
    studio.open("soccer_obstacles")
    follow = studio.panels["view"].camera
    with pytest.raises(UnknownNameError):
        follow.follow("nobody")
    follow.follow("omni")
    start = robot_centre(studio, "omni")
    for _ in range(120):
        studio.step()
    moved = robot_centre(studio, "omni") - start
    assert np.linalg.norm(moved) > 0.05  # the base drove
    np.testing.assert_allclose(follow._anchor, robot_centre(studio, "omni"), atol=0.011)
    assert "omni" in studio.panels["view"].follow.options
    studio.load_default()
    assert follow.robot is None  # its robot left the scene


def test_time_plots_use_seconds_not_dates():
    kw = time_axes("distance (m)")
    assert kw["scales"]["x"]["time"] is False
    assert [a["label"] for a in kw["axes"]] == [TIME_LABEL, "distance (m)"]
    assert all("13px" in a["font"] for a in kw["axes"])
    assert kw["padding"][0] > 0  # room above the top value


def test_mobile_plots_and_empty_tab(studio):
    studio.load_default()
    panel = studio.panels["mobile"]
    assert "Open a mobile scenario" in panel.status.content
    assert "soccer_obstacles" in panel.status.content
    assert not panel.map.visible and not panel.plot_error.visible
    studio.open("soccer_obstacles")
    assert panel.map.visible and panel.plot_error.visible
    assert panel.plot_error.scales["x"]["time"] is False
    assert panel.plot_wheels.axes[0]["label"] == TIME_LABEL
    studio.load_default()
    assert "Open a clearance scenario" in studio.panels["clearance"].status.content
    assert not studio.panels["clearance"].plot_image.visible


def test_strip_lays_out_tiles_and_outlines_the_selection():
    img = np.full((20, 20, 3), 30, np.uint8)
    tiles = [StripTile(img, f"k{i}", i + 1) for i in range(6)]
    strip = draw_strip(tiles, selected=5, per_row=4, tile=40)
    assert strip.shape == (2 * (40 + 34 + 8) + 8, 4 * (40 + 8) + 8, 3)
    x, y = tile_at(5, 4, 40)
    assert tuple(strip[y + 20, x + 20]) == (30, 30, 30)  # the thumbnail
    assert tuple(strip[y - 3, x + 20]) == SELECTED_RGB  # the outline of the selection
    x0, y0 = tile_at(0, 4, 40)
    assert tuple(strip[y0 - 3, x0 + 20]) != SELECTED_RGB


def test_a_loaded_program_shows_its_motions_and_a_keyframe_strip(studio):
    studio.clear()
    studio.add_robot("humanoid17")
    editor = studio.panels["motion"]
    editor.new()
    editor.load("walk_forward")
    text = editor.readout.content
    for m in ("crouch", "first_step", "cycle", "last_step", "stand_up"):
        assert f"`{m}`" in text
    assert "cycle ×4" in text and "34.8 s" in text
    editor.motion_name = "first_step"
    editor.rebuild()
    assert len(editor.rows) == 10 and editor.strip.visible
    assert editor.keyframe_select.options[0] == "1. L0_shift1"
    editor.select("L0_shift3")
    view = studio.robot("humanoid17")
    kf = editor.motion().keyframe("L0_shift3")
    j = view.model.joint_index("left_hip_roll")
    assert np.degrees(view.q[j]) == pytest.approx(kf.targets["left_hip_roll"], abs=1e-6)
    assert editor.keyframe_select.value == "3. L0_shift3"
    before = editor.strip.image.copy()
    editor.set_speed("L0_shift3", 2)
    assert editor.motion().keyframe("L0_shift3").speed == 2
    assert editor.keyframe_speed.value == 2
    assert not np.array_equal(before, editor.strip.image)  # "speed 2" drawn
    editor.move("L0_shift3", -1)
    assert editor.rows[1] == "L0_shift3"
    editor.new()
    assert not editor.strip.visible
    studio.clear()


def test_teleop_key_table_and_held_keys():
    from robotsim.hands.run import make_sim
    from robotsim.hands.scene import default_scene
    from robotsim.hands.teleop import HandsTeleop
    from robotsim.model import load_robot
    from robotsim.studio.hands.panel import key_bindings
    from robotsim.studio.keyboard import BrowserKeyboard, key_label

    sim = make_sim(default_scene(load_robot("dual_arm_hands")), "kinematic", 1 / 60, None)
    kb = BrowserKeyboard("127.0.0.1")
    try:
        tele = HandsTeleop(sim, (), True, "L", keyboard_device=kb)
        rows = {w: k for k, w in key_bindings(tele)}
        assert rows["L_shoulder_x +"] == "W" and rows["L_shoulder_x −"] == "S"
        assert rows["speed up"] == "+ / =" and rows["switch"] == "Tab"
        seen = []
        kb.listeners.append(lambda: seen.append(kb.status()))
        kb._event("down", "w")
        kb._event("down", "ArrowUp")
        assert seen[-1].endswith("held: ↑, W")
        kb._event("blur", "")
        assert seen[-1].endswith("held: none")
        assert key_label("tab") == "Tab" and key_label("left") == "←"
    finally:
        kb.close()
