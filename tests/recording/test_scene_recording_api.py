"""The small recording API runners call to make their runs replay in 3D
(``record_trajectory``, ``record_poses``, ``record_physics_scene``): what they record
is read back exactly, and recorders that keep no scenes get nothing."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.errors import InputError
from robotsim.export import load_replay
from robotsim.model import load_robot
from robotsim.model.geometry import Sphere
from robotsim.physics import Body, Joint, RobotPlacement, Scene, World
from robotsim.recording import Recorder, RunStore
from robotsim.recording.scene import (
    keeps_scenes,
    record_physics_scene,
    record_poses,
    record_trajectory,
)
from robotsim.run_io import CsvRecorder, NullRecorder
from robotsim.spatial import make_T, rot_z

URDF = """<robot name="legs2">
  <link name="pelvis"><inertial><mass value="2"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="0.2 0.3 0.1"/></geometry></visual></link>
  <link name="thigh"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0 0 -0.15"/><geometry><cylinder radius="0.03" length="0.3"/>
    </geometry></visual></link>
  <link name="shank"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0 0 -0.15"/><geometry><cylinder radius="0.03" length="0.3"/>
    </geometry></visual></link>
  <joint name="hip" type="revolute"><parent link="pelvis"/><child link="thigh"/>
    <origin xyz="0 0.1 -0.05" rpy="0.2 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="50" velocity="3"/></joint>
  <joint name="knee" type="revolute"><parent link="thigh"/><child link="shank"/>
    <origin xyz="0 0 -0.3"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="50" velocity="3"/></joint>
</robot>
"""


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "legs2.urdf"
    path.write_text(URDF)
    return load_robot(path)


def _walk(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    t = np.arange(n) * 0.01
    roots = np.stack([make_T(rot_z(0.3 * k / n), [0.01 * k, -0.002 * k, 0.8]) for k in range(n)])
    q = rng.uniform(-1.5, 1.5, (n, 2))
    return t, roots, q


def test_a_trajectory_recorded_after_the_run_replays_exactly(model, tmp_path) -> None:
    t, roots, q = _walk(5000)  # more than one block of samples
    with Recorder(tmp_path) as rec:
        rec.start_run("walk")
        assert record_trajectory(rec, "bot", model, t, roots, q) is True
    with RunStore(tmp_path) as store:
        replay = load_replay(store, "last")
    bot = replay.track("bot")
    assert np.array_equal(bot.t, t) and np.array_equal(bot.q, q)
    assert np.abs(bot.T_world - roots[:, None] @ model.fk_all(q)).max() < 1e-12
    assert replay.ground == {"size": None, "rgba": [0.82, 0.84, 0.86, 1.0]}
    assert replay.scene["robots"][0]["model"].endswith("legs2.urdf")


def test_a_fixed_base_takes_one_pose(model, tmp_path) -> None:
    t, _, q = _walk(20)
    base = make_T(rot_z(1.0), [1.0, 2.0, 0.5])
    with Recorder(tmp_path) as rec:
        rec.start_run("arm")
        record_trajectory(rec, "bot", model, t, base, q, ground=None, engine="kinematic")
    with RunStore(tmp_path) as store:
        bot = load_replay(store, "last").track("bot")
    assert np.abs(bot.T_world[:, 0] - base).max() < 1e-12


def test_recorders_without_scenes_get_nothing(model, tmp_path) -> None:
    t, roots, q = _walk(10)
    assert not keeps_scenes(NullRecorder())
    csv = CsvRecorder(tmp_path)
    csv.start_run("csv")
    assert not keeps_scenes(csv)
    assert record_trajectory(csv, "bot", model, t, roots, q) is False
    record_poses(csv, "bot", model, t, roots, q)
    csv.finish()
    assert (tmp_path / "recording.csv").read_text() == ""


def test_shapes_that_do_not_fit_are_refused(model, tmp_path) -> None:
    t, roots, q = _walk(10)
    with Recorder(tmp_path) as rec:
        rec.start_run("bad")
        with pytest.raises(InputError, match="columns"):
            record_poses(rec, "bot", model, t, roots, q[:, :1])
        with pytest.raises(InputError, match=r"\(4, 4\) or \(10, 4, 4\)"):
            record_poses(rec, "bot", model, t, roots[:3], q)


def test_a_physics_world_records_through_its_sampler(model, tmp_path) -> None:
    scene = Scene(
        bodies=(Body("ball", Sphere(0.05), make_T(None, [0.5, 0, 1.0]), joint=Joint("free")),),
        robots=(RobotPlacement("bot", model, make_T(None, [0, 0, 1.0])),),
    )
    world = World(scene)
    assert record_physics_scene(CsvRecorder(tmp_path / "csv"), world) is None
    with Recorder(tmp_path) as rec:
        rec.start_run("physics")
        sampler = record_physics_scene(rec, world)
        for _ in range(10):
            world.step(20)
            sampler.record(rec, world.time)
    with RunStore(tmp_path) as store:
        replay = load_replay(store, "last")
    ball = replay.track("ball")
    assert len(ball.t) == 10 and ball.T_world[-1, 0, 2, 3] < 0.95  # it fell
    world.sync_poses()
    assert np.abs(ball.T_world[-1, 0] - world.body("ball").pose).max() < 1e-12
