"""The camera: depth against geometry worked out by hand (a sphere ahead, the floor
below the optical axis), colours where the objects are, frames asked for from other
threads (EGL's one-current-context rule), RGB or depth alone."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from robotsim.model.geometry import Sphere
from robotsim.physics import Body
from robotsim.spatial import make_T, quat_to_R
from tests.sensors.worlds import omni_placement, rig, world_of

W, H, FOV = 160, 120, 60.0
CAM_Z = 0.4  # camera height above the base origin


def _world():
    ball = Body("ball", Sphere(0.5), make_T(None, [4.0, 0.0, 1.0]), rgba=(1.0, 0.0, 0.0, 1.0))
    world = world_of([omni_placement("r")], [ball])
    r = rig(world, "r", {"type": "camera", "position": [0, 0, CAM_Z], "width": W,
                         "height": H, "fov_deg": FOV, "range": [0.05, 30.0]})  # fmt: skip
    return world, r


def test_depth_matches_the_geometry_and_colour_the_objects() -> None:
    _, r = _world()
    try:
        r.step(1)
        frame = r.latest("r", "camera")
        rgb, depth, pose = frame["rgb"], frame["depth"], frame["pose"]
        assert rgb.shape == (H, W, 3) and depth.shape == (H, W) and depth.dtype == np.float32
        cx, cz = pose[0], pose[2]
        f = (H / 2) / math.tan(math.radians(FOV) / 2)
        # the pixel looking at the ball's centre: its depth is the distance to its surface
        row = round(H / 2 - 0.5 - f * (1.0 - cz) / (4.0 - cx))
        d_centre = math.dist((cx, 0, cz), (4.0, 0, 1.0))
        ray_depth_to_surface = (d_centre - 0.5) * (4.0 - cx) / d_centre  # along the axis
        assert depth[row, W // 2] == pytest.approx(ray_depth_to_surface, abs=0.02)
        red = rgb[row, W // 2].astype(int)
        assert red[0] > 2 * max(red[1], red[2], 10)
        # the floor below the horizon: each pixel's ray (through its centre, turned by
        # the camera's pose as it stands) meets z = 0 at the depth the camera reads
        R = quat_to_R(pose[3:])
        for v in (70, 90, 119):
            for u in (10, W // 2, 150):
                ray = R @ np.array([f, (W / 2 - u - 0.5), (H / 2 - v - 0.5)])  # x fwd, z up
                s = -cz / ray[2]
                assert depth[v, u] == pytest.approx(s * f, rel=1e-3), (v, u)
        # the sky above the horizon: nothing within range
        assert np.isinf(depth[0, 0])
    finally:
        r.close()


def test_frames_can_be_rendered_from_any_thread() -> None:
    _, r = _world()
    try:
        out: list[np.ndarray] = []
        errors: list[BaseException] = []

        def other() -> None:
            try:
                out.append(r.sample_now()[0]["depth"].copy())
            except BaseException as exc:  # reported below
                errors.append(exc)

        for _ in range(2):
            t = threading.Thread(target=other)
            t.start()
            t.join()
            out.append(r.sample_now()[0]["depth"].copy())
        assert not errors, errors
        assert len(out) == 4
        for d in out[1:]:
            np.testing.assert_array_equal(d, out[0])
    finally:
        r.close()


def test_a_depth_only_camera_gives_no_rgb() -> None:
    world = world_of([omni_placement("r")])
    r = rig(world, "r", {"type": "camera", "rgb": False, "width": 32, "height": 24})
    try:
        r.step(1)
        assert set(r.latest("r", "camera").data) == {"depth", "pose"}
    finally:
        r.close()
