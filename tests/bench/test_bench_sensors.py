"""``robotsim bench sensors``: its figures come out as numbers from real runs (the speed
itself is the benchmark's to report, never a test's to assert)."""

from __future__ import annotations

import json
import math

import pytest

from robotsim.bench import sensors
from robotsim.cli import main


def test_lidar_and_camera_figures() -> None:
    lidar = sensors._lidar(True)
    assert lidar["lidar_rays_per_s"] > 0 and math.isfinite(lidar["lidar_scan_us"])
    cam = sensors._camera(True)
    assert cam["camera_fps"] > 0 and cam["camera_gl"]
    assert 0.0 < cam["camera_finite_depth_share"] < 1.0  # ground below, sky above


@pytest.mark.slow
def test_bench_sensors_quick_json(capsys) -> None:
    assert main(["bench", "sensors", "--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("lidar_rays_per_s", "sensors_rtf_ratio", "camera_fps", "lidar_vfh_reached",
                "lidar_vfh_collisions", "truth_vfh_reached"):  # fmt: skip
        assert key in out
    assert out["layouts"] == 3 and out["lidar_vfh_reached"] <= 3
    assert 0 < out["sensors_rtf_ratio"] < 2
