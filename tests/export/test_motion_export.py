"""A kinematic run exports too: `motion play` records its scene and the root pose and
joints of every tick, and the replay is the playback's own poses."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.export import load_replay
from robotsim.recording import RunStore
from robotsim.shipped import shipped_dir


@pytest.mark.slow
def test_motion_play_replays_the_playback(tmp_path) -> None:
    out = tmp_path / "walk"
    walk = shipped_dir("motion") / "walk_forward.yaml"
    assert main(["motion", "play", str(walk), "--out", str(out)]) == 0
    npz = np.load(out / "trajectory.npz")
    with RunStore(out) as store:
        assert store.scene("last")["engine"] == "kinematic"
        replay = load_replay(store, "last")
    robot = replay.track("humanoid17")
    assert np.allclose(robot.t, npz["t"])
    assert np.abs(robot.T_world[:, 0] - npz["T_world_root"]).max() < 1e-12
    # every link where the playback put it (its link positions, recorded beside)
    names = [str(n) for n in npz["link_names"]]
    k = len(robot.t) // 2
    for i, frame in enumerate(robot.frames):
        j = names.index(frame.name.split("/", 1)[1])
        assert np.abs(robot.T_world[k, i, :3, 3] - npz["link_pos"][k, j]).max() < 1e-9
    # and it walked: the root travelled
    assert np.linalg.norm(robot.T_world[-1, 0, :2, 3] - robot.T_world[0, 0, :2, 3]) > 0.1
    html = tmp_path / "walk.html"
    assert main(["export", "last", "--db", str(out), "--format", "html", "--out", str(html)]) == 0
    assert html.stat().st_size > 10_000


def test_a_hand_run_replays_the_arms_and_the_ball(tmp_path) -> None:
    out = tmp_path / "hands"
    assert main(["run", "hand_ball_transfer", "--out", str(out), "--duration", "4"]) == 0
    with RunStore(out) as store:
        replay = load_replay(store, "last")
        hands = store.signals("last", "hands")
    ball = replay.track("ball")
    assert ball.moving and np.array_equal(ball.t, hands.t)
    assert np.array_equal(
        ball.T_world[:, 0, :3, 3], np.column_stack([hands.column(f"ball_{a}") for a in "xyz"])
    )
    robot = replay.track("robot")
    assert len(robot.t) == len(ball.t) and np.ptp(robot.q, axis=0).max() > 0.1  # arms moved
    assert {t.name for t in replay.tracks} >= {"robot", "ball", "table"}
