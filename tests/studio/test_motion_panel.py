"""The motion editor without a browser: capture (offscreen thumbnails), edit, save and
load, play with support switching to the end."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from tests.procs import free_port

from robotsim.errors import InputError, ScenarioError

os.environ.setdefault("MUJOCO_GL", "egl")


@pytest.fixture
def editor(studio):
    studio.clear()
    studio.add_robot("humanoid17")
    panel = studio.panels["motion"]
    panel.new()
    yield panel
    panel.new()
    studio.clear()


def test_capture_edit_keyframes(editor, studio):
    view = studio.robot("humanoid17")
    first = editor.capture()
    studio.set_joint("humanoid17", "left_knee", 0.5)
    second = editor.capture()
    assert (first.name, second.name) == ("pose1", "pose2")
    assert editor.last_source == "offscreen"  # no page connected
    assert len(editor.rows) == 2
    assert all(editor.images[kf.thumbnail].shape == (128, 128, 3) for kf in (first, second))
    assert second.targets["left_knee"] == pytest.approx(np.degrees(0.5), abs=1e-6)
    editor.go_to("pose1")
    assert view.q[view.model.joint_index("left_knee")] == pytest.approx(0.0, abs=1e-9)
    editor.duplicate("pose2")
    editor.move("pose2", -1)
    editor.set_speed("pose1", 8)
    motion = editor.motion()
    assert motion.keyframe_names[0] == "pose2" and len(motion.keyframes) == 3
    assert motion.keyframe("pose1").speed == 8
    for name in list(motion.keyframe_names):
        editor.delete(name)
    assert editor.program is None and editor.rows == []


def test_editor_keeps_the_controller_capacity(editor, studio):
    """The paper's 30 keyframes per motion: a 31st capture or duplicate is refused with
    the reason, the motion stays as it was."""
    from robotsim.motion.schema import Keyframe, Motion

    full = Motion(name="m", keyframes=[Keyframe(name=f"k{i}", targets={"head_yaw": i})
                                       for i in range(30)])  # fmt: skip
    editor._set_motion(full)
    with pytest.raises(InputError, match="holds at most 30 per motion"):
        editor.capture()
    with pytest.raises(InputError, match="would have 31 keyframes"):
        editor.duplicate("k3")
    assert len(editor.motion().keyframes) == 30


def test_save_and_load_with_thumbnails(editor, studio, tmp_path):
    editor.capture()
    path = editor.save(tmp_path / "m.yaml")
    thumb = editor.motion().keyframes[0].thumbnail
    assert not os.path.isabs(thumb) and (tmp_path / thumb).is_file()
    editor.new()
    editor.load(path)
    assert editor.motion().keyframes[0].thumbnail == thumb
    assert thumb in editor.images
    with pytest.raises(InputError, match=r"end in \.yaml"):
        editor.save(tmp_path / "m.txt")


def test_bad_motion_file_keeps_the_editor(editor, tmp_path):
    editor.capture()
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: robotsim-program/1\nname: x\nmotions: []\n")
    with pytest.raises(ScenarioError, match=r"bad\.yaml"):
        editor.load(bad)
    assert len(editor.motion().keyframes) == 1


def test_load_says_what_to_type_and_takes_a_shipped_name(editor, studio):
    with pytest.raises(InputError, match=r"type a motion file's path .*\(walk_forward\)"):
        editor.load("  ")
    assert editor.program is None
    editor.load("walk_forward")
    assert editor.program.name == "walk_forward" and len(editor.program.motions) > 1
    assert editor.file.value.endswith("walk_forward.yaml")


def test_play_to_the_end_with_the_stance_foot_shown(editor, studio):
    view = studio.robot("humanoid17")
    editor.speed.value = 8
    editor.capture()
    studio.set_joint("humanoid17", "left_shoulder_pitch", 0.6)
    editor.capture()
    editor.play()
    player = editor.player
    assert studio.clock.playing and player.prepared.soles
    stance = [h for h, _ in player.plates if h.visible]
    assert stance, "a stance plate is shown"
    end = player.prepared.duration
    while studio.clock.playing:
        studio.tick()
        assert studio.clock.t <= end + 2 * studio.clock.dt
    assert player.finished
    np.testing.assert_allclose(view.q, player.prepared.q[-1])
    assert "finished" in (editor.refresh_readout() or editor.readout.content)
    editor.stop()
    assert studio.driver.name == "pose tour"


def test_upload_to_a_robot_over_a_real_pty(editor, studio):
    """The editor's program goes to the robot-side emulator on a pty pair and comes back
    identical; an empty port is a clear error."""
    from tests.robotlink.ptys import emulated_robot

    from robotsim.robotlink.controller import encode_program

    editor.new()
    editor.capture()
    with pytest.raises(InputError, match="serial port"):
        editor.upload("  ")
    with emulated_robot() as (dev, emu):
        rep = editor.upload(dev, timeout=1.0)
        assert rep.size > 0 and emu.program == encode_program(editor.program)


def test_a_motion_for_a_robot_file_opens_in_the_editor(studio, tmp_path):
    """A program whose ``robot:`` is a file path (``motion gait --robot FILE`` writes
    such files): loading it in the editor crashed (StopIteration: the views' model
    names were compared with the path), and ``studio FILE`` / Open showed the robot
    but left the editor empty. Now both open it, for the robot already shown."""
    from tests.paths import FIXTURES

    humanoid = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"
    prog = tmp_path / "lift.yaml"
    prog.write_text(
        "format: robotsim-program/1\nname: lift\nrobot: " + str(humanoid) + "\nunits: deg\n"
        "motions:\n- name: lift\n  keyframes:\n"
        "  - {name: up, targets: {hip_y_right: -30, knee_right: -50}, speed: 4}\n"
    )
    editor = studio.panels["motion"]
    try:
        studio.clear()
        studio.open(str(prog))
        assert [v.model.name for _, v in studio.views()] == ["Humanoid"]
        assert editor.program is not None and editor.program.name == "lift"
        assert editor.robot.value == "Humanoid"
        editor.new()
        editor.load(prog)  # again, with the robot on the scene: no second humanoid
        assert editor.program.name == "lift"
        assert [v.model.name for _, v in studio.views()] == ["Humanoid"]
    finally:
        editor.new()
        studio.clear()


def test_the_studio_removes_its_thumbnails_when_it_stops(tmp_path):
    from robotsim.studio import Studio

    st = Studio(port=free_port(), root=tmp_path)
    try:
        st.add_robot("humanoid17")
        panel = st.panels["motion"]
        thumb = Path(panel.capture().thumbnail)
        assert thumb.parent == panel.thumb_dir and thumb.is_file()  # kept while it runs
    finally:
        st.stop()
    assert not panel.thumb_dir.exists()
