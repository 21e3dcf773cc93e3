"""Sensors on the robots of a mobile scenario: mounted from the file (and the robot's
profile file), sampled while the run steps without changing it, recorded at their rates,
the same readings for the same seed, errors naming the file and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from robotsim.errors import InputError
from robotsim.mobile import MobileRun, load_mobile
from robotsim.recording import Recorder, open_run
from robotsim.scenario_yaml import read_scenario_yaml

SENSORS = [
    {"type": "lidar", "position": [0, 0, 0.2], "rate": 10},
    {"type": "imu", "rate": 100},
    {"type": "odometry"},
]


def _data(sensors: list | None = None, **extra: object) -> dict:
    d = read_scenario_yaml("soccer_obstacles")
    d["duration"] = 2.0
    if sensors is not None:
        d["robots"][0]["sensors"] = sensors
    d.update(extra)
    return d


def _run(data: dict, recorder: object = None, seed: int | None = None) -> MobileRun:
    sc, robots, obstacles = load_mobile(data, "soccer.yaml", seed)
    run = MobileRun(sc, robots, obstacles, "soccer.yaml", seed, recorder)
    if recorder is not None:
        recorder.start_run("soccer")  # type: ignore[attr-defined]
    run.run()
    return run


def test_sensors_observe_without_changing_the_run() -> None:
    plain = _run(_data())
    sensed = _run(_data(SENSORS))
    assert sensed.sensors is not None and plain.sensors is None
    np.testing.assert_array_equal(sensed.samples[0], plain.samples[0])
    np.testing.assert_array_equal(sensed.world.data.qpos, plain.world.data.qpos)


def test_readings_are_recorded_at_their_rates_and_repeat_with_the_seed(tmp_path: Path) -> None:
    runs = []
    for k, seed in enumerate((4, 4, 5)):
        db = tmp_path / f"r{k}.sqlite"
        with Recorder(db) as rec:
            _run(_data(SENSORS, obstacles={"layout": "random"}), rec, seed)
        runs.append(open_run(db))
    try:
        lidar = [r.sensor("omni", "lidar") for r in runs]
        imu = runs[0].sensor("omni", "imu")
        # 2 s at 10 and 100 Hz from t = 0; the readings of t = 2 s would come a step later
        assert len(lidar[0]) == 20 and len(imu) == 200
        np.testing.assert_allclose(lidar[0].t, np.arange(20) * 0.1, atol=1e-9)
        assert lidar[0]["ranges"].shape == (20, 1, 360)
        np.testing.assert_array_equal(lidar[0]["ranges"], lidar[1]["ranges"])
        assert not np.array_equal(lidar[0]["ranges"], lidar[2]["ranges"])  # other layout
        # the IMU of a base driving on flat ground: gravity up, small horizontal accelerations
        assert np.median(imu["accel"][:, 2]) == pytest.approx(9.81, abs=0.05)
        assert {i.name for i in runs[0].sensors()} == {"lidar", "imu", "odometry"}
    finally:
        for r in runs:
            r.store.close()


def test_bad_sensors_are_one_line_errors_naming_the_file_and_field() -> None:
    cases = [
        (
            [{"type": "lidar", "link": "mast"}],
            "soccer.yaml: robots[0].sensors[0].link: unknown link",
        ),
        ([{"type": "imu", "rate": 400}], "soccer.yaml: robots[0].sensors[0].rate: 400 Hz is above"),
        ([{"type": "camera", "width": 2000, "height": 2000}], "robots[0].sensors[0].width: a 2000"),
    ]
    for sensors, msg in cases:
        with pytest.raises(InputError) as err:
            _run(_data(sensors))
        assert msg in str(err.value) and "\n" not in str(err.value)


def test_a_profile_files_sensors_are_mounted_and_a_scenario_replaces_them(tmp_path: Path) -> None:
    lib = Path(__file__).resolve().parents[2] / "src/robotsim/model/library/omni3.yaml"
    shutil.copy(lib, tmp_path / "omni3.yaml")
    (tmp_path / "omni3.profile.yaml").write_text(
        "format: robotsim-profile/1\n"
        "sensors:\n"
        "  - {type: lidar, position: [0, 0, 0.2], rays: 90}\n"
        "  - {type: imu, rate: 50}\n"
    )
    data = _data([{"type": "imu", "rate": 25}])
    data["robots"][0]["model"] = str(tmp_path / "omni3.yaml")
    sc, robots, obstacles = load_mobile(data, str(tmp_path / "s.yaml"))
    run = MobileRun(sc, robots, obstacles, str(tmp_path / "s.yaml"))
    assert run.sensors is not None
    assert sorted(run.sensors.names()) == [("omni", "imu"), ("omni", "lidar")]
    assert run.sensors.sensor("omni", "imu").mount.rate == 25  # the scenario's
    assert run.sensors.sensor("omni", "lidar").mount.spec.rays == 90  # the profile's
    (tmp_path / "omni3.profile.yaml").write_text(
        "format: robotsim-profile/1\nsensors:\n  - {type: lidar, link: nope}\n"
    )
    with pytest.raises(InputError, match=r"omni3.profile.yaml: sensors\[0\].link: unknown link"):
        MobileRun(sc, robots, obstacles, str(tmp_path / "s.yaml"))


def test_the_disk_check_counts_the_sensor_readings(tmp_path: Path) -> None:
    import shutil

    from robotsim.mobile.sizing import check_run_disk

    sc, robots, obstacles = load_mobile(_data([*SENSORS, {"type": "camera", "rate": 30}]), "s.yaml")
    run = MobileRun(sc, robots, obstacles, "s.yaml")
    per_s = run.sensors.bytes_per_second()
    # 360 float32 ranges at 10 Hz, 10 float64 at 100 Hz, 6 at 50 Hz, 320 x 240 x 7 at 30 Hz
    assert per_s == pytest.approx(
        10 * (4 * 360 + 56) + 100 * 80 + 50 * 48 + 30 * (320 * 240 * 7 + 56)
    )
    with Recorder(tmp_path) as rec:
        free = shutil.disk_usage(tmp_path).free
        check_run_disk(10.0, 0.02, 1, 10, rec, per_s)  # 70 MB: fits
        with pytest.raises(InputError, match=r"of sensor readings into .*lower sensor rates"):
            check_run_disk(10.0, 0.02, 1, 10, rec, 2 * free / 10.0)
    run.sensors.close()
