"""The camera framing and the panel title, without a browser: every corner of the
scene lands inside the part of the view the control panel leaves free."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from robotsim.studio.app import camera_view
from robotsim.studio.panels.sim import short_title


def _ndc(eye: np.ndarray, target: np.ndarray, p: np.ndarray, fov: float, aspect: float):
    """Normalised device x, y in [-1, 1] of point ``p`` (pinhole camera, z up)."""
    fwd = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    d = p - eye
    depth = d @ fwd
    assert depth > 0, "behind the camera"
    t = np.tan(0.5 * fov)
    return (d @ right) / (depth * t * aspect), (d @ up) / (depth * t)


@pytest.mark.parametrize(
    "bounds",
    [
        [[-10, -7, 0], [10, 7, 0.5]],  # a soccer field: flat and wide
        [[-0.3, -0.3, 0], [0.3, 0.3, 1.2]],  # one arm
        [[-1, -2, 0], [2, 1, 1.5]],  # three arms
    ],
)
def test_the_whole_scene_is_in_view_left_of_the_panel(bounds) -> None:
    b = np.array(bounds, dtype=float)
    fov, aspect, panel = np.deg2rad(75.0), 1.6, 0.3
    eye, target = camera_view(b, fov, aspect, panel)
    for corner in itertools.product(*b.T):
        x, y = _ndc(eye, target, np.array(corner), fov, aspect)
        assert -1 <= x <= 1 - 2 * panel and -1 <= y <= 1, corner


def test_long_titles_keep_the_file_name() -> None:
    long = "robot panda (/home/someone/projects/robots/descriptions/franka/panda_arm.urdf)"
    assert short_title(long) == "robot panda …/panda_arm.urdf)"
    assert short_title("scenario soccer_obstacles (mobile, physics)") == (
        "scenario soccer_obstacles (mobile, physics)"
    )
    assert len(short_title("word " * 60)) == 120
