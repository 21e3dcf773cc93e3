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
from robotsim.control.pid import PIDGains, PosePID, scaled_gains
from robotsim.errors import InputError

__all__ = ["MobileController", "MobileControllerConfig"]


def _wrap(a: float) -> float:
    """An angle (rad) wrapped to ``(-pi, pi]`` (:func:`~robotsim.control.pid.wrap_angle`
    on one float)."""
    return math.pi - (math.pi - a) % (2 * math.pi)


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

    def set_scales(self, gain: float = 1.0, max_speed: float = 1.0) -> None:
        """Live tuning: the PID gains at ``gain`` x the configured ones and the speed
        limits at ``max_speed`` x (the live parameters of :mod:`robotsim.teleop.params`
        entered from the gamepad or keyboard); 1, 1 restores the configuration."""
        self.pid.set_gains(*(scaled_gains(g, gain) for g in self.config.gains))
        self.limiter.set_speed_scale(max_speed)

    def reset(self) -> None:
        self.pid.reset()
        self.limiter.reset()
        self._heading = None
        self.follower = None  # rebuilt from the next pose

    def at_goal(self, pose: ArrayLike) -> bool:
        """Within the position and heading tolerances."""
        x, y, th = np.asarray(pose, dtype=np.float64).reshape(3).tolist()
        return self.at_goal_xyt(x, y, th)

    def at_goal_xyt(self, x: float, y: float, theta: float) -> bool:
        """:meth:`at_goal` on floats (m, m, rad)."""
        gx, gy, gth = self.goal.tolist()
        d = math.hypot(gx - x, gy - y)
        e = gth - theta
        dth = abs(math.pi - (math.pi - e) % (2 * math.pi))
        return d <= self.config.position_tolerance and dth <= self.config.heading_tolerance

    def command(self, pose: ArrayLike, dt: float) -> np.ndarray:
        """Body-frame twist ``[vx, vy, w]`` (m/s, m/s, rad/s) for the next ``dt`` s."""
        x, y, th = np.asarray(pose, dtype=np.float64).reshape(3).tolist()
        return np.array(self.command_xyt(x, y, th, dt))

    def command_xyt(self, x: float, y: float, theta: float, dt: float) -> list[float]:
        """:meth:`command` on floats: pose (m, m, rad) -> ``[vx, vy, w]``. The whole
        tick is float arithmetic (plus one compiled VFH call); the same operations in
        the same order as the NumPy form it replaced, but for ``math.hypot``."""
        cfg = self.config
        gx, gy, gth = self.goal.tolist()
        tx, ty = gx, gy
        if self._path is not None and self.follower is None:  # the path starts where we are
            pts = np.vstack([[x, y], self._path, [gx, gy]])
            self.follower = PathFollower(pts, cfg.lookahead)
        if self.follower is not None:
            if math.hypot(gx - x, gy - y) > cfg.lookahead:
                tx, ty = self.follower.target(np.array([x, y])).tolist()
        ux, uy, uw = self.pid.command(x, y, theta, tx, ty, gth, dt)
        lx, ly = cfg.limits[0].max_speed, cfg.limits[1].max_speed
        if self.avoid is not None and len(self.obstacles):
            speed = math.hypot(ux, uy)
            vmax = lx if lx < ly else ly
            if speed > vmax:
                speed = vmax
            if isinstance(self.avoid, VFH):
                dx, dy, factor = self.avoid.decide(x, y, tx, ty, self.obstacles, self._heading)
            else:
                (dx, dy), factor = self.avoid(
                    np.array([x, y, theta]), np.array([tx, ty, gth]), self.obstacles
                )
                dx, dy = float(dx), float(dy)
            ux, uy = dx * speed * factor, dy * speed * factor
            if speed > 1e-6:
                self._heading = math.atan2(dy, dx)
        if cfg.holonomic:
            c, s = math.cos(theta), math.sin(theta)
            bx, by = c * ux + s * uy, -s * ux + c * uy
            # keep the direction of travel: scale both axes when one exceeds its limit
            over = abs(bx) / lx
            over_y = abs(by) / ly
            if over_y > over:
                over = over_y
            if over > 1.0:
                bx, by = bx / over, by / over
            body = [bx, by, uw]
        else:
            body = self._nonholonomic(x, y, theta, ux, uy, uw)
        return self.limiter.limit(body, dt)

    def _nonholonomic(
        self, x: float, y: float, theta: float, ux: float, uy: float, uw: float
    ) -> list[float]:
        speed = math.hypot(ux, uy)
        gx, gy = float(self.goal[0]), float(self.goal[1])
        far = math.hypot(gx - x, gy - y) > self.config.position_tolerance
        if far and speed > 1e-3:
            err = _wrap(math.atan2(uy, ux) - theta)
            if abs(err) > math.pi / 2 and not self._obstacle_near(np.array([x, y])):
                err = _wrap(err)  # still turn towards it: no reversing
            v = speed * max(math.cos(err), 0.0)
            w = self.config.gains[2].kp * err
            return [v, 0.0, w]
        return [0.0, 0.0, uw]

    def _obstacle_near(self, p: np.ndarray) -> bool:
        if len(self.obstacles) == 0:
            return False
        d = np.linalg.norm(self.obstacles[:, :2] - p[:2], axis=1) - self.obstacles[:, 2]
        return bool(d.min() < self.config.robot_radius + self.config.safety_margin)
