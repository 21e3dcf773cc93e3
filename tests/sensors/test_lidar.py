"""The lidar against geometry worked out by hand and against MuJoCo's own single-ray
cast, its self-exclusion, other robots, multi-layer scans and seeded noise."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from robotsim.sensors import scan_points
from tests.sensors.worlds import omni_placement, post, rig, wall, world_of

H = 0.3  # lidar height above the base origin (m)


def _scan(world, name="r", **lidar):
    r = rig(world, name, {"type": "lidar", "position": [0, 0, H], **lidar})
    r.step(1)
    return r, r.latest(name, "lidar")


def test_ranges_to_a_wall_are_the_plane_distance_along_each_ray() -> None:
    world = world_of([omni_placement("r")], [wall("w", 3.0)], ground=None)
    r, reading = _scan(world, rays=360, range=[0.05, 30.0])
    az = np.asarray(r.meta("r", "lidar")["azimuths"])
    origin = reading["pose"][:3]
    ranges = reading["ranges"][0]
    ahead = np.abs(az) < math.radians(55)  # every one of these rays meets the wall's face
    expected = (3.0 - origin[0]) / np.cos(az[ahead])
    np.testing.assert_allclose(ranges[ahead], expected, rtol=2e-6)
    behind = np.abs(az) > math.radians(100)
    assert np.isinf(ranges[behind]).all()  # nothing there (no ground, no self)


def test_a_post_is_seen_at_centre_distance_minus_radius() -> None:
    world = world_of([omni_placement("r")], [post("p", 0.0, 2.0, 0.25)], ground=None)
    r, reading = _scan(world, rays=720)
    az = np.asarray(r.meta("r", "lidar")["azimuths"])
    j = int(np.argmin(np.abs(az - math.pi / 2)))
    assert reading["ranges"][0, j] == pytest.approx(2.0 - 0.25, abs=1e-5)
    pts = scan_points(reading["ranges"], az, np.zeros(1), reading["pose"])
    # every return lies on the post's surface
    np.testing.assert_allclose(np.hypot(pts[:, 0], pts[:, 1] - 2.0), 0.25, atol=1e-5)


def test_rays_match_mujocos_single_ray_cast() -> None:
    bodies = [wall("w", 4.0), post("p1", 1.5, 1.0, 0.3), post("p2", -2.0, -0.5, 0.2)]
    world = world_of([omni_placement("r", yaw=0.4)], bodies)
    r, reading = _scan(world, rays=90, fov_deg=270, layers=3, vertical_fov_deg=20)
    sensor = r.sensor("r", "lidar")
    R, p = sensor.frame()
    dirs = sensor.directions() @ R.T
    base = world.body("r/base").id
    ref = []
    for v in dirs:
        d = mujoco.mj_ray(world.model, world.data, p, v, None, 1, base, np.zeros(1, np.int32))
        ref.append(np.inf if d < 0 or d > 30.0 else d)
    np.testing.assert_allclose(reading["ranges"].ravel(), np.array(ref), rtol=2e-6)


def test_the_robot_does_not_see_itself_but_sees_another_robot() -> None:
    world = world_of([omni_placement("r")], ground=None)
    # at the wheels' height the rays leave the base through its wheels
    wheel_z = world.body("r/wheel1_link").position[2] - world.body("r/base").position[2]
    r = rig(world, "r", {"type": "lidar", "position": [0, 0, wheel_z], "rays": 720})
    r.step(1)
    assert np.isinf(r.latest("r", "lidar")["ranges"]).all()
    # the same cast without the passes past the robot's own bodies hits its wheels
    s = r.sensor("r", "lidar")
    R, p = s.frame()
    gid, dist = np.zeros(720, np.int32), np.zeros(720)
    vec = (s.directions() @ R.T).ravel()
    mujoco.mj_multiRay(world.model, world.data, p, vec, None, 1, s.body, gid, dist, None, 720, 30)
    assert (dist > 0).sum() > 10

    world = world_of([omni_placement("r"), omni_placement("other", x=2.0)], ground=None)
    r = rig(world, "r", {"type": "lidar", "position": [0, 0, wheel_z], "rays": 720})
    r.step(1)
    ranges = r.latest("r", "lidar")["ranges"][0]
    radius = 0.25  # omni3's base cylinder
    j = 360  # azimuth 0: straight at the other robot's centre
    assert np.isfinite(ranges).sum() > 10
    assert ranges[j] == pytest.approx(2.0 - radius, abs=0.05)


def test_lower_layers_hit_the_ground_where_geometry_says() -> None:
    world = world_of([omni_placement("r")])
    r, reading = _scan(world, rays=8, layers=5, vertical_fov_deg=40)
    el = np.asarray(r.meta("r", "lidar")["elevations"])
    z = reading["pose"][2]
    for i, e in enumerate(el):
        layer = reading["ranges"][i]
        if e < 0:
            np.testing.assert_allclose(layer, z / math.sin(-e), rtol=1e-5)
        else:
            assert np.isinf(layer).all()


def test_noise_is_seeded_and_dropouts_have_their_rate() -> None:
    noise = {"range_std": 0.02, "angle_std_deg": 0.2, "dropout": 0.1}

    def scans(seed: int) -> np.ndarray:
        world = world_of([omni_placement("r")], [wall("w", 3.0, half_y=50)], seed=seed)
        r = rig(world, "r", {"type": "lidar", "position": [0, 0, H], "rays": 2000,
                             "fov_deg": 120, "noise": noise})  # fmt: skip
        r.step(300)  # 1.2 s at 4 ms... 0.6 s at the default 2 ms: several scans
        return r.latest("r", "lidar")["ranges"][0].copy()

    a, b, c = scans(1), scans(1), scans(2)
    np.testing.assert_array_equal(a, b)  # NaN at the same places, same values
    assert not np.array_equal(a, c, equal_nan=True)
    assert 0.07 < np.isnan(a).mean() < 0.13
    world = world_of([omni_placement("r")], [wall("w", 3.0, half_y=50)])
    clean = rig(world, "r", {"type": "lidar", "position": [0, 0, H], "rays": 2000, "fov_deg": 120})
    clean.step(300)
    err = a - clean.latest("r", "lidar")["ranges"][0]
    err = err[np.isfinite(err)]
    # range noise 2 cm plus the angle noise's share (a 0.2 deg turn moves a hit on the
    # wall by up to 3 m x tan(60 deg) x 0.0035 rad off-axis: a few mm to cm)
    assert 0.015 < float(np.std(err)) < 0.05
    assert abs(float(np.mean(err))) < 0.005


def test_the_scan_is_taken_at_its_rate() -> None:
    world = world_of([omni_placement("r")])
    times = []
    r = rig(world, "r", {"type": "lidar", "rate": 30.0})
    r.listen(lambda reading: times.append(reading.t))
    r.step(round(1.0 / world.timestep) + 1)  # the scan of t = 1 s is read a step later
    assert len(times) == 31  # t = 0 and 30 more in 1 s
    ideal = np.arange(31) / 30.0  # each reading within half a physics step of its time
    np.testing.assert_allclose(times, ideal, rtol=0, atol=world.timestep / 2 + 1e-12)


@pytest.mark.parametrize("with_imu", [True, False])
def test_lidar_and_imu_rows_while_stepping_are_the_listened_readings(tmp_path, with_imu) -> None:  # type: ignore[no-untyped-def]
    """A lidar with range noise and dropouts (and a noisy IMU): without listeners the
    rig's compiled stepping casts the scans and writes their rows itself (the noise
    drawn 16 scans at a time, more than one block of rows); with a listener every
    reading goes the general way. Both give the same readings, bit for bit."""
    from robotsim.recording import Recorder, RunStore

    lid = {"type": "lidar", "position": [0, 0, H], "rays": 90, "rate": 60,
           "noise": {"range_std": 0.01, "dropout": 0.05}}  # fmt: skip
    imu = {"type": "imu", "rate": 200, "noise": {"accel_std": 0.05, "gyro_std": 0.01}}
    specs = (lid, imu) if with_imu else (lid,)

    def world():  # type: ignore[no-untyped-def]
        return world_of([omni_placement("r")], [wall("w", 3.0)], seed=4)

    listened = rig(world(), "r", *specs)
    seen: dict[str, list] = {"lidar": [], "imu": []}
    listened.listen(
        lambda x: seen[x.sensor].append((x.t, {k: v.copy() for k, v in x.data.items()}))
    )
    for _ in range(40):
        listened.step(17)  # steps that do not fall on the readings' periods
    with Recorder(tmp_path) as rec:
        rec.start_run("mixed")
        quiet = rig(world(), "r", *specs, recorder=rec)
        for _ in range(40):
            quiet.step(17)
    quiet.close()
    assert quiet.compiled_calls > 0 == listened.compiled_calls  # both paths were taken
    assert quiet.samples == listened.samples == len(seen["lidar"]) + len(seen["imu"])
    assert quiet.compiled_samples > len(seen["imu"])  # scans read in the compiled stepping
    assert len(seen["lidar"]) > quiet._rows[0]  # more scans than a block holds
    names = (("lidar", "ranges"), ("imu", "accel")) if with_imu else (("lidar", "ranges"),)
    with RunStore(tmp_path) as store:
        for name, field in names:
            s = store.sensor(1, "r", name)
            assert len(s.t) == len(seen[name]) > 10
            np.testing.assert_array_equal(s.t, [t for t, _ in seen[name]])
            np.testing.assert_array_equal(s[field], [d[field] for _, d in seen[name]])
    ranges = np.asarray([d["ranges"] for _, d in seen["lidar"]])
    assert np.isnan(ranges).any() and np.isfinite(ranges).any()  # dropouts and returns
    np.testing.assert_array_equal(quiet.world.data.qpos, listened.world.data.qpos)
