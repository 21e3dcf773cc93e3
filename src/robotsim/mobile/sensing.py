"""The sensors of a mobile run: each robot's ``sensors:`` (its profile file's, with the
scenario's on top) mounted in the run's world, sampled while it steps and recorded with
the run (:mod:`robotsim.sensors`)."""

from __future__ import annotations

from typing import Any

from robotsim.mobile.schema import MobileScenario
from robotsim.mobile.types import RobotSetup
from robotsim.sensors import SensorRig, mount_sensors, sensor_list

__all__ = ["rig_of"]


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
