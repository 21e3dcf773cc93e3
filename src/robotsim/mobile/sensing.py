"""The sensors of a mobile run: each robot's ``sensors:`` (its profile file's, with the
scenario's on top) mounted in the run's world, sampled while it steps and recorded with
the run (:mod:`robotsim.sensors`); and avoidance from them: a controller with
``source: lidar`` avoids what its robot's lidar sees (:class:`SensedAvoidance`, a
polar histogram of each scan, :mod:`robotsim.control.sensed`) instead of the
scenario's obstacle list."""

from __future__ import annotations

from typing import Any

import numpy as np

from robotsim.control.sensed import ScanObstacles
from robotsim.errors import InputError
from robotsim.mobile.schema import MobileScenario
from robotsim.mobile.types import RobotSetup
from robotsim.sensors import SensorRig, mount_sensors, sensor_list

__all__ = ["SensedAvoidance", "rig_of"]


def rig_of(
    world: Any, sc: MobileScenario, robots: list[RobotSetup], source: str, recorder: Any = None
) -> SensorRig | None:
    """A :class:`SensorRig` of every robot's sensors in ``world``, or None when no robot
    has any. Errors name the file and field (``robots[0].sensors[1].link: ...``)."""
    mounts = []
    for rb in robots:
        i = next(k for k, r in enumerate(sc.robots) if r is rb.spec)
        specs, where = sensor_list(rb.model, rb.spec.sensors, f"{source}: robots[{i}].sensors")
        if specs:
            mounts += mount_sensors(rb.name, rb.model, specs, world.timestep, where)
    return SensorRig(world, mounts, recorder) if mounts else None


class SensedAvoidance:
    """The robots whose controllers avoid what their lidar sees (``controller.source:
    lidar``): each control tick, a new scan becomes the controller's obstacles.

    ``index`` (robot positions in the run), ``sensor`` (the lidar's name) and ``map``
    (:class:`~robotsim.control.sensed.ScanObstacles`) per sensed robot."""

    def __init__(
        self,
        sc: MobileScenario,
        robots: list[RobotSetup],
        rig: SensorRig | None,
        controllers: list[Any],
        source: str,
    ) -> None:
        self.rig = rig
        self.controllers = controllers
        self.entries: list[tuple[int, str, str, ScanObstacles]] = []
        for i, rb in enumerate(robots):
            c = rb.spec.controller
            if c.source != "lidar":
                continue
            k = next(j for j, r in enumerate(sc.robots) if r is rb.spec)
            where = f"{source}: robots[{k}].controller"
            names = [] if rig is None else [n for r, n in rig.names(rb.name)
                                            if rig.sensor(r, n).type == "lidar"]  # fmt: skip
            if c.sensor is not None:
                if c.sensor not in names:
                    from robotsim.errors import UnknownNameError

                    raise InputError(
                        f"{where}.sensor: {UnknownNameError('lidar', c.sensor, names)}"
                    )
                name = c.sensor
            elif len(names) == 1:
                name = names[0]
            elif not names:
                raise InputError(
                    f"{where}.source: 'lidar' needs a lidar among the robot's sensors "
                    "(robots[i].sensors or its profile file); it has none"
                )
            else:
                raise InputError(
                    f"{where}.sensor: the robot has {len(names)} lidars "
                    f"({', '.join(names)}); name the one to avoid with"
                )
            assert rig is not None
            lidar = rig.sensor(rb.name, name)
            scans = ScanObstacles(
                lidar.az, lidar.el, per_object=c.avoidance == "potential",
                memory=0.0 if lidar.mount.spec.fov_deg >= 360 else 1.0,
            )  # fmt: skip
            controllers[i].obstacles = np.zeros((0, 3))
            self.entries.append((i, rb.name, name, scans))
        self.sensed = {i for i, *_ in self.entries}

    def __bool__(self) -> bool:
        return bool(self.entries)

    def update(self) -> None:
        """Give each sensed controller the obstacles of its lidar's newest scan."""
        rig = self.rig
        if rig is None:
            return
        for i, robot, name, scans in self.entries:
            reading = rig.latest(robot, name)
            if reading is not None and reading.t > scans.t:
                self.controllers[i].obstacles = scans.update(
                    reading.t, reading["ranges"], reading["pose"]
                )
