"""Goal and path control of a planar mobile base: PID per axis, avoidance, limits.

:class:`MobileController` turns the base pose ``(x, y, theta)`` into a body-frame twist
``[vx, vy, w]`` each control period:

1. the target point is the goal, or on a path the look-ahead carrot until the goal is
   within the look-ahead distance;
2. :class:`~robotsim.control.pid.PosePID` gives a world-frame command from the pose
   error (gains per axis);
3. with avoidance, the translation keeps the PID's speed (at most the maximum speed) but
   takes the direction chosen by the potential field or VFH, slowed near obstacles;
4. holonomic bases (omni) get the command rotated into the body frame, both axes scaled
   together when one exceeds its maximum speed (the direction is kept); differential
   drives turn towards the commanded direction and drive forward when roughly facing it;
5. :class:`~robotsim.control.limits.RateLimiter` applies per-axis max speed,
   acceleration and deceleration in the body frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from robotsim.control.avoidance import VFH, PotentialField
from robotsim.control.limits import AxisLimit, RateLimiter
from robotsim.control.path import PathFollower
from robotsim.control.pid import PIDGains, PosePID, wrap_angle
from robotsim.errors import InputError

__all__ = ["MobileController", "MobileControllerConfig"]


def _default_gains() -> tuple[PIDGains, PIDGains, PIDGains]:
    return (PIDGains(kp=1.0), PIDGains(kp=1.0), PIDGains(kp=2.0))


def _default_limits() -> tuple[AxisLimit, AxisLimit, AxisLimit]:
    return (AxisLimit(1.5, 1.5, 2.0), AxisLimit(1.5, 1.5, 2.0), AxisLimit(3.0, 6.0, 8.0))


@dataclass(frozen=True)
class MobileControllerConfig:
    """Controller settings. ``gains`` and ``limits`` are per axis (x, y, theta); limits
    apply to the body-frame command (m/s, m/s^2; rad/s, rad/s^2)."""

    gains: tuple[PIDGains, PIDGains, PIDGains] = field(default_factory=_default_gains)
    limits: tuple[AxisLimit, AxisLimit, AxisLimit] = field(default_factory=_default_limits)
    avoidance: Literal["none", "potential", "vfh"] = "none"
    robot_radius: float = 0.3
    safety_margin: float = 0.25
    position_tolerance: float = 0.05
    heading_tolerance: float = math.radians(3.0)
    lookahead: float = 0.8
    holonomic: bool = True

    def __post_init__(self) -> None:
        if self.avoidance not in ("none", "potential", "vfh"):
            raise InputError(f"avoidance {self.avoidance!r}: valid: none, potential, vfh")
        if not (self.position_tolerance > 0 and self.heading_tolerance > 0):
            raise InputError("goal tolerances must be > 0")


class MobileController:
    """Drives a base to ``goal`` ``(x, y, theta)``, optionally along ``path`` ``(N, 2)``,
    avoiding ``obstacles`` ``(N, 3)`` ``[x, y, radius]``."""

    def __init__(
        self,
        config: MobileControllerConfig,
        goal: ArrayLike,
        path: ArrayLike | None = None,
        obstacles: ArrayLike | None = None,
    ) -> None:
        self.config = config
        self.goal = np.asarray(goal, dtype=np.float64).reshape(3)
        self.follower: PathFollower | None = None
        self._path: np.ndarray | None = None
        if path is not None and len(np.asarray(path)) > 0:
            self._path = np.asarray(path, dtype=np.float64).reshape(-1, 2)
        obs = np.zeros((0, 3)) if obstacles is None else np.asarray(obstacles, dtype=float)
        self.obstacles = obs.reshape(-1, 3)
        self.pid = PosePID(*config.gains)
        self.limiter = RateLimiter(config.limits)
        r, s = config.robot_radius, config.safety_margin
        self.avoid: PotentialField | VFH | None = {
            "none": None,
            "potential": PotentialField(robot_radius=r, influence=2 * s + 0.5),
            "vfh": VFH(robot_radius=r, safety=s),
        }[config.avoidance]
        self._heading: float | None = None

    def reset(self) -> None:
        self.pid.reset()
        self.limiter.reset()
        self._heading = None
        self.follower = None  # rebuilt from the next pose

    def at_goal(self, pose: ArrayLike) -> bool:
        """Within the position and heading tolerances."""
        p = np.asarray(pose, dtype=np.float64)
        d = math.hypot(self.goal[0] - p[0], self.goal[1] - p[1])
        e = self.goal[2] - p[2]
        dth = abs(math.pi - (math.pi - e) % (2 * math.pi))
        return d <= self.config.position_tolerance and dth <= self.config.heading_tolerance

    def command(self, pose: ArrayLike, dt: float) -> np.ndarray:
        """Body-frame twist ``[vx, vy, w]`` (m/s, m/s, rad/s) for the next ``dt`` s."""
        p = np.asarray(pose, dtype=np.float64).reshape(3)
        target = self.goal.copy()
        if self._path is not None and self.follower is None:  # the path starts where we are
            pts = np.vstack([p[:2], self._path, self.goal[:2]])
            self.follower = PathFollower(pts, self.config.lookahead)
        if self.follower is not None:
            dist_goal = float(np.hypot(*(self.goal[:2] - p[:2])))
            if dist_goal > self.config.lookahead:
                target[:2] = self.follower.target(p)
        u = self.pid(p, target, dt)
        vmax = min(self.config.limits[0].max_speed, self.config.limits[1].max_speed)
        if self.avoid is not None and len(self.obstacles):
            speed = min(float(np.hypot(u[0], u[1])), vmax)
            if isinstance(self.avoid, VFH):
                direction, factor = self.avoid(p, target, self.obstacles, self._heading)
            else:
                direction, factor = self.avoid(p, target, self.obstacles)
            u[:2] = direction * speed * factor
            if speed > 1e-6:
                self._heading = math.atan2(direction[1], direction[0])
        c, s = math.cos(p[2]), math.sin(p[2])
        if self.config.holonomic:
            body = np.array([c * u[0] + s * u[1], -s * u[0] + c * u[1], u[2]])
            # keep the direction of travel: scale both axes when one exceeds its limit
            over = max(
                abs(body[0]) / self.config.limits[0].max_speed,
                abs(body[1]) / self.config.limits[1].max_speed,
                1.0,
            )
            body[:2] /= over
        else:
            body = self._nonholonomic(p, u)
        return self.limiter(body, dt)

    def _nonholonomic(self, p: np.ndarray, u: np.ndarray) -> np.ndarray:
        speed = float(np.hypot(u[0], u[1]))
        far = float(np.hypot(*(self.goal[:2] - p[:2]))) > self.config.position_tolerance
        if far and speed > 1e-3:
            err = float(wrap_angle(math.atan2(u[1], u[0]) - p[2]))
            if abs(err) > math.pi / 2 and not self._obstacle_near(p):
                err = float(wrap_angle(err))  # still turn towards it: no reversing
            v = speed * max(math.cos(err), 0.0)
            w = self.config.gains[2].kp * err
            return np.array([v, 0.0, w])
        return np.array([0.0, 0.0, u[2]])

    def _obstacle_near(self, p: np.ndarray) -> bool:
        if len(self.obstacles) == 0:
            return False
        d = np.linalg.norm(self.obstacles[:, :2] - p[:2], axis=1) - self.obstacles[:, 2]
        return bool(d.min() < self.config.robot_radius + self.config.safety_margin)
