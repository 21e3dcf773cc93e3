"""The sensors of a world, sampled at their rates while it steps.

Sensors observe, they never act: they read a sensing copy of the world's MuJoCo data
whose positions and velocities the rig brings up to the world's current state before
a reading (after a physics step MuJoCo's own data still hold the body poses that step
started from; recomputing them in place would hand the controllers fresher poses and
change the run). Positions and velocities are those at the reading's time;
accelerations (the IMU) and contact forces (force, touch) are those the last physics
step applied.

:class:`SensorRig` holds every mounted sensor of a :class:`robotsim.physics.World`.
:meth:`SensorRig.step` replaces ``world.step(n)``: it steps the world up to the next
physics step at which a sensor is due, samples the sensors due there, and goes on, so
every sensor reads at exact multiples of its period (whole physics steps) whatever the
control rate; a sensor faster than the controller is not held back to it. Nothing is
computed for a sensor that is not due: the world steps as fast as without sensors in
between.

Each reading is kept as the sensor's latest (:meth:`SensorRig.latest`), handed to the
listeners (:meth:`SensorRig.listen`) and, when a recorder with a ``sensor`` method is
attached, recorded (:meth:`robotsim.recording.Recorder.sensor`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from robotsim.errors import UnknownNameError
from robotsim.sensors.camera import CameraSensor, WorldRenderer
from robotsim.sensors.contact import ForceSensor, TouchSensor
from robotsim.sensors.inertial import Imu
from robotsim.sensors.joints import JointSensor
from robotsim.sensors.lidar import Lidar
from robotsim.sensors.mount import Mount
from robotsim.sensors.odometry import Odometry
from robotsim.sensors.types import Reading, Sensor

__all__ = ["KINDS", "SensorRig"]

KINDS: dict[str, type[Sensor]] = {
    "lidar": Lidar,
    "camera": CameraSensor,
    "imu": Imu,
    "odometry": Odometry,
    "force": ForceSensor,
    "touch": TouchSensor,
    "joint": JointSensor,
}


def _readonly(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    for a in data.values():
        a.setflags(write=False)
    return data


class SensorRig:
    """Every sensor of ``world``'s robots (``mounts``, from
    :func:`robotsim.sensors.mount.mount_sensors`); noise seeded from ``world.seed``.
    ``recorder``: where readings go (anything with ``sensor(robot, name, t, data,
    meta)``; others are ignored)."""

    def __init__(self, world: Any, mounts: Sequence[Mount], recorder: Any = None) -> None:
        import mujoco

        self._mj = mujoco
        self.world = world
        self.timestep = float(world.timestep)
        #: the sensing copy of the world's data (see the module doc)
        self.data = mujoco.MjData(world.model)
        self.renderer: WorldRenderer | None = None
        cams = [m for m in mounts if m.type == "camera"]
        if cams:
            self.renderer = WorldRenderer(
                world,
                max(m.spec.width for m in cams),
                max(m.spec.height for m in cams),
                self.data,
            )
        seed = int(world.seed)
        self._refresh(True, False)
        self.sensors: list[Sensor] = []
        for m in mounts:
            if m.type == "camera":
                self.sensors.append(CameraSensor(world, m, seed, self.data, self.renderer))
            else:
                self.sensors.append(KINDS[m.type](world, m, seed, self.data))
        self._by_name = {(s.robot, s.name): s for s in self.sensors}
        self._periods = [s.mount.period for s in self.sensors]
        self._vel = [s.needs_velocities or s.needs_accelerations for s in self.sensors]
        self._acc = [s.needs_accelerations for s in self.sensors]
        self._meta: list[dict[str, Any] | None] = [None] * len(self.sensors)
        self._listeners: list[Callable[[Reading], None]] = []
        self.recorder = recorder
        self._latest: dict[tuple[str, str], Reading] = {}
        self.samples = 0
        self._start = [0] * len(self.sensors)  # the step of reading 0 of each sensor
        self._count = [0] * len(self.sensors)  # readings taken since then
        self._next = [0] * len(self.sensors)
        self._next_min = 0

    # -- access -----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.sensors)

    def __iter__(self) -> Iterable[Sensor]:
        return iter(self.sensors)

    def sensor(self, robot: str, name: str) -> Sensor:
        try:
            return self._by_name[(robot, name)]
        except KeyError:
            valid = [f"{r}/{n}" for r, n in self._by_name]
            raise UnknownNameError("sensor", f"{robot}/{name}", valid) from None

    def names(self, robot: str | None = None) -> list[tuple[str, str]]:
        """``(robot, sensor name)`` of every sensor (of ``robot``)."""
        return [k for k in self._by_name if robot is None or k[0] == robot]

    def latest(self, robot: str, name: str) -> Reading | None:
        """The newest reading of a sensor (None before its first)."""
        self.sensor(robot, name)
        return self._latest.get((robot, name))

    def meta(self, robot: str, name: str) -> dict[str, Any]:
        return self.sensor(robot, name).meta()

    def listen(self, callback: Callable[[Reading], None]) -> None:
        """Call ``callback(reading)`` for every reading from now on."""
        self._listeners.append(callback)

    # -- stepping ---------------------------------------------------------------------
    def _step_index(self) -> int:
        return round(self.world.time / self.timestep)

    def step(self, n: int = 1) -> None:
        """Step the world ``n`` physics steps, sampling every sensor when it is due
        (also at the current step before the first, if due there)."""
        if not self.sensors:
            self.world.step(n)
            return
        k = self._step_index()
        end = k + int(n)
        if self._next_min <= k:
            self._sample_due(k)
        while k < end:
            nxt = min(self._next_min, end)
            self.world.step(nxt - k)
            k = nxt
            if self._next_min <= k:
                self._sample_due(k)

    def sample_due(self) -> None:
        """Sample the sensors due at the world's current step (the ones :meth:`step`
        would sample before stepping), so their readings are there to act on now."""
        if self.sensors:
            k = self._step_index()
            if self._next_min <= k:
                self._sample_due(k)

    def sample_now(self) -> list[Reading]:
        """Sample every sensor at the world's current state, due or not (their
        schedules are kept)."""
        k = self._step_index()
        return self._sample(range(len(self.sensors)), k, schedule=False)

    def _sample_due(self, k: int) -> None:
        due = [i for i, nxt in enumerate(self._next) if nxt <= k]
        self._sample(due, k, schedule=True)

    def _refresh(self, velocities: bool, accelerations: bool) -> None:
        """Bring the sensing copy's positions (and velocities, body accelerations) up to
        the world's current state."""
        mj, m = self._mj, self.world.model
        src, d = self.world.data, self.data
        d.time = src.time
        d.qpos[:] = src.qpos
        mj.mj_kinematics(m, d)
        mj.mj_comPos(m, d)
        if velocities or accelerations:
            d.qvel[:] = src.qvel
            mj.mj_comVel(m, d)
        if accelerations:
            d.qacc[:] = src.qacc
            mj.mj_rnePostConstraint(m, d)

    def _sample(self, which: Iterable[int], k: int, schedule: bool) -> list[Reading]:
        which = list(which)
        if which:
            self._refresh(any(self._vel[i] for i in which), any(self._acc[i] for i in which))
        t = k * self.timestep
        rec = self.recorder
        record = getattr(rec, "sensor", None) if rec is not None else None
        out = []
        for i in which:
            s = self.sensors[i]
            data = _readonly(s.sample())
            reading = Reading(s.robot, s.name, s.type, t, data)
            self._latest[(s.robot, s.name)] = reading
            out.append(reading)
            if schedule:
                j = self._count[i] = self._count[i] + 1
                nxt = self._start[i] + int(j * self._periods[i] + 0.5)
                self._next[i] = max(nxt, k + 1)
            if record is not None:
                meta = self._meta[i]
                if meta is None:
                    meta = self._meta[i] = s.meta()
                record(s.robot, s.name, t, data, meta)
            for cb in self._listeners:
                cb(reading)
        self.samples += len(out)
        if schedule:
            self._next_min = min(self._next)
        return out

    def reset(self) -> None:
        """After ``world.reset()``: fresh noise generators, schedules from step 0, no
        latest readings."""
        for s in self.sensors:
            s.reset()
        self._latest.clear()
        k = self._step_index()
        self._start = [k] * len(self.sensors)
        self._count = [0] * len(self.sensors)
        self._next = [k] * len(self.sensors)
        self._next_min = k

    def close(self) -> None:
        if self.renderer is not None:
            self.renderer.close()
            self.renderer = None

    def __enter__(self) -> SensorRig:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
