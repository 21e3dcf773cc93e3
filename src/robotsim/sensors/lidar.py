"""The lidar: rays cast in the MuJoCo scene.

A scan casts every ray of every layer from the sensor's origin at once, with the
compiled caster of :mod:`robotsim.sensors._raycast` (MuJoCo's own ray geometry, tested
against ``mujoco.mju_rayGeom`` and ``mj_ray``; about ten times faster than
``mujoco.mj_multiRay``, which spends most of a 360-ray scan on per-ray bookkeeping).
Rays see what MuJoCo's ray casting sees: every geom with a visible colour or material
(obstacles, walls, objects, the ground, other robots), in any geom group. Mesh, height
field and SDF geoms are cast with MuJoCo's ``mj_rayMesh``/``mj_rayHfield`` for the rays
that can reach them. The robot's own geoms are left out (every body of the robot, not
only the one the lidar sits on).

Reading fields: ``ranges`` ``(layers, rays)`` float32 m along each ray: ``inf`` when
nothing is hit within the maximum range, ``NaN`` for a dropout or a hit closer than the
minimum range; ``pose`` ``(7,)`` the sensor frame in the world (``x, y, z, qw, qx, qy,
qz``) when the scan was taken. Azimuths and elevations are in :meth:`Lidar.meta`
(rad): ray ``j`` of layer ``i`` points along ``(cos el_i cos az_j, cos el_i sin az_j,
sin el_i)`` in the sensor frame.

Noise: each ray's direction is turned by Gaussian angles (``angle_std_deg``, azimuth and
elevation) before casting, each return gets Gaussian range noise (``range_std``), and a
return is dropped with probability ``dropout``. The numbers are drawn from the sensor's
generator in that order, per scan: azimuth and elevation turns (``n`` each), range noise
(``n``: one per ray, used where it returns) and the dropout draws (``n``).

A scan is written as one row (:attr:`Lidar.row_dtype`: ``t``, ``ranges``, ``pose``)
into the rig's block of rows (:mod:`robotsim.sensors.rig`), by two compiled calls bound
to the MuJoCo data's arrays (the cast; the ranges, noise and pose into the row): no
arrays, dictionary or reading made per scan, and the rig hands the rows to the recorder
a few times a second, as an IMU's.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from robotsim.sensors._raycast import PRIMITIVES, cast_scan, finish_ranges, finish_row
from robotsim.sensors.mount import Mount, lidar_directions
from robotsim.sensors.types import Sensor

__all__ = ["Lidar", "scan_points", "visible_geoms"]

_MESH, _HFIELD = 7, 1


def visible_geoms(model: Any, exclude_bodies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Geoms a ray can hit, as MuJoCo's ray casting decides (a visible colour, or a
    visible material), less those of the bodies in ``exclude_bodies`` ``(nbody,)``
    bool: primitive geoms ``(a,)`` and the others (meshes, height fields) ``(b,)``."""
    gtype = np.asarray(model.geom_type)
    matid = np.asarray(model.geom_matid)
    alpha = np.asarray(model.geom_rgba)[:, 3].copy()
    has_mat = matid >= 0
    if has_mat.any():
        alpha[has_mat] = np.asarray(model.mat_rgba)[matid[has_mat], 3]
    ok = (alpha != 0) & ~exclude_bodies[np.asarray(model.geom_bodyid)]
    prim = ok & np.isin(gtype, PRIMITIVES)
    other = ok & ~prim & np.isin(gtype, (_MESH, _HFIELD))
    return np.flatnonzero(prim).astype(np.int64), np.flatnonzero(other).astype(np.int64)


class Lidar(Sensor):
    type = "lidar"
    deferred = True

    def __init__(self, world: Any, mount: Mount, seed: int, data: Any = None) -> None:
        spec = mount.spec
        self.az, self.el = lidar_directions(spec)
        ce, se = np.cos(self.el)[:, None], np.sin(self.el)[:, None]
        ca, sa = np.cos(self.az)[None, :], np.sin(self.az)[None, :]
        shape = (len(self.el), len(self.az))
        self.shape = shape
        dirs = np.stack([ce * ca, ce * sa, np.broadcast_to(se, shape)], axis=-1)
        self._dirs = np.ascontiguousarray(dirs.reshape(-1, 3))
        self.n = self._dirs.shape[0]
        self.range_min, self.range_max = (float(v) for v in spec.range)
        noise = spec.noise
        self._range_std = float(noise.range_std)
        self._angle_std = float(np.radians(noise.angle_std_deg))
        self._dropout = float(noise.dropout)
        m = world.model
        prefix = f"{mount.robot}/"
        own = np.array([n.startswith(prefix) for n in world.body_names], dtype=bool)
        self._active, self._special = visible_geoms(m, own)
        self._gtype = np.asarray(m.geom_type)
        self._gsize = np.asarray(m.geom_size)
        self._grb = np.asarray(m.geom_rbound)
        self._dist = np.empty(self.n)
        self._geoms = np.empty(self.n, dtype=np.int32)
        self._pose = np.empty(7)
        self._none = np.empty(0)  # no noise
        #: one reading's row (see :mod:`robotsim.sensors.rig`): time, ranges, pose
        self.row_dtype = np.dtype(
            [("t", "<f8"), ("ranges", "<f4", shape), ("pose", "<f8", (7,))], align=True
        )
        self._off_r = int(self.row_dtype.fields["ranges"][1])
        self._off_p = int(self.row_dtype.fields["pose"][1])
        self._bound: Any = None  # the MuJoCo data the bound arrays are of
        import mujoco

        self._mj = mujoco
        super().__init__(world, mount, seed, data)

    def meta(self) -> dict[str, Any]:
        out = super().meta()
        spec = self.mount.spec
        out.update(
            azimuths=self.az.tolist(),
            elevations=self.el.tolist(),
            range_min=self.range_min,
            range_max=self.range_max,
            rays=spec.rays,
            layers=spec.layers,
        )
        return out

    def reading_bytes(self) -> int:
        return 4 * self.n + 56

    def directions(self) -> np.ndarray:
        """Unit ray directions ``(layers * rays, 3)`` in the sensor frame (noise-free)."""
        return self._dirs.copy()

    def _noisy_dirs(self) -> np.ndarray:
        if self._angle_std <= 0:
            return self._dirs
        n = self.n
        rng = self.rng
        az = np.repeat(self.az[None, :], len(self.el), 0).ravel() + rng.normal(
            0.0, self._angle_std, n
        )
        el = np.repeat(self.el[:, None], len(self.az), 1).ravel() + rng.normal(
            0.0, self._angle_std, n
        )
        ce = np.cos(el)
        return np.ascontiguousarray(np.column_stack([ce * np.cos(az), ce * np.sin(az), np.sin(el)]))

    def _bind(self, d: Any) -> None:
        """Keep the arrays of the MuJoCo data ``d`` a scan reads, and the compiled
        casts for their types (no per-call type dispatch)."""
        from robotsim.kinematics.kernels import entry_point

        self._bound = d
        self._cast_args = (d.xpos, d.xmat, self.body, self._R_bs, self._p_bs)
        self._geom_args = (self._gtype, self._gsize, d.geom_xpos, d.geom_xmat, self._grb,
                           self._active, self.range_max, self._dist)  # fmt: skip
        args = (*self._cast_args, self._dirs, *self._geom_args, self._geoms, self._pose)
        self._cast = entry_point(cast_scan, tuple(numba.typeof(a) for a in args))
        fin = (self._dist, self._geoms, self.range_min, self.range_max, self._none, self._none,
               self._dropout, self._pose, 0, 0, 0, 0.0)  # fmt: skip
        self._finish = entry_point(finish_row, tuple(numba.typeof(a) for a in fin))

    def _cast_now(self) -> np.ndarray:
        """Cast the scan from :attr:`data` (angle noise drawn) into ``_dist``, ``_geoms``
        and ``_pose``; returns the rays in the world ``(n, 3)``."""
        d = self.data
        if d is not self._bound:
            self._bind(d)
        dirs = self._noisy_dirs()
        w = self._cast(*self._cast_args, dirs, *self._geom_args, self._geoms, self._pose)
        if self._special.size:
            self._cast_special(w, self._pose[:3], self._dist, self._geoms)
        return w

    def scan(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One scan from the sensor now, before range noise and dropouts: ranges
        ``(layers * rays,)`` float32 (as the reading's), the geom each ray hit ``(n,)``
        (-1: none) and the sensor pose ``(7,)``. Ray directions carry the angle noise."""
        self._cast_now()
        ranges = np.empty(self.n, dtype=np.float32)
        geoms = self._geoms
        finish_ranges(self._dist, geoms, self.range_min, self.range_max, ranges)
        return ranges, geoms.copy(), self._pose.copy()

    def read_row(self, address: int, t: float) -> None:
        """Write the scan of the state :attr:`data` holds into the :attr:`row_dtype` row
        at ``address`` (time ``t``): the cast and the reading's noise in two compiled
        calls, no arrays made (noise-free)."""
        self._cast_now()
        rng, n = self.rng, self.n
        noise = rng.normal(0.0, self._range_std, n) if self._range_std > 0 else self._none
        drop = rng.random(n) if self._dropout > 0 else self._none
        self._finish(self._dist, self._geoms, self.range_min, self.range_max, noise, drop,
                     self._dropout, self._pose, address, self._off_r, self._off_p, t)  # fmt: skip

    def _cast_special(
        self, dirs: np.ndarray, origin: np.ndarray, dist: np.ndarray, geoms: np.ndarray
    ) -> None:
        """Meshes and height fields: MuJoCo's own casts, for the rays that can reach
        each one's bounding sphere."""
        mj = self._mj
        m, d = self.world.model, self.data
        for g in self._special.tolist():
            rel = d.geom_xpos[g] - origin
            dc = float(np.linalg.norm(rel))
            rb = float(m.geom_rbound[g])
            if dc - rb > self.range_max:
                continue
            if dc > rb:
                cosmax = np.sqrt(1.0 - (rb / dc) ** 2)
                cand = np.flatnonzero(dirs @ (rel / dc) >= cosmax - 1e-12)
            else:
                cand = np.arange(len(dirs))
            fn = mj.mj_rayMesh if int(m.geom_type[g]) == _MESH else mj.mj_rayHfield
            for i in cand.tolist():
                x = fn(m, d, g, origin, dirs[i])
                if 0 <= x < dist[i]:
                    dist[i], geoms[i] = x, g

    def sample(self) -> dict[str, np.ndarray]:
        row = np.zeros(1, self.row_dtype)
        self.read_row(int(row.ctypes.data), 0.0)
        return {"ranges": row["ranges"][0].copy(), "pose": row["pose"][0].copy()}


def scan_points(
    ranges: np.ndarray, azimuths: np.ndarray, elevations: np.ndarray, pose: np.ndarray
) -> np.ndarray:
    """World points ``(k, 3)`` of the finite returns of a scan: ``ranges`` ``(layers,
    rays)`` m, ``azimuths`` ``(rays,)`` and ``elevations`` ``(layers,)`` rad, ``pose``
    ``(7,)`` the sensor frame in the world."""
    from robotsim.spatial import quat_to_R

    r = np.asarray(ranges, dtype=np.float64).reshape(len(elevations), len(azimuths))
    ok = np.isfinite(r)
    li, ri = np.nonzero(ok)
    el = np.asarray(elevations, dtype=np.float64)[li]
    az = np.asarray(azimuths, dtype=np.float64)[ri]
    d = r[ok]
    ce = np.cos(el)
    local = np.column_stack([d * ce * np.cos(az), d * ce * np.sin(az), d * np.sin(el)])
    pose = np.asarray(pose, dtype=np.float64)
    return local @ quat_to_R(pose[3:]).T + pose[:3]
