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
(``n``: one per ray, used where it returns) and the dropout draws (``n``). Without angle
noise the range noise and dropout draws of 16 scans are drawn at once (the same numbers,
in the same order), so the rig's compiled stepping can read a scan without Python.

A scan is written as one row (:attr:`Lidar.row_dtype`: ``t``, ``ranges``, ``pose``)
into the rig's block of rows (:mod:`robotsim.sensors.rig`), by two compiled calls on
the addresses of the MuJoCo data's arrays and the lidar's (:meth:`Lidar.params`: the
cast; the ranges, noise and pose into the row): no arrays, dictionary or reading made
per scan. The rig's compiled stepping makes the same two calls where the scan is due
(:attr:`Lidar.compiled`), and hands the rows to the recorder a few times a second, as
an IMU's.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from robotsim.sensors import _raycast as rc
from robotsim.sensors._raycast import PRIMITIVES, cast_into, finish_into, finish_ranges
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
        self._gtype = np.ascontiguousarray(self._gtype, dtype=np.int32)
        self._gsize = np.ascontiguousarray(self._gsize, dtype=np.float64)
        self._grb = np.ascontiguousarray(self._grb, dtype=np.float64)
        self._dist = np.empty(self.n)
        self._geoms = np.empty(self.n, dtype=np.int32)
        self._pose = np.empty(7)
        self._w = np.empty((self.n, 3))  # the rays in the world
        # drawn noise (see _noise_at): range noise then dropout draws, per reading
        self._k = self.n * ((self._range_std > 0) + (self._dropout > 0))
        #: the drawn noise: its address, numbers a reading, readings of it used, readings
        #: drawn at once (an array, so that the rig's compiled stepping shares it)
        self._nz = np.zeros(4, dtype=np.int64)
        self._nz[1] = self._k
        # with angle noise the numbers of each scan follow its angle draws: one at a time
        self._nz[3] = 1 if self._angle_std > 0 else max(1, min(16, (1 << 17) // max(1, self._k)))
        self._noise: np.ndarray | None = None
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

    @property
    def compiled(self) -> bool:
        """Whether the rig's compiled stepping may take this lidar's scans
        (:func:`robotsim.sensors._raycast.lidar_row`): no angle noise (its rays are
        turned in NumPy) and no mesh or height field in sight (MuJoCo casts those)."""
        return self._angle_std <= 0 and self._special.size == 0

    def reset(self) -> None:
        super().reset()
        if hasattr(self, "_nz"):  # a fresh generator: the numbers drawn are dropped
            self._noise = None
            self._nz[0], self._nz[2] = 0, self._nz[3]

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

    def params(self, d: Any) -> np.ndarray:
        """The cast parameters (:data:`robotsim.sensors._raycast.PARAMS`) of this lidar
        on the MuJoCo data ``d``: an int64 array of addresses (this lidar's arrays and
        ``d``'s, which must outlive it) and numbers."""
        q = np.zeros(rc.PARAMS, dtype=np.int64)
        qf = q.view(np.float64)

        def at(a: np.ndarray) -> int:
            assert a.flags.c_contiguous
            return int(a.ctypes.data)

        q[rc.P_XPOS], q[rc.P_XMAT], q[rc.P_BODY] = at(d.xpos), at(d.xmat), self.body
        q[rc.P_RBS], q[rc.P_PBS] = at(self._R_bs), at(self._p_bs)
        q[rc.P_DIRS], q[rc.P_N] = at(self._dirs), self.n
        q[rc.P_GTYPE], q[rc.P_GSIZE], q[rc.P_GRB] = at(self._gtype), at(self._gsize), at(self._grb)
        q[rc.P_GXPOS], q[rc.P_GXMAT] = at(d.geom_xpos), at(d.geom_xmat)
        q[rc.P_ACTIVE], q[rc.P_NACTIVE] = at(self._active), len(self._active)
        qf[rc.P_RMIN], qf[rc.P_RMAX] = self.range_min, self.range_max
        q[rc.P_DIST], q[rc.P_GEOMS], q[rc.P_POSE] = at(self._dist), at(self._geoms), at(self._pose)
        q[rc.P_W], q[rc.P_OFF_R], q[rc.P_OFF_P] = at(self._w), self._off_r, self._off_p
        q[rc.P_NOISY], q[rc.P_DROPS] = int(self._range_std > 0), int(self._dropout > 0)
        qf[rc.P_DROPOUT] = self._dropout
        return q

    def _bind(self, d: Any) -> None:
        """Keep the cast parameters on the MuJoCo data ``d`` and the compiled calls."""
        from robotsim.kinematics.kernels import entry_point

        self._bound = d
        self._par = self.params(d)
        self._par_at = int(self._par.ctypes.data)
        i = numba.types.intp
        self._cast = entry_point(cast_into, (i, i))
        self._finish = entry_point(finish_into, (i, i, i, numba.types.float64))

    def _cast_now(self) -> np.ndarray:
        """Cast the scan from :attr:`data` (angle noise drawn) into ``_dist``, ``_geoms``
        and ``_pose``; returns the rays in the world ``(n, 3)``."""
        d = self.data
        if d is not self._bound:
            self._bind(d)
        dirs = self._noisy_dirs()
        self._cast(self._par_at, int(dirs.ctypes.data))
        if self._special.size:
            self._cast_special(self._w, self._pose[:3], self._dist, self._geoms)
        return self._w

    def _noise_at(self) -> int:
        """The address of the next reading's drawn numbers (0: none): range noise
        ``(n,)`` then dropout draws ``(n,)``, drawn ``_nz[3]`` readings at a time in the
        order one reading at a time draws them (the same numbers either way)."""
        if not self._k:
            return 0
        nz = self._nz
        used = int(nz[2])
        if used >= nz[3]:
            rows, n, rng = int(nz[3]), self.n, self.rng
            noise = np.empty((rows, self._k))
            for j in range(rows):
                a = 0
                if self._range_std > 0:
                    noise[j, :n] = rng.normal(0.0, self._range_std, n)
                    a = n
                if self._dropout > 0:
                    noise[j, a:] = rng.random(n)
            self._noise = noise
            nz[0], used = int(noise.ctypes.data), 0
        nz[2] = used + 1
        return int(nz[0]) + 8 * self._k * used

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
        self._finish(self._par_at, self._noise_at(), address, t)

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
