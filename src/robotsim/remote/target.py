"""What a remote-control server drives: the :class:`SimulationTarget` protocol.

The UDP server (:mod:`robotsim.remote.server`) only needs these few calls, so it can
drive the MuJoCo world (:mod:`robotsim.remote.physics_target`) or the purely kinematic
:class:`KinematicTarget` here (robots from the kinematic engine: joints slew toward their
targets at their velocity limits, mobile bases integrate a planar twist).

All calls happen on the server's loop thread; a target need not be thread-safe.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from robotsim.errors import InputError, UnknownNameError
from robotsim.kinematics.floating import AnchoredState
from robotsim.model.robot import JointType, RobotModel
from robotsim.spatial import R_to_quat

__all__ = [
    "KinematicTarget",
    "RobotInfo",
    "SimulationTarget",
    "pos_quat_json",
    "pose7",
    "pose_json",
]


@dataclass(frozen=True)
class RobotInfo:
    """What a client may command on one robot.

    ``joints``: names accepted by ``set_joints`` (rad or m); ``wheels``: names accepted
    by ``set_wheels`` (rad/s); ``mobile``: ``set_base_velocity`` is accepted;
    ``sensors``: sensor name -> type, readable with ``get_sensor``.
    """

    name: str
    joints: tuple[str, ...]
    wheels: tuple[str, ...] = ()
    mobile: bool = False
    sensors: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = {"joints": list(self.joints), "wheels": list(self.wheels), "mobile": self.mobile}
        if self.sensors:  # only robots that have some
            out["sensors"] = dict(self.sensors)
        return out


@runtime_checkable
class SimulationTarget(Protocol):
    """The simulation a server drives. Times in s, joints in rad or m, SI throughout."""

    @property
    def dt(self) -> float:
        """Seconds of simulated time per :meth:`step`."""
        ...

    @property
    def time(self) -> float:
        """Simulated time since the last reset (s)."""
        ...

    def robots(self) -> Mapping[str, RobotInfo]: ...

    def step(self, n: int = 1) -> None:
        """Advance ``n`` steps of :attr:`dt`."""
        ...

    def state(self, robots: Sequence[str] | None = None) -> dict[str, Any]:
        """``{robot: {"base": {...}, "joints": {name: q}, "velocities": {name: qd}}}``
        (JSON-ready; see docs/protocol.md)."""
        ...

    def link_poses(self, robot: str) -> dict[str, np.ndarray]:
        """World pose ``(4, 4)`` of every link of ``robot``, by link name."""
        ...

    def set_joint_targets(self, robot: str, targets: Mapping[str, float]) -> None: ...

    def set_base_velocity(self, robot: str, vx: float, vy: float, omega: float) -> None:
        """Planar twist in the robot's base frame: m/s, m/s, rad/s."""
        ...

    def set_wheel_speeds(self, robot: str, speeds: Mapping[str, float]) -> None: ...

    def reset(self) -> None: ...


def pose7(T: np.ndarray) -> list[float]:
    """A world pose ``(4, 4)`` as ``[x, y, z, qw, qx, qy, qz]`` (m, unit quaternion)."""
    return [*(float(v) for v in T[:3, 3]), *(float(v) for v in R_to_quat(T[:3, :3]))]


def pos_quat_json(pos: np.ndarray, quat: np.ndarray) -> dict[str, Any]:
    """Position (3,) m and unit quaternion (4,) wxyz -> the protocol's pose object."""
    w, x, y, z = (float(v) for v in quat)
    return {
        "position": [float(v) for v in pos],
        "quaternion": [w, x, y, z],
        "yaw": math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z)),
    }


def pose_json(T: np.ndarray) -> dict[str, Any]:
    """A world pose ``(4, 4)`` as ``{"position": [x,y,z], "quaternion": [w,x,y,z], "yaw"}``."""
    q = R_to_quat(T[:3, :3])
    return {
        "position": [float(v) for v in T[:3, 3]],
        "quaternion": [float(v) for v in q],
        "yaw": float(math.atan2(T[1, 0], T[0, 0])),
    }


class _KinRobot:
    def __init__(self, name: str, model: RobotModel, T0: np.ndarray, mobile: bool) -> None:
        self.name = name
        self.model = model
        self.T0 = T0.copy()
        self.mobile = mobile
        self.state = AnchoredState(model, T_world_root=T0)
        self.q0 = self.state.q.copy()
        vmax = np.array(model.velocity_limits, dtype=np.float64)
        self.vmax = np.where(np.isfinite(vmax) & (vmax > 0), vmax, 1.0)
        self.wheel_idx = {
            n: i
            for i, n in enumerate(model.joint_names)
            if model.joint(n).type is JointType.CONTINUOUS
        }
        self.info = RobotInfo(name, model.joint_names, tuple(self.wheel_idx), mobile)
        self.reset()

    def reset(self) -> None:
        self.state.set_root(self.T0)
        self.state.set_q(self.q0)
        self.target = self.q0.copy()
        self.qd = np.zeros(self.model.nq)
        self.spin = np.zeros(self.model.nq)  # wheel speeds (rad/s), velocity mode
        self.spinning = np.zeros(self.model.nq, dtype=bool)
        self.twist = np.zeros(3)


class KinematicTarget:
    """Robots moved by the kinematic engine, without dynamics.

    Args:
        robots: robot name -> model, or -> ``(model, T_world_root (4, 4))``.
        dt: step (s).
        mobile: names of robots whose base accepts ``set_base_velocity`` (default: the
            floating-base models).
    """

    def __init__(
        self,
        robots: Mapping[str, RobotModel | tuple[RobotModel, np.ndarray]],
        dt: float = 0.002,
        mobile: Sequence[str] | None = None,
    ) -> None:
        if not dt > 0:
            raise InputError(f"dt must be > 0 s, got {dt}")
        self._dt = float(dt)
        self._time = 0.0
        self._robots: dict[str, _KinRobot] = {}
        for name, spec in robots.items():
            model, T0 = spec if isinstance(spec, tuple) else (spec, np.eye(4))
            is_mobile = model.floating if mobile is None else name in mobile
            self._robots[name] = _KinRobot(name, model, np.asarray(T0, float), is_mobile)
        self._infos = {n: r.info for n, r in self._robots.items()}

    @property
    def dt(self) -> float:
        return self._dt

    @property
    def time(self) -> float:
        return self._time

    def robots(self) -> Mapping[str, RobotInfo]:
        return self._infos

    def _robot(self, name: str) -> _KinRobot:
        try:
            return self._robots[name]
        except KeyError:
            raise UnknownNameError("robot", name, self._robots) from None

    def step(self, n: int = 1) -> None:
        dt = self._dt
        for _ in range(n):
            for r in self._robots.values():
                q = r.state.q
                dq = np.clip(r.target - q, -r.vmax * dt, r.vmax * dt)
                dq = np.where(r.spinning, r.spin * dt, dq)
                q_new = q + dq
                r.qd = dq / dt
                if np.any(dq != 0.0):
                    r.state.set_q(q_new)
                if r.mobile and np.any(r.twist != 0.0):
                    T = r.state.T_world_root.copy()
                    yaw = math.atan2(T[1, 0], T[0, 0])
                    c, s = math.cos(yaw), math.sin(yaw)
                    vx, vy, om = r.twist
                    T[0, 3] += (c * vx - s * vy) * dt
                    T[1, 3] += (s * vx + c * vy) * dt
                    dyaw = om * dt
                    cz, sz = math.cos(dyaw), math.sin(dyaw)
                    Rz = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
                    T[:3, :3] = Rz @ T[:3, :3]
                    r.state.set_root(T)
            self._time += dt

    def state(self, robots: Sequence[str] | None = None) -> dict[str, Any]:
        names = list(self._robots) if robots is None else robots
        out: dict[str, Any] = {}
        for name in names:
            r = self._robot(name)
            jn = r.model.joint_names
            out[name] = {
                "base": pose_json(r.state.T_world_root),
                "joints": dict(zip(jn, r.state.q.tolist())),
                "velocities": dict(zip(jn, r.qd.tolist())),
            }
            if r.mobile:
                out[name]["base_velocity"] = dict(zip(("vx", "vy", "omega"), r.twist.tolist()))
        return out

    def link_poses(self, robot: str) -> dict[str, np.ndarray]:
        r = self._robot(robot)
        return dict(zip(r.model.link_names, r.state.link_poses()))

    def set_joint_targets(self, robot: str, targets: Mapping[str, float]) -> None:
        r = self._robot(robot)
        idx = [r.model.joint_index(n) for n in targets]
        vals = np.array(list(targets.values()), dtype=np.float64)
        lo, hi = r.model.lower[idx], r.model.upper[idx]
        bad = (vals < lo) | (vals > hi)
        if np.any(bad):
            k = int(np.argmax(bad))
            raise InputError(
                f"joint {list(targets)[k]!r} target {vals[k]:.6g} is outside "
                f"its limits [{lo[k]:.6g}, {hi[k]:.6g}]"
            )
        r.target[idx] = vals
        r.spinning[idx] = False

    def set_base_velocity(self, robot: str, vx: float, vy: float, omega: float) -> None:
        r = self._robot(robot)
        if not r.mobile:
            raise InputError(
                f"robot {robot!r} has a fixed base; mobile robots: "
                f"{', '.join(n for n, x in self._robots.items() if x.mobile) or 'none'}"
            )
        r.twist = np.array([vx, vy, omega], dtype=np.float64)

    def set_wheel_speeds(self, robot: str, speeds: Mapping[str, float]) -> None:
        r = self._robot(robot)
        for n in speeds:
            if n not in r.wheel_idx:
                raise UnknownNameError(f"wheel of robot {robot!r}", n, r.wheel_idx)
        for n, v in speeds.items():
            i = r.wheel_idx[n]
            r.spin[i] = float(v)
            r.spinning[i] = True

    def reset(self) -> None:
        for r in self._robots.values():
            r.reset()
        self._time = 0.0
