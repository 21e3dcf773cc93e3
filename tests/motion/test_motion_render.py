"""The side-view strip frames the whole robot, whatever link its root is."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from robotsim.motion.playback import play
from robotsim.motion.render import SIDE_VIEW_FOVY_DEG, side_view_framing
from robotsim.motion.report import load_for_playback
from robotsim.motion.timeline import compile_program
from tests.paths import FIXTURES

HUMANOID_XML = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"

PROGRAM = """format: robotsim-program/1
name: squat
robot: {robot}
units: deg
motions:
- name: squat
  interpolation: linear
  keyframes:
  - {{name: down, targets: {{hip_y_right: -30, knee_right: -50, hip_y_left: -30,
      knee_left: -50}}, speed: 4}}
"""


def test_side_view_frames_a_robot_whose_root_is_its_torso(tmp_path: Path) -> None:
    """MuJoCo's humanoid has its root at the torso: the camera aimed at the root from
    0.9 m cut it off at the hips. Every link origin of every panel now lies within 70%
    of the picture's half height around the camera's target."""
    f = tmp_path / "squat.yaml"
    f.write_text(PROGRAM.format(robot=HUMANOID_XML))
    program, model, profile = load_for_playback(str(f), None)
    res = play(model, compile_program(program, model, str(f)), profile.soles)
    ticks = np.linspace(0, res.ticks, 4).round().astype(int)
    targets, distance = side_view_framing(res, ticks)
    half_height = distance * np.tan(np.radians(SIDE_VIEW_FOVY_DEG) / 2)
    P = res.T_world_root[ticks, None] @ model.fk_all(res.samples.q[ticks])
    z = P[..., 2, 3]
    assert z.max() - z.min() > 1.0  # a 1.3 m robot, the feet on the floor
    assert np.all(np.abs(z - targets[:, 2:3]) <= 0.7 * half_height + 1e-9)
    # the old view (aimed at the root, 0.9 m away) did not reach down to the feet
    root_z = res.T_world_root[ticks, 2, 3]
    old_half_height = 0.9 * np.tan(np.radians(SIDE_VIEW_FOVY_DEG) / 2)
    assert np.all(root_z - z.min(axis=1) > old_half_height)


def test_a_renderer_made_in_one_live_thread_renders_and_closes_in_others() -> None:
    """The studio renders thumbnails from whichever callback thread asks: a renderer's
    GL context is not left current in the thread that used it (with EGL, another live
    thread then failed with EGL_BAD_ACCESS)."""
    import threading

    from robotsim import load_robot
    from robotsim.motion.render import PoseRenderer

    model = load_robot("puma560")
    made, leave = threading.Event(), threading.Event()
    box: dict[str, object] = {}

    def owner() -> None:  # makes and uses the renderer, then stays alive
        box["r"] = PoseRenderer(model, 48, 48)
        box["a"] = box["r"].render(model.zero(), np.eye(4))  # type: ignore[attr-defined]
        made.set()
        leave.wait(30)

    th = threading.Thread(target=owner)
    th.start()
    try:
        assert made.wait(60)
        r = box["r"]
        assert isinstance(r, PoseRenderer)
        if not r.backend.startswith("mujoco"):
            return  # no GL here: the matplotlib fallback has no context to share
        img = r.render(model.zero(), np.eye(4))
        assert img.shape == (48, 48, 3) and np.array_equal(img, box["a"])
        r.close()
    finally:
        leave.set()
        th.join(30)
