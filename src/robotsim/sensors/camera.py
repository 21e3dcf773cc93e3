"""Cameras: RGB and depth images rendered offscreen by MuJoCo's renderer (EGL).

One :class:`WorldRenderer` per world draws for all of its cameras: one GL context and
one MuJoCo render context sized for the largest camera, a lock, and the GL thread rule
of :mod:`robotsim.physics.gl` (the context is released after each frame, so frames may
be asked for from any thread). A frame is one render pass read back twice: colour and
depth (MuJoCo's reversed depth map, turned into metres along the optical axis).

The camera's optical axis is the sensor frame's x, image up its z (so a camera with
``rpy_deg: [0, 0, 0]`` on a base looks forward, level). The GL camera is set directly
from the sensor frame every frame: no camera is compiled into the model.

Shadows, reflections and the skybox are off (software rendering: they cost more than
the rest of the frame), and so is multisampling: with it, the depth read back is that of
one sample, a third of a pixel off the pixel's centre (a floor 4 m ahead read 3.5 %
short), and each pixel costs four times as much; without it depth is exact at every
pixel centre and colour edges are not smoothed. Geoms of every group are drawn (MuJoCo's
viewer shows groups 0-2 only; robots' collision shapes are in group 3).

Reading fields: ``rgb`` ``(height, width, 3)`` uint8 (row 0 at the top), ``depth``
``(height, width)`` float32 m along the optical axis (``inf`` where nothing lies within
the camera's ``range``), ``pose`` ``(7,)`` the sensor frame in the world.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from robotsim.errors import PhysicsError
from robotsim.physics.gl import release_gl
from robotsim.sensors.mount import Mount
from robotsim.sensors.types import Sensor, pose7

__all__ = ["CameraSensor", "WorldRenderer"]


class WorldRenderer:
    """Offscreen frames of a physics world from any pose (see the module doc).

    Args:
        world: the :class:`robotsim.physics.World`.
        width, height: the largest frame it will draw (pixels).
    """

    def __init__(self, world: Any, width: int, height: int) -> None:
        import mujoco

        self._mj = mujoco
        self.world = world
        self.width, self.height = int(width), int(height)
        self._lock = threading.Lock()
        m = world.model
        m.vis.global_.offwidth = max(int(m.vis.global_.offwidth), self.width)
        m.vis.global_.offheight = max(int(m.vis.global_.offheight), self.height)
        try:
            self._ctx = mujoco.GLContext(self.width, self.height)
            self._ctx.make_current()
        except Exception as exc:
            raise PhysicsError(
                f"camera sensors need an offscreen GL context (MUJOCO_GL=egl, or osmesa): "
                f"{type(exc).__name__}: {exc}"
            ) from None
        samples = int(m.vis.quality.offsamples)
        m.vis.quality.offsamples = 0  # no multisampling: see the module doc
        try:
            self._con = mujoco.MjrContext(m, mujoco.mjtFontScale.mjFONTSCALE_100)
            mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self._con)
            self._con.readDepthMap = mujoco.mjtDepthMap.mjDEPTH_ZEROFAR
        finally:
            m.vis.quality.offsamples = samples
            release_gl(self._ctx)
        self._scn = mujoco.MjvScene(m, maxgeom=max(1000, 2 * m.ngeom + 100))
        for flag in ("mjRND_SHADOW", "mjRND_REFLECTION", "mjRND_SKYBOX"):
            self._scn.flags[getattr(mujoco.mjtRndFlag, flag)] = 0
        self._opt = mujoco.MjvOption()
        self._opt.geomgroup[:] = 1
        self._pert = mujoco.MjvPerturb()
        self._cam = mujoco.MjvCamera()
        self._cat = int(mujoco.mjtCatBit.mjCAT_STATIC | mujoco.mjtCatBit.mjCAT_DYNAMIC)
        self._buffers: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def render(
        self,
        R: np.ndarray,
        p: np.ndarray,
        width: int,
        height: int,
        fovy_deg: float,
        near: float,
        far: float,
        data: Any = None,
        depth: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """One frame from the camera at rotation ``R`` ``(3, 3)`` (optical axis its first
        column, image up its third) and position ``p`` ``(3,)`` m: RGB ``(height, width,
        3)`` uint8 and depth ``(height, width)`` float32 m (``inf`` beyond ``far``), of
        the scene as ``data`` holds it (MuJoCo data; default the world's).
        ``depth=False`` reads the colours only (a video frame: reading the depth buffer
        costs several times the colours) and returns an empty depth ``(0, 0)``."""
        mj = self._mj
        if self._ctx is None:
            raise PhysicsError("the camera renderer is closed")
        if width > self.width or height > self.height:
            raise PhysicsError(
                f"a {width} x {height} frame is larger than this renderer's "
                f"{self.width} x {self.height}"
            )
        key = (height, width)
        bufs = self._buffers.get(key)
        if bufs is None:
            bufs = self._buffers[key] = (
                np.zeros((height, width, 3), np.uint8),
                np.zeros((height, width), np.float32),
            )
        rgb, zbuf = bufs
        w = self.world
        top = near * math.tan(math.radians(fovy_deg) / 2)
        fwd, up = R[:, 0], R[:, 2]
        with self._lock:
            self._ctx.make_current()
            try:
                mj.mjv_updateScene(
                    w.model,
                    w.data if data is None else data,
                    self._opt,
                    self._pert,
                    self._cam,
                    self._cat,
                    self._scn,
                )
                for c in self._scn.camera:
                    c.pos[:] = p
                    c.forward[:] = fwd
                    c.up[:] = up
                    c.frustum_center = 0.0
                    c.frustum_width = 0.0
                    c.frustum_bottom, c.frustum_top = -top, top
                    c.frustum_near, c.frustum_far = near, far
                    c.orthographic = 0
                vp = mj.MjrRect(0, 0, width, height)
                mj.mjr_render(vp, self._scn, self._con)
                mj.mjr_readPixels(rgb, zbuf if depth else None, vp, self._con)
            finally:
                release_gl(self._ctx)
        image = np.flipud(rgb).copy()
        if not depth:
            return image, np.zeros((0, 0), np.float32)
        # reversed depth map: 1 at the near plane, 0 at the far plane; metres along the
        # optical axis = far near / (z (far - near) + near), in float32 (its 24 bits
        # keep a tenth of a millimetre at 10 m)
        z = np.flipud(zbuf)
        out = z * np.float32(far - near)
        out += np.float32(near)
        np.divide(np.float32(far * near), out, out=out)
        out[z <= 0.0] = np.inf
        return image, out

    def close(self) -> None:
        with self._lock:
            if self._ctx is None:
                return
            self._ctx.make_current()
            try:
                self._con.free()
            finally:
                release_gl(self._ctx)
            self._ctx.free()
            self._ctx = None


class CameraSensor(Sensor):
    type = "camera"
    deferred = True

    def __init__(
        self, world: Any, mount: Mount, seed: int, data: Any = None, renderer: Any = None
    ) -> None:
        if renderer is None:
            s = mount.spec
            renderer = WorldRenderer(world, s.width, s.height)
        self.renderer = renderer
        super().__init__(world, mount, seed, data)

    def meta(self) -> dict[str, Any]:
        out = super().meta()
        s = self.mount.spec
        f = (s.height / 2) / math.tan(math.radians(s.fov_deg) / 2)
        out.update(width=s.width, height=s.height, fov_deg=s.fov_deg, near=s.range[0],
                   far=s.range[1], fx=f, fy=f, cx=s.width / 2, cy=s.height / 2)  # fmt: skip
        return out

    def reading_bytes(self) -> int:
        s = self.mount.spec
        return s.width * s.height * (3 * s.rgb + 4 * s.depth) + 56

    def sample(self) -> dict[str, np.ndarray]:
        s = self.mount.spec
        R, p = self.frame()
        rgb, depth = self.renderer.render(
            R, p, s.width, s.height, s.fov_deg, s.range[0], s.range[1], self.data, s.depth
        )
        out: dict[str, np.ndarray] = {}
        if s.rgb:
            out["rgb"] = rgb
        if s.depth:
            out["depth"] = depth
        out["pose"] = pose7(R, p)
        return out
