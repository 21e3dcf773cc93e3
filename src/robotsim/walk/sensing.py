"""Sensors on a walking robot (docs/sensors.md): the robot's profile file's sensors,
with a scenario's on top, mounted in a walk's own world (:class:`~robotsim.walk.simulate.
WalkSim`, whose placement is named ``robot``) and recorded under the robot's own name, as
the walk's signals are."""

from __future__ import annotations

from typing import Any

__all__ = ["sensor_summary", "walk_sensors"]


def walk_sensors(
    sim: Any,
    biped: Any,
    specs: list[Any] | tuple[Any, ...] = (),
    where: str = "sensors",
    recorder: Any = None,
) -> Any:
    """The robot's sensors (its profile file's with ``specs`` on top) mounted in the
    walk's world (a :class:`~robotsim.sensors.SensorRig` that then steps it) and
    recorded by ``recorder`` under the robot's name; None without any."""
    from robotsim.sensors import SensorRig, mount_sensors, sensor_list
    from robotsim.walk.simulate import ROBOT

    world = sim.world
    model = world.scene.robots[0].model
    listed, paths = sensor_list(biped.model, list(specs), where)
    if not listed:
        return None
    mounts = mount_sensors(ROBOT, model, listed, world.timestep, paths)
    rec = _Relabelled(recorder, ROBOT, biped.name) if hasattr(recorder, "sensor") else None
    return SensorRig(world, mounts, recorder=rec)


def sensor_summary(rig: Any, name: str) -> dict[str, Any]:
    """Each sensor's type and rate under the robot's name (``{}`` without sensors)."""
    if rig is None:
        return {}
    return {s.name: {"type": s.type, "rate_hz": s.mount.rate, "robot": name} for s in rig}


class _Relabelled:
    """A recorder seen by a sensor rig whose world names the robot ``old``: its readings
    are recorded under ``new`` (the robot's own name, as the walk's signals are)."""

    def __init__(self, recorder: Any, old: str, new: str) -> None:
        self._rec, self._old, self._new = recorder, old, new

    def _name(self, robot: str) -> str:
        return self._new if robot == self._old else robot

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._rec, attr)
        if attr in ("sensor", "sensor_rows"):
            return lambda robot, *a, **k: value(self._name(robot), *a, **k)
        return value
