"""The velocity and acceleration limits a plan keeps, per robot and joint.

A model's finite velocity limits are used as they are (URDF ``<limit velocity>``, MJCF
ranges). Robot files rarely give accelerations, and DH tables give neither, so a limit
the model does not state is taken from the robot's own planned trajectory, which is
assumed to be allowed: its peak speed (resp. acceleration) on that joint, but at least
``min_velocity`` (resp. ``accel_per_velocity`` times the velocity limit, i.e. full speed
in ``1 / accel_per_velocity`` s). :attr:`JointLimits.source` says which for every joint;
``summary.json`` reports them. Planned motion never needs more than these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from robotsim.clearance.trajectory import Trajectory
from robotsim.errors import InputError
from robotsim.model.geometry import readonly
from robotsim.model.robot import RobotModel

__all__ = ["QUINTIC_ACCEL", "QUINTIC_SPEED", "JointLimits", "joint_limits", "peak_rates"]

#: Peak speed and acceleration of the rest-to-rest quintic over ``|dq|/T`` and ``|dq|/T^2``.
QUINTIC_SPEED = 1.875
QUINTIC_ACCEL = 10.0 / math.sqrt(3.0)


@dataclass(frozen=True, eq=False)
class JointLimits:
    """``velocity``, ``acceleration`` ``(nq,)`` (rad/s, rad/s^2 or m/s, m/s^2) and per
    joint where each came from: ``"model"`` or ``"trajectory"``."""

    joints: tuple[str, ...]
    velocity: np.ndarray
    acceleration: np.ndarray
    velocity_source: tuple[str, ...]
    acceleration_source: tuple[str, ...]

    def __post_init__(self) -> None:
        for name in ("velocity", "acceleration"):
            v = np.asarray(getattr(self, name), dtype=np.float64)
            if v.shape != (len(self.joints),) or not np.all(np.isfinite(v) & (v > 0)):
                raise InputError(f"{name} limits must be finite and > 0, one per joint")
            object.__setattr__(self, name, readonly(v))

    def quintic_duration(self, dq: np.ndarray) -> np.ndarray:
        """The shortest rest-to-rest quintic ``(...)`` (s) for moves ``dq (..., nq)``
        within both limits."""
        a = np.abs(dq)
        return np.maximum(
            np.max(QUINTIC_SPEED * a / self.velocity, axis=-1),
            np.sqrt(np.max(QUINTIC_ACCEL * a / self.acceleration, axis=-1)),
        )

    def summary(self) -> dict[str, object]:
        return {
            "joints": list(self.joints),
            "velocity": self.velocity.tolist(),
            "acceleration": self.acceleration.tolist(),
            "velocity_source": list(self.velocity_source),
            "acceleration_source": list(self.acceleration_source),
        }


def peak_rates(
    traj: Trajectory, t0: float, t1: float, samples: int = 2001
) -> tuple[np.ndarray, np.ndarray]:
    """Peak ``|dq/dt|`` and ``|d2q/dt2|`` ``(nq,)`` of a trajectory over ``[t0, t1]`` (s),
    by central differences on ``samples`` points (the accelerations of a trajectory
    with kinks, such as a warp's ramp ends, are the one-sided ones)."""
    if not t1 > t0:
        return np.zeros(len(traj.q(np.zeros(1))[0])), np.zeros(len(traj.q(np.zeros(1))[0]))
    t = np.linspace(t0, t1, samples)
    h = t[1] - t[0]
    q = traj.q(t)
    v = np.abs(np.diff(q, axis=0)) / h
    a = np.abs(np.diff(q, 2, axis=0)) / (h * h)
    return v.max(axis=0), a.max(axis=0)


def joint_limits(
    model: RobotModel,
    traj: Trajectory,
    *,
    min_velocity: float = 0.5,
    accel_per_velocity: float = 4.0,
) -> JointLimits:
    """Limits of ``model``'s joints (see the module): the model's velocity limits where
    finite, else the trajectory's peak speed (at least ``min_velocity``); accelerations
    from the trajectory's peak (at least ``accel_per_velocity`` x velocity limit)."""
    t0 = traj.start if traj.warp is None else float(traj.warp.inverse(traj.start))
    v_peak, a_peak = peak_rates(traj, t0, traj.end)
    vm = np.asarray(model.velocity_limits, dtype=np.float64)
    finite = np.isfinite(vm)
    vel = np.where(finite, vm, np.maximum(v_peak * 1.001, min_velocity))
    acc = np.maximum(a_peak * 1.001, accel_per_velocity * vel)
    return JointLimits(
        joints=tuple(model.joint_names),
        velocity=vel,
        acceleration=acc,
        velocity_source=tuple("model" if f else "trajectory" for f in finite),
        acceleration_source=tuple(
            "trajectory" if a_peak[k] * 1.001 >= accel_per_velocity * vel[k] else "default"
            for k in range(len(vel))
        ),
    )
