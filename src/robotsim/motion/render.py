"""Offscreen pictures of poses: keyframe thumbnails and side-view strips of a playback.

Rendering uses MuJoCo's offscreen renderer on the model exported with
:func:`robotsim.model.mjcf_export.to_mjspec` plus a floor and a light (shadows off),
through EGL (``MUJOCO_GL=egl`` unless the caller chose another backend; the GL thread
rule in :mod:`robotsim.physics.gl`). When
no GL context can be made, pictures fall back to a matplotlib side-view stick drawing
of the same pose, so a motion made from the command line always has pictures.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.model.robot import RobotModel
from robotsim.motion.playback import PlaybackResult
from robotsim.motion.profile import SoleSpec
from robotsim.motion.schema import Program
from robotsim.motion.support import initial_root
from robotsim.motion.timeline import compile_program
from robotsim.physics.gl import release_gl as _release_gl
from robotsim.spatial import R_to_quat

__all__ = ["PoseRenderer", "render_pose_png", "render_thumbnails", "side_view_strip"]


class PoseRenderer:
    """Render poses ``(q, T_world_root)`` of ``model`` to RGB arrays ``(H, W, 3)`` uint8.

    ``view``: ``"front3q"`` (a three-quarter front view, thumbnails) or ``"side"``
    (looking along +y, the robot walking to the right).
    """

    def __init__(self, model: RobotModel, width: int = 160, height: int = 160) -> None:
        self.model = model
        self.width, self.height = int(width), int(height)
        self._r: Any = None
        self._lock = threading.Lock()  # one thread at a time holds the GL context
        self.backend = "mujoco"
        try:
            self._build()
        except Exception as exc:  # no GL context (headless without EGL/OSMesa)
            self.backend = f"matplotlib ({type(exc).__name__}: {exc})"
        else:
            _release_gl(self._r)

    def _build(self) -> None:
        import mujoco

        from robotsim.model.mjcf_export import to_mjspec

        spec = to_mjspec(self.model)
        spec.visual.quality.shadowsize = 0
        spec.visual.global_.offwidth = max(self.width, 640)
        spec.visual.global_.offheight = max(self.height, 480)
        spec.visual.headlight.ambient = [0.45, 0.45, 0.45]
        tex = spec.add_texture(
            name="grid",
            type=mujoco.mjtTexture.mjTEXTURE_2D,
            builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER,
            rgb1=[0.82, 0.84, 0.86],
            rgb2=[0.7, 0.72, 0.75],
            width=64,
            height=64,
        )
        del tex
        mat = spec.add_material(name="grid")
        mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "grid"
        mat.texrepeat = [20, 20]
        spec.worldbody.add_geom(
            type=mujoco.mjtGeom.mjGEOM_PLANE,
            size=[5, 5, 0.1],
            material="grid",
            contype=0,
            conaffinity=0,
        )
        spec.worldbody.add_light(pos=[0.5, -0.5, 2.0], dir=[-0.2, 0.2, -1], castshadow=False)
        self.mj = spec.compile()
        self.data = mujoco.MjData(self.mj)
        m = self.mj
        self._qadr = np.array([m.jnt_qposadr[m.joint(n).id] for n in self.model.joint_names])
        self._free = (
            int(m.jnt_qposadr[m.joint("floating_base").id]) if self.model.floating else None
        )
        self._r = mujoco.Renderer(m, self.height, self.width)
        self._mujoco = mujoco

    def render(
        self,
        q: np.ndarray,
        T_world_root: np.ndarray,
        view: str = "front3q",
        target: np.ndarray | None = None,
        distance: float | None = None,
    ) -> np.ndarray:
        """An RGB image ``(H, W, 3)`` uint8 of one pose (any thread; one at a time)."""
        with self._lock:
            if self._r is None:
                return _stick_image(self.model, q, T_world_root, self.width, self.height)
            try:
                return self._render(q, T_world_root, view, target, distance)
            finally:
                _release_gl(self._r)

    def _render(
        self,
        q: np.ndarray,
        T_world_root: np.ndarray,
        view: str,
        target: np.ndarray | None,
        distance: float | None,
    ) -> np.ndarray:
        mujoco = self._mujoco
        d = self.data
        d.qpos[self._qadr] = q
        if self._free is not None:
            d.qpos[self._free : self._free + 3] = T_world_root[:3, 3]
            d.qpos[self._free + 3 : self._free + 7] = R_to_quat(T_world_root[:3, :3])
        mujoco.mj_kinematics(self.mj, d)
        cam = mujoco.MjvCamera()
        pts = d.xpos[1:] if self.mj.nbody > 1 else d.xpos
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        look = (lo + hi) / 2 if target is None else np.asarray(target, dtype=float)
        cam.lookat[:] = look
        cam.distance = distance or max(0.4, 1.6 * float(np.max(hi - lo)) + 0.25)
        cam.azimuth, cam.elevation = (90.0, -8.0) if view == "side" else (150.0, -18.0)
        opt = mujoco.MjvOption()
        opt.geomgroup[:] = [1, 0, 1, 0, 0, 0]  # shapes (0) and visual-only shapes (2)
        self._r.update_scene(d, cam, opt)
        return self._r.render().copy()

    def close(self) -> None:
        with self._lock:
            if self._r is not None:
                self._r.close()
                self._r = None


def _stick_image(model: RobotModel, q: np.ndarray, T: np.ndarray, w: int, h: int) -> np.ndarray:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    P = T @ model.fk_all(q)
    fig = plt.figure(figsize=(w / 50, h / 50), dpi=50)
    ax = fig.add_axes((0, 0, 1, 1))
    tree = model.tree
    for i in range(1, len(P)):
        p = tree.parent[i]
        ax.plot([P[p, 0, 3], P[i, 0, 3]], [P[p, 2, 3], P[i, 2, 3]], "-o", color="0.2", ms=2)
    ax.axhline(0, color="0.5")
    ax.set_aspect("equal")
    ax.axis("off")
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()  # type: ignore[attr-defined]
    plt.close(fig)
    return img


def _save_png(img: np.ndarray, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    plt.imsave(path, img)


def render_pose_png(
    model: RobotModel, q: np.ndarray, path: Path, soles: tuple[SoleSpec, ...] = (), size: int = 160
) -> Path:
    """One thumbnail PNG of configuration ``q`` (standing on its lowest sole when
    ``soles`` are given) — what an editor calls when it captures a keyframe."""
    renderer = PoseRenderer(model, size, size)
    try:
        T0 = initial_root(model, np.asarray(q, float), soles)[0] if soles else np.eye(4)
        _save_png(renderer.render(np.asarray(q, float), T0), Path(path))
    finally:
        renderer.close()
    return Path(path)


def render_thumbnails(
    program: Program,
    model: RobotModel,
    soles: tuple[SoleSpec, ...],
    out_dir: Path,
    relative_to: Path | None = None,
    size: int = 160,
) -> Program:
    """Render one PNG per keyframe into ``out_dir`` (the pose reached at that keyframe,
    standing on its lowest sole) and return the program with ``thumbnail`` paths set
    (relative to ``relative_to``, the motion file's folder, when given)."""
    tl = compile_program(program, model)
    renderer = PoseRenderer(model, size, size)
    seen: set[tuple[str, str]] = set()
    paths: dict[tuple[str, str], str] = {}
    try:
        for k, (motion, _rep, kf_name) in enumerate(tl.labels):
            if (motion, kf_name) in seen:
                continue
            seen.add((motion, kf_name))
            q = tl.knots[k + 1]
            T0 = initial_root(model, q, soles)[0] if soles else np.eye(4)
            path = Path(out_dir) / f"{_safe(program.name)}__{_safe(motion)}__{_safe(kf_name)}.png"
            _save_png(renderer.render(q, T0), path)
            rel = os.path.relpath(path, relative_to) if relative_to is not None else str(path)
            paths[(motion, kf_name)] = rel
    finally:
        renderer.close()
    out = program
    for m in program.motions:
        mm = m
        for kf in m.keyframes:
            if (m.name, kf.name) in paths:
                mm = mm.replace_keyframe(kf.name, thumbnail=paths[(m.name, kf.name)])
        out = out.with_motion(mm)
    return out


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


SIDE_VIEW_FOVY_DEG = 45.0
"""MuJoCo's default free-camera field of view (vertical), which the side views use."""


def side_view_framing(result: PlaybackResult, ticks: np.ndarray) -> tuple[np.ndarray, float]:
    """Where the side-view camera looks at each of ``ticks`` (``(n, 3)`` m: the root's
    x, the walk's mid y, the mid height of the link origins at that tick) and one
    distance (m) for every panel, far enough that the tallest pose's link origins fill
    at most 70% of the picture's height (at least 0.9 m, the small humanoid's view).
    Aiming at the root alone cut the legs off a robot whose root is its torso."""
    span = result.T_world_root[:, :3, 3]
    mid_y = (span[:, 1].min() + span[:, 1].max()) / 2
    P = result.T_world_root[ticks, None] @ result.model.fk_all(result.samples.q[ticks])
    z = P[..., 2, 3]  # (n, links)
    lo, hi = z.min(axis=1), z.max(axis=1)
    targets = np.stack([span[ticks, 0], np.full(len(ticks), mid_y), (lo + hi) / 2], axis=1)
    half_view = np.tan(np.radians(SIDE_VIEW_FOVY_DEG) / 2)
    distance = max(0.9, float(np.max(hi - lo)) / (2 * 0.7 * half_view))
    return targets, distance


def side_view_strip(result: PlaybackResult, path: Path, panels: int = 8, size: int = 200) -> Path:
    """A PNG of ``panels`` side views at evenly spaced ticks, left to right, labelled
    with their time; returns ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    renderer = PoseRenderer(result.model, size, size)
    ticks = np.linspace(0, result.ticks, panels).round().astype(int)
    span = result.T_world_root[:, :3, 3]
    targets, distance = side_view_framing(result, ticks)
    try:
        imgs = [
            renderer.render(
                result.samples.q[i],
                result.T_world_root[i],
                view="side",
                target=target,
                distance=distance,
            )
            for i, target in zip(ticks, targets)
        ]
    finally:
        renderer.close()
    fig, axes = plt.subplots(1, panels, figsize=(panels * 2.0, 2.4), dpi=100)
    for ax, img, i in zip(np.atleast_1d(axes), imgs, ticks):
        ax.imshow(img)
        sup = result.foot_names[result.support[i]] if result.soles else "fixed base"
        ax.set_title(
            f"t={result.samples.t[i]:.1f}s  x={span[i, 0]:.2f}m\nsupport {sup}", fontsize=7
        )
        ax.axis("off")
    fig.suptitle(
        f"{result.model.name}: side view ({result.samples.method}, "
        f"{len(result.switches)} support switches)",
        fontsize=9,
    )
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
