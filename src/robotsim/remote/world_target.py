"""A physics :class:`~robotsim.physics.World` as a remote-control target.

Robots are the world's robot placements. For each robot:

- ``joints``: its actuated joints that have a motor, wheels excluded; ``set_joints``
  sets those motors' targets (a position motor's angle/offset, a velocity motor's speed,
  a torque motor's effort — whatever the scenario gave the joint);
- ``wheels``: the wheel joints of an ``omni``/``diffdrive`` drive; ``set_wheels`` sets
  their velocity motors (rad/s);
- ``mobile``: it has a wheel drive; ``set_base_velocity`` turns a body twist into wheel
  rates through :class:`robotsim.control.wheeled_base.MobileBase` (the wheels really roll).

State: base pose of the robot's root body, joint positions and velocities by name,
and for mobile robots the measured body twist (``base_velocity``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from robotsim.errors import InputError, UnknownNameError
from robotsim.remote.target import RobotInfo, pos_quat_json

__all__ = ["WorldTarget", "robot_scene"]


def robot_scene(model: Any) -> Any:
    """One robot alone on a ground plane, as ``robotsim serve ROBOT`` serves it, at its
    zero configuration clipped into the joint limits: its joints on position servos (a
    legged robot's sized by its profile); a robot on legs or wheels floats (whatever its
    file says, :mod:`robotsim.physics.freebase`) with its soles or wheels on the ground,
    and wheels get velocity motors (:func:`robotsim.physics.drives.placement_motor`)."""
    from robotsim.physics import RobotPlacement, Scene
    from robotsim.physics.freebase import on_ground, set_free

    model = set_free(model)
    # the zero configuration within the joint limits: a joint whose range excludes 0 (a
    # quadruped's knee) would otherwise start outside it and kick the robot over
    q = model.zero()
    T = on_ground(model, np.eye(4), q)
    q0 = {n: float(v) for n, v in zip(model.joint_names, q) if v != 0.0}
    legged = _legged_servos(model)
    if legged is None:
        return Scene(robots=(RobotPlacement(model.name, model, T, q0=q0),), name=model.name)
    motors, dynamics, timestep = legged
    placement = RobotPlacement(model.name, model, T, q0=q0, motors=motors, joint_dynamics=dynamics)
    return Scene(robots=(placement,), name=model.name, timestep=timestep)


def _legged_servos(model: Any) -> tuple[dict[str, Any], dict[str, Any], float] | None:
    """A robot standing on legs gets the servos its profile sizes for it, as the motion
    physics check and the walk do (docs/profiles.md: stiffness = its weight times its
    standing height per 0.02 rad, the rotor inertia that keeps such a servo stable at
    the time step): a fixed gain stiff enough for a 3 kg robot lets a 50 kg one topple
    over its ankles (stiffness below m g h). ``(motors, joint dynamics, timestep)``;
    None for robots without feet (arms, wheeled bases keep their default servos)."""
    from dataclasses import replace

    from robotsim.motion.profile import motion_profile
    from robotsim.physics import Motor
    from robotsim.physics.freebase import ground_contact

    contact = ground_contact(model)
    if contact is None or contact.by != "legs":
        return None
    _, spec = motion_profile(model)
    ph = spec.physics
    motors, dynamics = {}, {}
    for name in model.joint_names:
        kp, kv, tau = ph.gains(name)
        motors[name] = Motor("position", gain=kp, damping=kv, force=tau, feedforward=ph.feedforward)
        dyn = model.joint(name).dynamics
        dynamics[name] = replace(dyn, armature=max(dyn.armature, ph.armature))
    return motors, dynamics, ph.timestep


class WorldTarget:
    """Drive ``world`` (a :class:`robotsim.physics.World`) from the remote server;
    ``sensors`` (a :class:`robotsim.sensors.SensorRig` of the world) are sampled as it
    steps and read with ``get_sensor``."""

    def __init__(self, world: Any, sensors: Any = None) -> None:
        from robotsim.control.wheeled_base import MobileBase

        self.world = world
        self.sensors = sensors if sensors is not None and len(sensors) else None
        motors = set(world.motor_names)
        drives = world.drives
        self._infos: dict[str, RobotInfo] = {}
        self._roots: dict[str, str] = {}
        self._joints: dict[str, tuple[str, ...]] = {}
        self._bases: dict[str, Any] = {}
        self._links: dict[str, tuple[str, ...]] = {}
        bodies = set(world.body_names)
        for placement in world.scene.robots:
            name, model = placement.name, placement.model
            prefix = f"{name}/"
            drive = drives.get(name)
            wheels = tuple(
                w[len(prefix) :] if w.startswith(prefix) else w
                for w in (drive.wheel_joints if drive is not None else ())
            )
            commandable = tuple(
                j for j in model.joint_names if prefix + j in motors and j not in wheels
            )
            own = () if self.sensors is None else tuple(
                (n, self.sensors.sensor(r, n).type) for r, n in self.sensors.names(name)
            )  # fmt: skip
            self._infos[name] = RobotInfo(name, commandable, wheels, drive is not None, own)
            self._roots[name] = prefix + model.root
            self._links[name] = tuple(lk for lk in model.link_names if prefix + lk in bodies)
            self._joints[name] = tuple(
                j for j in model.joint_names if prefix + j in world.joint_names
            )
            if drive is not None:
                self._bases[name] = MobileBase(world, name)

    @property
    def dt(self) -> float:
        return float(self.world.timestep)

    @property
    def time(self) -> float:
        return float(self.world.time)

    def robots(self) -> Mapping[str, RobotInfo]:
        return self._infos

    def _check(self, robot: str) -> RobotInfo:
        try:
            return self._infos[robot]
        except KeyError:
            raise UnknownNameError("robot", robot, self._infos) from None

    def step(self, n: int = 1) -> None:
        if self.sensors is None:
            self.world.step(n)
        else:
            self.sensors.step(n)

    def sensor_reading(self, robot: str, name: str) -> Any:
        """The latest reading of a sensor (a :class:`robotsim.sensors.Reading`; one taken
        now if it has none yet)."""
        self._check(robot)
        if self.sensors is None:
            raise InputError(f"robot {robot!r} has no sensors")
        reading = self.sensors.latest(robot, name)
        if reading is None:
            self.sensors.sample_now()
            reading = self.sensors.latest(robot, name)
        return reading

    def state(self, robots: Sequence[str] | None = None) -> dict[str, Any]:
        w = self.world
        d = w.data
        out: dict[str, Any] = {}
        for name in self._infos if robots is None else robots:
            self._check(name)
            bid = w.body(self._roots[name]).id
            jq, jqd = {}, {}
            for j in self._joints[name]:
                h = w.joint(f"{name}/{j}")
                jq[j], jqd[j] = h.q, h.qd
            entry: dict[str, Any] = {
                "base": pos_quat_json(d.xpos[bid], d.xquat[bid]),
                "joints": jq,
                "velocities": jqd,
            }
            if name in self._bases:
                tw = self._bases[name].twist()
                entry["base_velocity"] = {
                    "vx": float(tw[0]),
                    "vy": float(tw[1]),
                    "omega": float(tw[2]),
                }
            out[name] = entry
        return out

    def link_poses(self, robot: str) -> dict[str, np.ndarray]:
        self._check(robot)
        w = self.world
        return {lk: np.asarray(w.body(f"{robot}/{lk}").pose) for lk in self._links[robot]}

    def set_joint_targets(self, robot: str, targets: Mapping[str, float]) -> None:
        info = self._check(robot)
        for j in targets:
            if j not in info.joints:
                raise UnknownNameError(f"joint of robot {robot!r}", j, info.joints)
        for j, v in targets.items():
            self.world.motor(f"{robot}/{j}").set(float(v))

    def set_base_velocity(self, robot: str, vx: float, vy: float, omega: float) -> None:
        self._check(robot)
        if robot not in self._bases:
            raise InputError(f"robot {robot!r} has no wheel drive")
        self._bases[robot].set_twist([vx, vy, omega])

    def set_wheel_speeds(self, robot: str, speeds: Mapping[str, float]) -> None:
        info = self._check(robot)
        for j in speeds:
            if j not in info.wheels:
                raise UnknownNameError(f"wheel of robot {robot!r}", j, info.wheels)
        for j, v in speeds.items():
            self.world.motor(f"{robot}/{j}").set(float(v))

    def reset(self) -> None:
        self.world.reset()
        if self.sensors is not None:
            self.sensors.reset()
