"""A humanoid walk in physics exports like any run: ``robotsim run`` of a ``kind: walk``
scenario (and ``robotsim walk``) records the scene and MuJoCo's measured root pose and
joints at every control tick, so the 3D formats (mp4, gif, html) take it; on a slope
the slab it walks on is in the scene, its top the walk's ground plane."""

from __future__ import annotations

import numpy as np

from robotsim.cli import main
from robotsim.export import load_replay
from robotsim.recording import RunStore
from robotsim.spatial import quat_to_R
from robotsim.walk.simulate import SLOPE_SLAB, slope_slab
from robotsim.walk.swing import Ground


def test_a_walk_scenario_records_its_scene_and_replays_the_measured_walk(tmp_path) -> None:
    out = tmp_path / "walk"
    assert main(["run", "walk_commands", "--out", str(out), "--duration", "0.6"]) == 0
    with RunStore(out) as store:
        scene = store.scene("last")
        replay = load_replay(store, "last")
        table = store.signals("last", "humanoid17")
    assert scene is not None and scene["engine"] == "physics"
    robot = replay.track("humanoid17")
    assert len(robot.t) == len(table.t) > 50 and np.array_equal(robot.t, table.t)
    # the replay's root is the walk's own measured base position, to the bit
    base = np.column_stack([table.column(f"base_{a}") for a in "xyz"])
    assert np.array_equal(robot.T_world[:, 0, :3, 3], base)
    # the recorded quaternion is a rotation: the root's z axis stays near up (it stands)
    q = np.column_stack([table.column(f"base.q{a}") for a in "wxyz"])
    R = np.array([quat_to_R(v) for v in q])
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0) and R[:, 2, 2].min() > 0.95
    assert len(robot.frames) == 18  # every link of humanoid17, posed by its joints
    video = tmp_path / "walk.gif"
    code = main(["export", "last", "--db", str(out), "--format", "gif", "--out", str(video),
                 "--width", "64", "--height", "48", "--fps", "5"])  # fmt: skip
    assert code == 0 and video.stat().st_size > 1000


def test_the_slope_slab_top_is_the_ground_plane() -> None:
    assert slope_slab(None) is None and slope_slab(Ground()) is None  # the floor plane
    ground = Ground(slope_x=0.087, slope_y=-0.03, height=0.02)
    T = slope_slab(ground)
    assert T is not None and np.allclose(T[:3, :3].T @ T[:3, :3], np.eye(3))
    hx, hy, hz = (s / 2 for s in SLOPE_SLAB)
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1), (0, 0)):
        p = T @ np.array([sx * hx, sy * hy, hz, 1.0])  # a corner of the top face
        assert abs(p[2] - ground.z(p[0], p[1])) < 1e-12
    bottom = T @ np.array([0.0, 0.0, -hz, 1.0])
    assert bottom[2] < ground.z(bottom[0], bottom[1])  # the slab lies under the plane
