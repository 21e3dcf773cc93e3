"""The lidar: rays cast in the MuJoCo scene with ``mujoco.mj_multiRay``.

A scan casts every ray of every layer from the sensor's origin at once. Rays see what
MuJoCo's ray casting sees: every geom with a visible colour (obstacles, walls, objects,
the ground, other robots), in any geom group. The robot's own bodies are left out: the
body the lidar sits on is excluded by ``mj_multiRay`` itself; a ray that hits another
body of the same robot (a wheel, a mast) is cast on from the hit point with that body
excluded, until it leaves the robot (at most :data:`SELF_PASSES` times).

Reading fields: ``ranges`` ``(layers, rays)`` float32 m along each ray: ``inf`` when
nothing is hit within the maximum range, ``NaN`` for a dropout or a hit closer than the
minimum range; ``pose`` ``(7,)`` the sensor frame in the world (``x, y, z, qw, qx, qy,
qz``) when the scan was taken. Azimuths and elevations are in :meth:`Lidar.meta`
(rad): ray ``j`` of layer ``i`` points along ``(cos el_i cos az_j, cos el_i sin az_j,
sin el_i)`` in the sensor frame.

Noise: each ray's direction is turned by Gaussian angles (``angle_std_deg``, azimuth and
elevation) before casting, each return gets Gaussian range noise (``range_std``), and a
return is dropped with probability ``dropout``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from robotsim.sensors.mount import Mount, lidar_directions
from robotsim.sensors.types import Sensor, pose7

__all__ = ["SELF_PASSES", "Lidar"]

#: Casts on through the robot's own bodies, at most, per ray.
SELF_PASSES = 8


class Lidar(Sensor):
    type = "lidar"

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
        names = world.body_names
        own_body = np.array([n.startswith(prefix) for n in names], dtype=bool)
        # geom id -> belongs to this robot; index -1 (no hit) reads the last entry: False
        self._own_geom = np.append(own_body[np.asarray(m.geom_bodyid)], False)
        self._geom_body = np.asarray(m.geom_bodyid, dtype=np.int64)
        self._gid = np.zeros(self.n, dtype=np.int32)
        self._dist = np.zeros(self.n, dtype=np.float64)
        self._vec = np.zeros(self.n * 3, dtype=np.float64)
        self._one = np.zeros(1, dtype=np.int32)
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
        return np.column_stack([ce * np.cos(az), ce * np.sin(az), np.sin(el)])

    def cast(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One cast from the sensor now, without range noise: distances ``(n,)`` m (-1:
        no hit within the maximum range), hit geom ids ``(n,)`` (-1: none), the sensor
        frame's rotation ``(3, 3)`` and origin ``(3,)`` in the world. Ray directions
        carry the angle noise, if any."""
        mj = self._mj
        m, d = self.world.model, self.data
        R, p = self.frame()
        dirs = self._noisy_dirs()
        vec = self._vec
        np.matmul(dirs, R.T, out=vec.reshape(-1, 3))
        gid, dist = self._gid, self._dist
        mj.mj_multiRay(m, d, p, vec, None, 1, self.body, gid, dist, None, self.n, self.range_max)
        own = self._own_geom[gid]
        if own.any():
            self._past_self(p, vec.reshape(-1, 3), np.flatnonzero(own))
        far = dist > self.range_max
        if far.any():
            dist[far], gid[far] = -1.0, -1
        return dist, gid, R, p

    def _past_self(self, origin: np.ndarray, vec: np.ndarray, rays: np.ndarray) -> None:
        """Cast the rays that hit the robot itself on, past its own bodies."""
        mj = self._mj
        m, d = self.world.model, self.data
        gid, dist, one = self._gid, self._dist, self._one
        for i in rays.tolist():
            v = vec[i]
            travelled = 0.0
            body = int(self._geom_body[gid[i]])
            hit, g = -1.0, -1
            for _ in range(SELF_PASSES):
                travelled += float(dist[i])
                start = origin + v * travelled
                hit = mj.mj_ray(m, d, start, v, None, 1, body, one)
                g = int(one[0])
                if hit < 0 or not self._own_geom[g]:
                    break
                dist[i] = hit
                body = int(self._geom_body[g])
            if hit < 0 or self._own_geom[g] or travelled + hit > self.range_max:
                dist[i], gid[i] = -1.0, -1
            else:
                dist[i], gid[i] = travelled + hit, g

    def sample(self) -> dict[str, np.ndarray]:
        dist, _, R, p = self.cast()
        r = dist.astype(np.float32)
        r[dist < 0] = np.inf
        r[(dist >= 0) & (dist < self.range_min)] = np.nan
        hit = np.isfinite(r)
        if self._range_std > 0:
            r[hit] += self.rng.normal(0.0, self._range_std, int(hit.sum())).astype(np.float32)
            np.maximum(r, 0.0, out=r, where=hit)
        if self._dropout > 0:
            r[self.rng.random(self.n) < self._dropout] = np.nan
        return {"ranges": r.reshape(self.shape), "pose": pose7(R, p)}


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
