"""What every sensor shares: a :class:`Reading` (named arrays at one simulated time),
the :class:`Sensor` base class (its mount, its seeded noise generator, where it sits in
the world now) and the seeding rule.

Seeding: each sensor draws its noise from its own generator, seeded from the world's
seed, the robot's name and the sensor's name (:func:`sensor_rng`). The same scene and
seed therefore give the same readings, whatever other sensors there are or the order
they are sampled in.
"""

from __future__ import annotations

import zlib
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np

from robotsim.sensors.mount import Mount
from robotsim.spatial import R_to_quat

__all__ = ["Reading", "Sensor", "pose7", "sensor_rng"]


def sensor_rng(seed: int, robot: str, name: str) -> np.random.Generator:
    """The noise generator of sensor ``name`` of ``robot`` in a world seeded ``seed``."""
    words = [int(seed) & 0xFFFFFFFF, (int(seed) >> 32) & 0xFFFFFFFF]
    words += [zlib.crc32(robot.encode()), zlib.crc32(name.encode())]
    return np.random.default_rng(np.random.SeedSequence(words))


def pose7(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """A pose as ``[x, y, z, qw, qx, qy, qz]`` (m, unit quaternion) ``(7,)``."""
    out = np.empty(7)
    out[:3] = p
    out[3:] = R_to_quat(R)
    return out


class Reading:
    """One reading of one sensor: ``robot``, ``sensor`` (its name), ``type``, simulated
    time ``t`` (s) and ``data``: field name -> read-only array (shapes and units in
    docs/sensors.md, per type). A value: nothing changes it once made (a plain class
    with slots rather than a frozen dataclass: one is made per reading, hundreds a
    simulated second, and a frozen dataclass's constructor costs several times more)."""

    __slots__ = ("data", "robot", "sensor", "t", "type")

    def __init__(
        self, robot: str, sensor: str, type: str, t: float, data: Mapping[str, np.ndarray]
    ) -> None:
        self.robot, self.sensor, self.type, self.t, self.data = robot, sensor, type, t, data

    def __getitem__(self, field: str) -> np.ndarray:
        return self.data[field]

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}{list(v.shape)}" for k, v in self.data.items())
        return f"Reading({self.robot}/{self.sensor} {self.type} t={self.t:.6g}: {fields})"


class Sensor(ABC):
    """Base of the sensor kinds: holds the world, the :class:`Mount`, the body the
    sensor sits on and its noise generator (``rng``). Subclasses implement
    :meth:`sample` (the data of a reading at the world's current state) and may add
    entries to :meth:`meta` (what a recording keeps once per sensor).

    ``data``: the MuJoCo data the sensor reads (the world's by default; the
    :class:`SensorRig` points it at the data that hold the state a reading is of)."""

    type = "sensor"
    #: reads the scene (poses, contacts, accelerations) as MuJoCo's last step computed
    #: it: the rig reads step k after the step from k (see :mod:`robotsim.sensors.rig`)
    deferred = False
    #: the rig runs ``mj_rnePostConstraint`` (body accelerations) before it reads
    needs_accelerations = False

    def __init__(self, world: Any, mount: Mount, seed: int, data: Any = None) -> None:
        self.world, self.mount = world, mount
        self.data = world.data if data is None else data
        self.robot, self.name = mount.robot, mount.name
        self.seed = int(seed)
        self.body = world.body(mount.site.body).id
        T = np.asarray(mount.site.T_link_sensor, dtype=np.float64)
        self._R_bs, self._p_bs = T[:3, :3].copy(), T[:3, 3].copy()
        self.reset()

    def reset(self) -> None:
        """Back to the start: a fresh noise generator (the same numbers again)."""
        self.rng = sensor_rng(self.seed, self.robot, self.name)

    def frame(self) -> tuple[np.ndarray, np.ndarray]:
        """The sensor frame in the world now: rotation ``(3, 3)``, position ``(3,)`` m."""
        d = self.data
        R_wb = d.xmat[self.body].reshape(3, 3)
        return R_wb @ self._R_bs, d.xpos[self.body] + R_wb @ self._p_bs

    @abstractmethod
    def sample(self) -> dict[str, np.ndarray]:
        """One reading now: named arrays (each kind documents its fields)."""

    @abstractmethod
    def reading_bytes(self) -> int:
        """Bytes of one reading's arrays, from the spec (nothing is sampled)."""

    def meta(self) -> dict[str, Any]:
        """What a recording keeps once: type, rate (Hz), mount (link, T_link_sensor)."""
        site = self.mount.site
        return {
            "type": self.type,
            "rate": self.mount.rate,
            "link": site.link,
            "T_link_sensor": np.asarray(site.T_link_sensor).tolist(),
        }
