"""Keyframe thumbnails: the browser's own render of the 3D view, aimed at one robot.

With a page connected, the studio asks that page to render the scene from a camera
looking at the robot (viser's ``ClientHandle.get_render``), so the thumbnail is exactly
what the studio shows. With no page (scripts, tests without a browser) it falls back to
MuJoCo's offscreen renderer (:class:`robotsim.motion.render.PoseRenderer`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from robotsim.spatial import R_to_quat

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio
    from robotsim.studio.robot_view import RobotView

__all__ = ["camera_looking_at", "capture", "load_png", "save_png"]

FOV = 0.6  # rad, vertical


def camera_looking_at(eye: np.ndarray, target: np.ndarray) -> np.ndarray:
    """wxyz ``(4,)`` of a camera at ``eye`` looking at ``target`` with world z up, in
    viser's camera convention (x right, y down, z forward)."""
    forward = np.asarray(target, float) - np.asarray(eye, float)
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    if np.linalg.norm(right) < 1e-9:
        right = np.array([1.0, 0.0, 0.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    return R_to_quat(np.stack([right, down, forward], axis=1))


def capture(
    studio: Studio, view: RobotView, size: int = 160, timeout: float = 10.0
) -> tuple[np.ndarray, str]:
    """An RGB thumbnail ``(size, size, 3)`` uint8 of ``view``'s robot and where it came
    from: ``"browser"`` (a page rendered it within ``timeout`` s) or ``"offscreen"``."""
    lo, hi = view.world_bounds()
    centre = 0.5 * (lo + hi)
    radius = max(0.15, 0.5 * float(np.linalg.norm(hi - lo)))
    eye = centre + radius / np.tan(FOV / 2) * np.array([0.8, -0.5, 0.35])
    for client in studio.clients():
        try:
            img = client.get_render(
                size, size, wxyz=camera_looking_at(eye, centre), position=eye, fov=FOV,
                transport_format="jpeg", timeout=timeout,
            )  # fmt: skip
            return np.ascontiguousarray(img[..., :3], dtype=np.uint8), "browser"
        except Exception:  # page went away or timed out: try the next, then offscreen
            continue
    from robotsim.motion.render import PoseRenderer

    renderer = PoseRenderer(view.model, size, size)
    try:
        return renderer.render(view.q, view.state.T_world_root), "offscreen"
    finally:
        renderer.close()


def save_png(img: np.ndarray, path: Path) -> Path:
    """Write an RGB image ``(H, W, 3)`` uint8 as PNG; returns ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    plt.imsave(path, np.asarray(img, dtype=np.uint8))
    return path


def load_png(path: Path) -> np.ndarray | None:
    """An RGB image ``(H, W, 3)`` uint8 from a PNG, None if it cannot be read."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        img = plt.imread(path)
    except (OSError, ValueError, SyntaxError):
        return None
    if img.dtype != np.uint8:
        img = (np.clip(img, 0.0, 1.0) * 255 + 0.5).astype(np.uint8)
    return img[..., :3] if img.ndim == 3 else np.repeat(img[..., None], 3, axis=2)
