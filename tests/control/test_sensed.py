"""Obstacles from lidar scans: the polar histogram against a brute-force reference, one
point per object for the potential field, the ground dropped, memory outside the field
of view."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robotsim.control.sensed import (
    ScanObstacles,
    nearest_per_object,
    nearest_per_sector,
    scan_points_2d,
)


def test_nearest_per_sector_matches_a_brute_force_search() -> None:
    rng = np.random.default_rng(3)
    pts = rng.uniform(-5, 5, (400, 2))
    centre = np.array([0.3, -0.2])
    got = nearest_per_sector(pts, centre, sectors=36)
    want = {}
    for p in pts:
        rel = p - centre
        s = int((math.atan2(rel[1], rel[0]) + math.pi) // (2 * math.pi / 36)) % 36
        d = math.hypot(*rel)
        if s not in want or d < want[s][0]:
            want[s] = (d, tuple(p))
    assert sorted(map(tuple, got[:, :2])) == sorted(v[1] for v in want.values())
    assert np.all(got[:, 2] == 0)


def test_a_wall_is_one_object_at_its_nearest_point() -> None:
    ys = np.linspace(-2, 2, 81)
    wall = np.column_stack([np.full_like(ys, 3.0), ys])
    post = np.array([[-1.0, 2.0], [-1.05, 2.05], [-0.95, 2.05]])
    obs = nearest_per_object(np.vstack([wall, post]), [0.0, 0.5], join=0.3)
    assert len(obs) == 2
    np.testing.assert_allclose(sorted(map(tuple, obs[:, :2])), [(-1.0, 2.0), (3.0, 0.5)])


def test_scan_points_drop_the_ground_and_land_where_the_pose_says() -> None:
    az = np.array([0.0, math.pi / 2])
    el = np.array([-0.5, 0.0])
    ranges = np.array([[0.2 / math.sin(0.5), np.inf], [2.0, 1.0]])  # layer 0 ray 0: ground
    pose = [1.0, 2.0, 0.2, math.cos(0.25), 0, 0, math.sin(0.25)]  # yaw 0.5 rad
    pts = scan_points_2d(ranges, az, el, pose)
    c, s = math.cos(0.5), math.sin(0.5)
    np.testing.assert_allclose(pts, [[1 + 2 * c, 2 + 2 * s], [1 - s, 2 + c]], atol=1e-12)


def test_memory_keeps_what_left_the_field_of_view_for_its_time() -> None:
    az = np.linspace(-math.pi / 4, math.pi / 4, 31)  # a 90 deg lidar
    el = np.zeros(1)
    m = ScanObstacles(az, el, memory=1.0)
    ahead = np.full((1, 31), np.inf)
    ahead[0, 15] = 2.0  # something 2 m straight ahead
    yaw0 = [0.0, 0.0, 0.2, 1.0, 0.0, 0.0, 0.0]
    assert len(m.update(0.0, ahead, yaw0)) == 1
    turned = [0.0, 0.0, 0.2, math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4)]
    empty = np.full((1, 31), np.inf)
    kept = m.update(0.5, empty, turned)  # turned 90 deg left: the point is behind the fov
    np.testing.assert_allclose(kept[:, :2], [[2.0, 0.0]])
    assert len(m.update(1.6, empty, turned)) == 0  # forgotten after a second
    m2 = ScanObstacles(az, el, memory=1.0)
    m2.update(0.0, ahead, yaw0)
    assert len(m2.update(0.1, empty, yaw0)) == 0  # still in view and gone: not there


@pytest.mark.parametrize("sectors", [8, 72])
def test_no_returns_no_obstacles(sectors: int) -> None:
    assert nearest_per_sector(np.zeros((0, 2)), [0, 0], sectors).shape == (0, 3)
    assert nearest_per_object(np.zeros((0, 2)), [0, 0]).shape == (0, 3)
