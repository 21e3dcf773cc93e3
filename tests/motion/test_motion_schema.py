"""Motion/program files: round trips, editing operations, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from robotsim.errors import ScenarioError, UnknownNameError
from robotsim.motion.profile import check_capacity, load_profile
from robotsim.motion.schema import (
    Keyframe,
    Motion,
    Program,
    load_program,
    program_from_dict,
    save_program,
    speed_seconds,
)
from robotsim.motion.timeline import compile_program
from robotsim.shipped import shipped_dir
from tests.motion.biped import biped

WALK = shipped_dir("motion") / "walk_forward.yaml"


def _motion_dict(**kw: object) -> dict:
    d = {
        "format": "robotsim-motion/1",
        "name": "wave",
        "units": "deg",
        "keyframes": [
            {"name": "a", "targets": {"l_knee": 10}, "speed": 2},
            {"name": "b", "targets": {"l_knee": 40, "r_knee": 20}, "speed": 8, "hold": 0.5},
        ],
    }
    d.update(kw)
    return d


def test_bare_motion_becomes_a_program_and_round_trips(tmp_path: Path) -> None:
    prog = program_from_dict(_motion_dict())
    assert [m.name for m in prog.motions] == ["wave"]
    assert [s.motion for s in prog.steps] == ["wave"]
    out = save_program(prog, tmp_path / "w.yaml")
    again = load_program(out)
    assert again == prog
    assert save_program(again, tmp_path / "w2.yaml").read_text() == out.read_text()


def test_a_motion_file_can_be_saved_as_a_motion_file(tmp_path: Path) -> None:
    prog = program_from_dict(_motion_dict(robot="biped"))
    out = save_program(prog, tmp_path / "m.yaml", "robotsim-motion/1")
    data = yaml.safe_load(out.read_text())
    assert data["format"] == "robotsim-motion/1" and data["robot"] == "biped"
    assert "motions" not in data and "start" not in data and data["name"] == "wave"
    assert load_program(out) == prog
    two = prog.with_motion(prog.motions[0].model_copy(update={"name": "other"}))
    with pytest.raises(ScenarioError, match="several motions"):
        save_program(two, tmp_path / "two.yaml", "robotsim-motion/1")


def test_walk_file_round_trips_exactly(tmp_path: Path) -> None:
    prog = load_program(WALK)
    again = load_program(save_program(prog, tmp_path / "walk.yaml"))
    assert again == prog
    assert sum(s.repeat for s in prog.steps) >= 4


def test_editing_returns_new_motions() -> None:
    m = program_from_dict(_motion_dict()).motions[0]
    m2 = m.add_keyframe(Keyframe(name="c", targets={"r_knee": 5}), index=1)
    assert m2.keyframe_names == ("a", "c", "b") and m.keyframe_names == ("a", "b")
    assert m2.move_keyframe("a", 2).keyframe_names == ("c", "b", "a")
    assert m2.delete_keyframe("c").keyframe_names == ("a", "b")
    dup = m2.duplicate_keyframe("b")
    assert dup.keyframe_names == ("a", "c", "b", "b_2")
    assert dup.keyframe("b_2").targets == dup.keyframe("b").targets
    assert m2.set_speed("a", 7).keyframe("a").speed == 7
    with pytest.raises(UnknownNameError, match=r"keyframe 'zz'.*valid: a, c, b"):
        m2.delete_keyframe("zz")
    with pytest.raises(ScenarioError, match="only keyframe"):
        Motion(name="x", keyframes=[Keyframe(name="k")]).delete_keyframe("k")


def test_speed_levels_mapping() -> None:
    assert speed_seconds(1) == 2.0 and speed_seconds(8) == 0.25
    assert all(speed_seconds(k) > speed_seconds(k + 1) for k in range(1, 8))
    with pytest.raises(ScenarioError, match=r"speed level 9.*1..8"):
        speed_seconds(9)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"keyframes": []}, r"keyframes: List should have at least 1 item"),
        ({"keyframes": [{"name": "a", "speed": 9}]}, r"keyframes\[0\]\.speed: .*8 \(got 9\)"),
        ({"keyframes": [{"name": "a", "speed": 0}]}, r"keyframes\[0\]\.speed"),
        ({"keyframes": [{"name": "a", "hold": -1}]}, r"keyframes\[0\]\.hold"),
        (
            {"keyframes": [{"name": "a"}, {"name": "a"}]},
            r"keyframes: keyframe name 'a' is used twice",
        ),
        (
            {"keyframes": [{"name": "a", "colour": 1}]},
            r"keyframes\[0\]\.colour: unknown field; valid: name, targets, speed, hold, thumbnail$",
        ),
        ({"colour": 1}, r"colour: unknown field; valid: format, robot, .*keyframes$"),
        ({"interpolation": "spline"}, r"interpolation: .*'linear', 'cubic' or 'minjerk'"),
        ({"format": "robotsim-motion/9"}, r"format: unknown 'robotsim-motion/9'"),
    ],
)
def test_file_errors_name_the_field(change: dict, match: str) -> None:
    with pytest.raises(ScenarioError, match="src.yaml: " + match):
        program_from_dict(_motion_dict(**change), "src.yaml")


def test_unknown_joint_and_out_of_limit_value() -> None:
    model = biped()
    bad = _motion_dict(keyframes=[{"name": "a", "targets": {"l_elbow": 3}}])
    with pytest.raises(
        ScenarioError,
        match=r"keyframes\[0\]\.targets\.l_elbow: unknown joint "
        r"of test_biped; valid: .*l_hip_roll",
    ):
        compile_program(program_from_dict(bad), model)
    far = _motion_dict(keyframes=[{"name": "a", "targets": {"l_knee": 170}}])
    with pytest.raises(
        ScenarioError,
        match=r"l_knee: 170 deg is outside the joint limits "
        r"\[0, 143.239\] deg",
    ):
        compile_program(program_from_dict(far), model)
    start = _motion_dict(start="sitting")
    with pytest.raises(ScenarioError, match=r"start: unknown pose 'sitting'.*valid: stand"):
        compile_program(program_from_dict(start), model)


def test_program_sequence_names_and_capacity() -> None:
    m = program_from_dict(_motion_dict()).motions[0]
    with pytest.raises(ScenarioError, match=r"sequence\[0\]\.motion: unknown motion 'run'"):
        program_from_dict(
            {"name": "p", "motions": [m.model_dump()], "sequence": [{"motion": "run"}]}
        )
    big = Program(
        name="p", motions=[Motion(name="m", keyframes=[Keyframe(name=f"k{i}") for i in range(31)])]
    )
    prof = load_profile("humanoid17")
    with pytest.raises(
        ScenarioError, match="31 keyframes; the humanoid17 controller holds at most 30"
    ):
        check_capacity(big, prof)
    long = Program(name="p", motions=[m], sequence=[{"motion": "wave"}] * 21)
    with pytest.raises(ScenarioError, match="21 motions"):
        check_capacity(long, prof)
    check_capacity(load_program(WALK), prof)  # the walk fits the paper's controller


def test_editor_captures_a_pose_and_reads_keyframe_poses() -> None:
    import numpy as np

    from robotsim.motion.timeline import keyframe_from_q, keyframe_poses

    model = biped()
    q = model.q_from({"l_knee": 0.7, "r_hip_pitch": -0.2})
    kf = keyframe_from_q(model, q, "captured", units="deg", speed=6)
    assert kf.targets["l_knee"] == pytest.approx(np.degrees(0.7)) and kf.speed == 6
    prog = program_from_dict(_motion_dict())
    motion = prog.motions[0].add_keyframe(kf)
    poses = keyframe_poses(prog.with_motion(motion), model)
    assert np.allclose(poses[("wave", "captured")], q, atol=1e-9)
    b = poses[("wave", "b")]
    assert np.degrees(b[model.joint_index("l_knee")]) == pytest.approx(40)
    assert np.degrees(poses[("wave", "a")][model.joint_index("r_knee")]) == pytest.approx(0)


def test_another_robots_program_is_refused_saying_so(tmp_path) -> None:
    """The shipped humanoid17 walk on a robot file of another maker (a NAO-like URDF
    written here): none of its joints is that robot's, so the error says whose program
    it is and how to make the robot's own, not that a pose named 'stand' is missing."""
    from robotsim.model import load_robot
    from robotsim.motion.schema import load_program
    from robotsim.shipped import find_shipped
    from tests.humanoid_files import write_nao_like_urdf

    nao = load_robot(str(write_nao_like_urdf(tmp_path / "nao.urdf")))
    program = load_program(find_shipped("walk_forward", "motion"))
    with pytest.raises(
        ScenarioError,
        match=r"^walk_forward: the program moves 10 joint\(s\) that \S+ does not have "
        r"\(left_hip_roll, .*\): it is written for humanoid17; .*'robotsim walk ROBOT",
    ):
        compile_program(program, nao, "walk_forward")
