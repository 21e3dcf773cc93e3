"""Avoidance from the lidar (``controller.source: lidar``): the shipped soccer_lidar
reaches its goal without touching an obstacle, the same check says NO when the lidar
cannot see the obstacles, and bad source settings are one-line errors."""

from __future__ import annotations

import pytest

from robotsim.errors import InputError
from robotsim.mobile import MobileRun, load_mobile
from robotsim.scenario_yaml import read_scenario_yaml


def _run(data: dict, seed: int | None = None) -> dict:
    sc, robots, obstacles = load_mobile(data, "soccer_lidar.yaml", seed)
    run = MobileRun(sc, robots, obstacles, "soccer_lidar.yaml", seed)
    run.run()
    return run.results()["omni"]


@pytest.mark.slow
@pytest.mark.parametrize("avoidance", ["vfh", "potential"])
def test_the_robot_avoids_what_its_lidar_sees(avoidance: str) -> None:
    data = read_scenario_yaml("soccer_lidar")
    data["robots"][0]["controller"]["avoidance"] = avoidance
    res = _run(data)
    assert res["reached_goal"] and res["collisions"] == 0, res
    assert res["min_obstacle_clearance"] > 0.05  # measured against the true obstacles


@pytest.mark.slow
def test_a_lidar_above_the_obstacles_sees_nothing_and_the_robot_hits_them() -> None:
    data = read_scenario_yaml("soccer_lidar")
    data["duration"] = 12.0
    data["robots"][0]["sensors"][0]["position"] = [0, 0, 0.8]  # the posts are 0.5 m tall
    res = _run(data)
    assert res["collisions"] >= 1, res


def test_source_lidar_needs_a_lidar() -> None:
    data = read_scenario_yaml("soccer_lidar")
    data["robots"][0]["sensors"] = [{"type": "imu"}]
    with pytest.raises(InputError, match=r"robots\[0\].controller.source: 'lidar' needs a lidar"):
        _run(data)
    data["robots"][0]["sensors"] = [{"type": "lidar", "name": "a"}, {"type": "lidar", "name": "b"}]
    with pytest.raises(InputError, match=r"controller.sensor: the robot has 2 lidars \(a, b\)"):
        _run(data)
    data["robots"][0]["controller"]["sensor"] = "c"
    with pytest.raises(InputError, match=r"controller.sensor: unknown lidar 'c'; valid: a, b"):
        _run(data)
