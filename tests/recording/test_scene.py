"""The run store's 3D scene (schema 2): what is recorded is exactly what MuJoCo
simulated, and stores made before it still open and export."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from robotsim.model import load_robot
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Sphere
from robotsim.physics import Body, Joint, Motor, RobotPlacement, Scene, World
from robotsim.recording import Recorder, RunStore
from robotsim.recording.scene import (
    ROOT_SIGNALS,
    PhysicsPoseSampler,
    geometry_doc,
    geometry_from_doc,
    load_scene_model,
    model_ref,
    physics_scene_doc,
    write_scene,
)
from robotsim.spatial import make_T, quat_to_R, rot_z

INERTIA = '<inertia ixx="0.01" iyy="0.01" izz="0.002" ixy="0" ixz="0" iyz="0"/>'
LIMIT = '<limit lower="-2" upper="2" effort="50" velocity="3"/>'
ARM_URDF = f"""<robot name="arm2">
  <link name="base"><inertial><mass value="2"/>{INERTIA}</inertial>
    <visual><geometry><box size="0.2 0.2 0.1"/></geometry></visual></link>
  <link name="upper"><inertial><origin xyz="0 0 0.15"/><mass value="1"/>{INERTIA}</inertial>
    <visual><origin xyz="0 0 0.15"/><geometry><cylinder radius="0.03" length="0.3"/>
    </geometry></visual></link>
  <link name="fore"><inertial><origin xyz="0 0 0.1"/><mass value="0.5"/>{INERTIA}</inertial>
    <visual><origin xyz="0 0 0.1"/><geometry><sphere radius="0.04"/></geometry></visual></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.05" rpy="0.1 0 0.3"/><axis xyz="0 1 0"/>{LIMIT}</joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="fore"/>
    <origin xyz="0 0 0.3"/><axis xyz="1 0 0"/>{LIMIT}</joint>
</robot>
"""


def _world(tmp_path) -> World:
    (tmp_path / "arm2.urdf").write_text(ARM_URDF)
    arm = load_robot(tmp_path / "arm2.urdf")
    omni = load_robot("omni3")
    scene = Scene(
        bodies=(
            Body("ball", Sphere(0.1), make_T(None, [1.0, 0.5, 0.6]), joint=Joint("free")),
            Body("wall", Box((0.1, 2.0, 0.5)), make_T(rot_z(0.4), [2.0, 0.0, 0.25])),
        ),
        robots=(
            RobotPlacement(
                "arm",
                arm,
                make_T(rot_z(0.7), [0.5, -1.0, 0.0]),
                default_motor=Motor("position", gain=80.0, damping=5.0),
            ),
            RobotPlacement(
                "omni",
                omni,
                make_T(None, [-1.0, 0.0, 0.0]),
                motors={j: Motor("velocity", gain=0.5) for j in omni.joint_names},
                default_motor=None,
            ),
        ),
    )
    return World(scene)


def test_recorded_poses_give_mujocos_link_poses_through_our_fk(tmp_path) -> None:
    world = _world(tmp_path)
    sampler = PhysicsPoseSampler(world)
    world.motor("arm/shoulder").set(1.2)
    world.motor("arm/elbow").set(-0.8)
    for j in ("wheel1", "wheel2", "wheel3"):
        world.motor(f"omni/{j}").set(6.0)
    worst = 0.0
    for _ in range(40):
        world.step(10)
        samples = sampler.sample()
        world.sync_poses()  # MuJoCo's own body poses of the state now, to compare with
        for group, names, vals in samples:
            v = np.asarray(vals)
            T_root = make_T(quat_to_R(v[3:7]), v[:3])
            if group == "ball":
                assert names == ROOT_SIGNALS
                b = world.body("ball")
                worst = max(worst, float(np.abs(T_root - b.pose).max()))
                continue
            model = next(r.model for r in world.scene.robots if r.name == group)
            assert names[7:] == tuple(f"q.{j}" for j in model.joint_names)
            links = T_root @ model.fk_all(v[7:])
            for i, lk in enumerate(model.link_names):
                mj = world.body(f"{group}/{lk}").pose
                worst = max(worst, float(np.abs(links[i] - mj).max()))
    assert world.state().q("arm/shoulder") > 0.3  # it really moved
    assert worst < 1e-9, worst


def test_the_check_says_no_when_a_joint_is_left_out(tmp_path) -> None:
    """The comparison above is not vacuous: dropping the elbow angle breaks it."""
    world = _world(tmp_path)
    sampler = PhysicsPoseSampler(world)
    world.motor("arm/elbow").set(-1.0)
    world.step(300)
    _, _, vals = next(s for s in sampler.sample() if s[0] == "arm")
    world.sync_poses()
    v = np.asarray(vals)
    model = world.scene.robots[0].model
    q = v[7:].copy()
    q[1] = 0.0
    links = make_T(quat_to_R(v[3:7]), v[:3]) @ model.fk_all(q)
    fore = world.body("arm/fore").pose
    assert np.abs(links[model.link_names.index("fore")] - fore).max() > 0.05


def test_scene_document_round_trips_through_the_store(tmp_path) -> None:
    world = _world(tmp_path)
    doc = physics_scene_doc(world.scene)
    with Recorder(tmp_path / "db") as rec:
        rid = rec.start_run("scene test")
        assert write_scene(rec, doc)
        PhysicsPoseSampler(world).record(rec, 0.0)
    with RunStore(tmp_path / "db") as store:
        got = store.scene(rid)
        assert got == json.loads(json.dumps(doc))
        assert store.run(rid).versions["store_schema"] >= 2
        assert set(store.robots(rid)) == {"arm", "omni", "ball"}
    names = {r["name"]: r for r in got["robots"]}
    assert names["omni"]["model"] == "omni3" and "sha256" not in names["omni"]
    assert names["arm"]["model"].endswith("arm2.urdf") and len(names["arm"]["sha256"]) == 64
    objects = {o["name"]: o for o in got["objects"]}
    assert objects["ball"]["moving"] and not objects["wall"]["moving"]
    assert objects["wall"]["pose"][:3] == [2.0, 0.0, 0.25]


def test_a_changed_robot_file_is_refused(tmp_path) -> None:
    (tmp_path / "arm2.urdf").write_text(ARM_URDF)
    ref = model_ref(load_robot(tmp_path / "arm2.urdf"))
    assert load_scene_model(ref).name == "arm2"
    (tmp_path / "arm2.urdf").write_text(ARM_URDF.replace('length="0.3"', 'length="0.4"'))
    with pytest.raises(Exception, match="changed since the run was recorded"):
        load_scene_model(ref)


def test_a_python_built_model_is_kept_as_urdf() -> None:
    from robotsim.model import RobotBuilder

    b = RobotBuilder("built")
    b.link("a", [Box((0.1, 0.1, 0.1))]).link("b", [Sphere(0.05)])
    b.joint(
        "j",
        "revolute",
        "a",
        "b",
        origin=make_T(rot_z(0.3), [0.2, 0, 0.1]),
        axis=(0, 1, 0),
        lower=-1,
        upper=1,
    )
    model = b.build()
    ref = model_ref(model)
    assert set(ref) == {"urdf"}
    back = load_scene_model(ref)
    assert back.link_names == model.link_names
    q = np.array([0.7])
    assert np.abs(back.fk_all(q) - model.fk_all(q)).max() < 1e-12


@pytest.mark.parametrize(
    "g", [Box((1, 2, 3)), Sphere(0.5), Cylinder(0.2, 1.0), Capsule(0.1, 0.3), Ellipsoid((1, 2, 3))]
)
def test_shapes_round_trip(g) -> None:
    assert geometry_from_doc(geometry_doc(g)) == g


def test_a_store_made_before_schema_2_opens_and_gains_the_table(tmp_path) -> None:
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, scenario TEXT NOT NULL, "
        "parameters TEXT NOT NULL, seed INTEGER, versions TEXT NOT NULL, started_at FLOAT "
        "NOT NULL, ended_at FLOAT, status VARCHAR(16) NOT NULL, message TEXT, heartbeat "
        "FLOAT NOT NULL, host VARCHAR(255) NOT NULL, pid INTEGER NOT NULL, flush_interval "
        "FLOAT NOT NULL);"
        "INSERT INTO runs VALUES (1, 'old', '{}', NULL, '{}', 0, 1, 'completed', NULL, 1, "
        "'h', 1, 0.5);"
    )
    con.commit()
    con.close()
    with RunStore(path) as store:
        assert store.scene(1) is None
        assert store.run(1).scenario == "old"


def test_scenes_and_replays_on_postgresql(tmp_path, pg_url) -> None:
    """The same tables and the same replay on a real PostgreSQL server."""
    from robotsim.export import export_file, load_replay

    world = _world(tmp_path)
    sampler = PhysicsPoseSampler(world)
    world.motor("arm/elbow").set(-0.7)
    with Recorder(pg_url) as rec:
        rid = rec.start_run("scene on postgres")
        write_scene(rec, physics_scene_doc(world.scene))
        for _ in range(20):
            world.step(10)
            sampler.record(rec, world.time)
    with RunStore(pg_url) as store:
        assert store.scene(rid)["robots"][1]["model"] == "omni3"
        replay = load_replay(store, rid)
        out = export_file(store, rid, "mcap", tmp_path / "pg.mcap")
    arm = replay.track("arm")
    assert len(arm.t) == 20 and np.ptp(arm.q[:, 1]) > 0.1
    model = world.scene.robots[0].model
    fore = model.link_names.index("fore")
    world.sync_poses()  # MuJoCo's poses of the last recorded state
    assert np.abs(arm.T_world[-1, fore] - world.body("arm/fore").pose).max() < 1e-12
    assert out.stat().st_size > 1000


def test_recording_leaves_a_servo_world_as_it_runs(tmp_path) -> None:
    """Reading the poses between chunks changes nothing of the run, even with servo
    feed-forward (which reads MuJoCo's last computed body poses): the same steps give
    the same state bit for bit with and without the sampler."""
    from robotsim.model import load_robot as load
    from robotsim.motion.profile import load_profile
    from robotsim.physics import RobotPlacement, Scene, World

    model = load("humanoid17")
    ph = load_profile("humanoid17").physics
    motors = {}
    for j in model.joint_names:
        kp, kv, tau = ph.gains(j)
        motors[j] = Motor("position", gain=kp, damping=kv, force=tau, feedforward=ph.feedforward)

    def run(sample: bool) -> np.ndarray:
        place = RobotPlacement("h", model, make_T(None, [0, 0, 0.3]), motors=motors)
        world = World(Scene(robots=(place,)))
        sampler = PhysicsPoseSampler(world)
        world.motor("h/left_knee").set(0.8)
        for _ in range(30):
            world.step(5)
            if sample:
                sampler.sample()
        return np.concatenate([world.data.qpos, world.data.qvel])

    assert ph.feedforward  # the case that broke when sampling recomputed MuJoCo's poses
    assert np.array_equal(run(True), run(False))
