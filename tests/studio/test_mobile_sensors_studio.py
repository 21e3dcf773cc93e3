"""The robots' sensors live in the studio: lidar returns drawn in the 3D view where the
scan saw them, camera images (colour and depth) in the Mobile panel, both following
the newest reading."""

from __future__ import annotations

import numpy as np
import yaml

from robotsim.scenario_yaml import read_scenario_yaml
from robotsim.sensors import scan_points


def test_lidar_points_and_camera_images_follow_the_readings(studio, tmp_path) -> None:
    data = read_scenario_yaml("soccer_lidar")
    data["robots"][0]["sensors"].append(
        {"type": "camera", "position": [0.2, 0, 0.3], "width": 64, "height": 48, "rate": 10}
    )
    path = tmp_path / "lidar_camera.yaml"
    path.write_text(yaml.safe_dump(data))
    studio.open(path)
    try:
        d = studio.driver
        panel = studio.panels["mobile"]
        for _ in range(30):  # 0.5 s
            studio.tick()
        studio.push()
        panel.refresh(force=True)
        rig = d.run.sensors
        scan = rig.latest("omni", "lidar")
        cloud, rays = d.lidar_view._handles[("omni", "lidar")]
        lidar = rig.sensor("omni", "lidar")
        hits = scan_points(scan["ranges"], lidar.az, lidar.el, scan["pose"])
        assert len(hits) > 5
        # the drawn points: the scan's returns (rays without one sit at the sensor)
        drawn = np.asarray(cloud.points, dtype=np.float64)
        finite = np.isfinite(np.asarray(scan["ranges"]).ravel())
        np.testing.assert_allclose(drawn[finite], hits, atol=1e-5)
        np.testing.assert_allclose(
            drawn[~finite], np.broadcast_to(scan["pose"][:3], drawn[~finite].shape), atol=1e-5
        )
        assert np.asarray(rays.points).shape == (360, 2, 3)
        frame = rig.latest("omni", "camera")
        rgb_h, depth_h = panel.cameras._images[("omni", "camera")]
        np.testing.assert_array_equal(rgb_h.image, frame["rgb"])
        assert depth_h.image.shape == (48, 64, 3)
        shown = d.lidar_view.draws
        for _ in range(12):  # 0.2 s: two new scans
            studio.tick()
        assert d.lidar_view.draws > shown
    finally:
        studio.clear()
