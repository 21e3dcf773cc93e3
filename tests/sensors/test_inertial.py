"""The IMU on a turntable spinning at a known rate (centripetal acceleration, angular
velocity, orientation), in free fall (reads nothing), tilted mounts, seeded noise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robotsim.spatial import quat_to_R, rot_z
from tests.sensors.worlds import omni_placement, rig, spinning_table, world_of

G = 9.81


@pytest.mark.parametrize("omega", [2.0, -3.0])
def test_a_spinning_imu_reads_centripetal_acceleration_and_its_rate(omega: float) -> None:
    world = spinning_table(omega)
    r = rig(world, "table", {"type": "imu", "link": "arm", "position": [0.5, 0, 0]})
    r.step(2000)  # 2 s: the velocity servo holds omega
    reading = r.latest("table", "imu")
    w = world.joint("table/spin").qd
    assert w == pytest.approx(omega, abs=1e-4)
    # sensor x points away from the axis, 0.5 m out: a = -w^2 r along x, gravity up
    np.testing.assert_allclose(reading["accel"], [-(w**2) * 0.5, 0.0, G], atol=2e-3)
    np.testing.assert_allclose(reading["gyro"], [0.0, 0.0, w], atol=1e-9)
    # the reading is of the state at its time t, one step or more before the world's
    assert world.time - 0.01 - 1e-9 <= reading.t < world.time
    angle = world.joint("table/spin").q - w * (world.time - reading.t)
    np.testing.assert_allclose(quat_to_R(reading["orientation"]), rot_z(angle), atol=1e-7)


def test_a_mount_turned_by_rpy_reads_gravity_on_its_own_axes() -> None:
    world = spinning_table(0.0)
    r = rig(world, "table",
            {"type": "imu", "name": "rolled", "link": "arm", "rpy_deg": [90, 0, 0]},
            {"type": "imu", "name": "pitched", "link": "arm", "rpy_deg": [0, -90, 0]})  # fmt: skip
    r.step(200)
    # roll +90 deg about x: the sensor's y axis is the world's up
    np.testing.assert_allclose(r.latest("table", "rolled")["accel"], [0, G, 0], atol=1e-6)
    # pitch -90 deg about y: the sensor's x axis is the world's up
    np.testing.assert_allclose(r.latest("table", "pitched")["accel"], [G, 0, 0], atol=1e-6)


def test_in_free_fall_an_imu_reads_no_specific_force() -> None:
    world = world_of([omni_placement("r")], ground=None)
    r = rig(world, "r", {"type": "imu", "position": [0.1, 0.0, 0.2]})
    r.step(100)
    reading = r.latest("r", "imu")
    assert world.body("r/base").velocity[0][2] < -0.5  # it is falling
    np.testing.assert_allclose(reading["accel"], 0.0, atol=1e-9)


def test_imu_noise_and_bias_are_seeded_and_have_their_size() -> None:
    noise = {"accel_std": 0.05, "gyro_std": 0.01, "accel_bias": [0.1, 0, 0],
             "gyro_bias_std": 0.02}  # fmt: skip

    def run(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        world = spinning_table(0.0, seed=seed)
        r = rig(world, "table", {"type": "imu", "link": "arm", "rate": 1000, "noise": noise})
        acc, gyr = [], []
        r.listen(lambda x: (acc.append(x["accel"]), gyr.append(x["gyro"])))
        r.step(2000)
        return np.array(acc[200:]), np.array(gyr[200:]), r.sensor("table", "imu").gyro_bias

    a1, g1, b1 = run(5)
    a2, g2, _ = run(5)
    a3, _, b3 = run(6)
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(g1, g2)
    assert not np.array_equal(a1, a3) and not np.array_equal(b1, b3)
    np.testing.assert_allclose(a1.mean(axis=0), [0.1, 0.0, G], atol=0.01)
    np.testing.assert_allclose(a1.std(axis=0), 0.05, rtol=0.1)
    np.testing.assert_allclose(g1.mean(axis=0), b1, atol=0.002)
    assert 0.0 < float(np.linalg.norm(b1)) < 0.2
    assert math.isclose(float(g1.std(axis=0).mean()), 0.01, rel_tol=0.1)


def test_a_swinging_imu_agrees_with_mujocos_object_acceleration() -> None:
    """The compiled reading (MuJoCo's com-based ``cacc``/``cvel`` moved to the sensor
    point) against ``mj_objectAcceleration``/``mj_objectVelocity`` of the body moved
    there by hand, on a lever swinging under gravity (angular acceleration and a centre
    of mass off the body origin: every term counts)."""
    import mujoco

    from robotsim.physics import RobotPlacement
    from robotsim.spatial import make_T, rpy_to_R
    from tests.sensors.worlds import lever

    world = world_of([RobotPlacement("lv", lever(), make_T(None, [0, 0, 0]), default_motor=None)])
    r = rig(world, "lv", {"type": "imu", "link": "arm", "position": [0.3, 0.05, -0.02],
                          "rpy_deg": [20, -35, 60]})  # fmt: skip
    r.step(150)
    reading = r.sample_now()[0]
    m, d = world.model, r.data
    b = world.body("lv/arm").id
    acc, vel = np.empty(6), np.empty(6)
    mujoco.mj_objectAcceleration(m, d, mujoco.mjtObj.mjOBJ_XBODY, b, acc, 0)
    mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_XBODY, b, vel, 0)
    R_wb = d.xmat[b].reshape(3, 3)
    R = R_wb @ rpy_to_R(np.radians([20, -35, 60]))
    p = R_wb @ np.array([0.3, 0.05, -0.02])
    w, alpha = vel[:3], acc[:3]
    a = acc[3:] + np.cross(alpha, p) + np.cross(w, np.cross(w, p))
    assert abs(alpha[1]) > 1.0 and np.linalg.norm(w) > 0.5  # it swings and speeds up
    np.testing.assert_allclose(reading["accel"], R.T @ a, atol=1e-9)
    np.testing.assert_allclose(reading["gyro"], R.T @ w, atol=1e-12)
    np.testing.assert_allclose(quat_to_R(reading["orientation"]), R, atol=1e-12)


def test_recorded_imu_readings_are_the_ones_the_rig_handed_out(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The IMU writes rows in blocks handed to the recorder a few times a second and
    when the run finishes: the run store gives back every reading the listeners saw,
    bit for bit, across blocks."""
    from robotsim.recording import Recorder, RunStore

    world = spinning_table(1.5, seed=3)
    noise = {"accel_std": 0.05, "gyro_std": 0.01, "orientation_std_deg": 0.5}
    with Recorder(tmp_path) as rec:
        rec.start_run("imu")
        r = rig(world, "table", {"type": "imu", "link": "arm", "rate": 500, "noise": noise},
                recorder=rec)  # fmt: skip
        seen: list = []
        r.listen(lambda x: seen.append((x.t, x["accel"].copy(), x["orientation"].copy())))
        for _ in range(30):  # 300 readings: more than a block of rows
            r.step(20)
        # rows go over every 62.5 ms of simulated time: the last are held until the end
        held = r._filled[0] - r._sent[0]
        assert 0 < held <= 32  # the recorder's finish asks for them
    r.close()
    with RunStore(tmp_path) as store:
        s = store.sensor(1, "table", "imu")
    assert len(seen) == 300 == len(s.t)
    np.testing.assert_array_equal(s.t, [x[0] for x in seen])
    np.testing.assert_array_equal(s["accel"], [x[1] for x in seen])
    np.testing.assert_array_equal(s["orientation"], [x[2] for x in seen])


def test_imu_rows_written_while_the_rig_steps_are_the_listened_readings(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Without listeners the rig writes the IMU rows itself while it steps the world
    (no calls per reading); with a listener every reading goes the general way. Both
    give the same readings, bit for bit: times, noise, blocks of rows and counts."""
    from robotsim.recording import Recorder, RunStore

    noise = {"accel_std": 0.05, "gyro_std": 0.01, "orientation_std_deg": 0.5}
    spec = {"type": "imu", "link": "arm", "rate": 300, "noise": noise}
    listened = rig(spinning_table(1.5, seed=3), "table", spec)
    seen: list = []
    listened.listen(lambda x: seen.append((x.t, x["accel"].copy(), x["gyro"].copy())))
    for _ in range(40):
        listened.step(23)  # steps that do not fall on the readings' period
    with Recorder(tmp_path) as rec:
        rec.start_run("imu")
        quiet = rig(spinning_table(1.5, seed=3), "table", spec, recorder=rec)
        for _ in range(40):
            quiet.step(23)
    quiet.close()
    assert quiet.compiled_calls > 0 == listened.compiled_calls  # both paths were taken
    with RunStore(tmp_path) as store:
        s = store.sensor(1, "table", "imu")
    assert len(s.t) == len(seen) == quiet.samples == listened.samples > 256  # > a block
    np.testing.assert_array_equal(s.t, [x[0] for x in seen])
    np.testing.assert_array_equal(s["accel"], [x[1] for x in seen])
    np.testing.assert_array_equal(s["gyro"], [x[2] for x in seen])


def test_the_arena_use_the_compiled_stepping_reads_is_mujocos() -> None:
    """The compiled stepping reads ``maxuse_stack`` and ``maxuse_arena`` straight from
    the ``mjData`` struct, at the offsets found by marker; they are the fields the
    bindings show, and the fields keep their values."""
    import ctypes

    from robotsim.sensors._stepping import arena_offsets

    world = spinning_table(1.5, seed=3)
    world.step(3)
    d = world.data
    before = (int(d.maxuse_stack), int(d.maxuse_arena))
    found = arena_offsets(d)
    assert found is not None and found[0] != found[1]
    assert (int(d.maxuse_stack), int(d.maxuse_arena)) == before  # put back
    words = (ctypes.c_int64 * 64).from_address(int(d._address))
    assert (words[found[0]], words[found[1]]) == before
    d.maxuse_arena = before[1] + 12345
    assert words[found[1]] == before[1] + 12345


def test_the_compiled_stepping_gives_way_when_mujocos_arena_runs_tight() -> None:
    """MuJoCo's out-of-memory error cannot be raised from inside the compiled stepping,
    so the rig uses it only while the run's measured arena use is under a quarter of
    the arena: past that, every stretch goes through the bindings (where the error is
    a ``mujoco.FatalError``), with the same readings."""
    spec = {"type": "imu", "link": "arm", "rate": 300}
    roomy, tight = (rig(spinning_table(1.5, seed=3), "table", spec) for _ in range(2))
    assert roomy._kernel_args is not None  # MuJoCo's library found: compiled stepping
    for r in (roomy, tight):
        r.step(5)
    before = tight.compiled_calls
    d, m = tight.world.data, tight.world.model
    d.maxuse_arena = m.narena // 4  # as if the run had used a quarter of the arena
    for r in (roomy, tight):
        for _ in range(10):
            r.step(23)
    assert roomy.compiled_calls > 0
    assert tight.compiled_calls == before
    assert tight.samples == roomy.samples > 0
    a, b = roomy.latest("table", "imu"), tight.latest("table", "imu")
    assert a.t == b.t
    np.testing.assert_array_equal(a["accel"], b["accel"])
