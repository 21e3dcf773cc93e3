"""The physics check of a motion (``motion check --physics``, ``kind: motion_check``)
records MuJoCo's root pose and joints at every tick with its scene, so it replays in
3D; keeping the poses changes none of the check's numbers."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim import load_robot
from robotsim.cli import main
from robotsim.export import load_replay
from robotsim.motion.physics_check import check_physics, record_check
from robotsim.motion.playback import play
from robotsim.motion.profile import load_profile
from robotsim.motion.schema import program_from_dict
from robotsim.motion.timeline import compile_program
from robotsim.recording import Recorder, RunStore
from robotsim.spatial import make_T, quat_to_R

# the humanoid lifts its left foot from the crouch without shifting its weight: it falls
LIFT = {
    "name": "lift_left",
    "units": "deg",
    "start": "crouch",
    "keyframes": [
        {
            "name": "lift",
            "speed": 6,
            "hold": 1.0,
            "targets": {"left_hip_pitch": 70, "left_knee": 110, "left_ankle_pitch": -40},
        }
    ],
}


@pytest.fixture(scope="module")
def fall():
    model, prof = load_robot("humanoid17"), load_profile("humanoid17")
    res = play(model, compile_program(program_from_dict(LIFT), model), prof.soles)
    return model, prof, res


def _numbers(chk) -> dict:  # type: ignore[no-untyped-def,type-arg]
    s = chk.summary()
    del s["real_time_factor"]
    return s


def test_keeping_the_poses_changes_nothing_and_replays_the_fall(fall, tmp_path) -> None:
    model, prof, res = fall
    plain = check_physics(res, prof)
    chk = check_physics(res, prof, poses=True)
    assert plain.replay_poses is None and chk.replay_poses.shape == (len(chk.t), 7 + model.nq)
    assert _numbers(chk) == _numbers(plain)
    assert np.array_equal(chk.base_pos, plain.base_pos)
    assert chk.verdict == "falls"
    with Recorder(tmp_path) as rec:
        rec.start_run("check")
        assert record_check(rec, chk) is True
    with RunStore(tmp_path) as store:
        replay = load_replay(store, "last")
        events = store.events("last")
    robot = replay.track("robot")
    assert np.array_equal(robot.t, chk.t)
    v = chk.replay_poses
    roots = np.stack([make_T(quat_to_R(r[3:7]), r[:3]) for r in v])
    assert np.abs(robot.T_world[:, 0] - roots).max() < 1e-12
    assert np.abs(robot.T_world - roots[:, None] @ model.fk_all(v[:, 7:])).max() < 1e-12
    # MuJoCo's root after each tick is at most one tick's motion from the check's reading
    assert np.abs(robot.T_world[:, 0, :3, 3] - chk.base_pos).max() < 0.05
    # the replay shows the fall: the root ends below the profile's fall height
    assert robot.T_world[-1, 0, 2, 3] < prof.physics.fall.min_base_height
    assert [e["type"] for e in events if e["type"] == "fall"] == ["fall"]


def test_the_motion_check_kind_replays(tmp_path) -> None:
    out = tmp_path / "check"
    args = ["run", "walk_forward_check", "--out", str(out), "--duration", "0.3"]
    assert main(args) == 0
    with RunStore(out) as store:
        replay = load_replay(store, "last")
        tab = store.signals("last", "robot")
    robot = replay.track("robot")
    assert replay.scene["engine"] == "physics" and len(robot.t) > 10
    assert {"base_height", "q.left_knee", "base.qw"} <= set(tab.names)
    assert np.allclose(robot.T_world[:, 0, 2, 3], tab.column("base.z"))
