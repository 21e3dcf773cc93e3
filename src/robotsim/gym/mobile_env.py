"""The mobile task: drive one robot of a ``kind: mobile`` scenario to its goal among the
scenario's obstacles, in its MuJoCo world (the scenario's other robots follow their own
controllers).

- **action**: the body twist, scaled to ``[-1, 1]``: ``(vx, vy, w)`` for a holonomic
  drive, ``(vx, w)`` for a differential one (the robot profile's drive); ``1`` is the
  scenario controller's ``max_speed`` per axis (1 m/s, 2 rad/s where it sets none);
  accelerations are limited as the controller's are.
- **observation** (10 floats): the goal in the robot's frame ``(dx, dy)`` (m), the
  sine and cosine of the heading error, the measured body twist ``(vx, vy, w)``, the
  nearest obstacle's centre in the robot's frame ``(dx, dy)`` and its clearance (m;
  10 m without obstacles).
- **metrics** (for the reward, :mod:`robotsim.gym.reward`): ``goal_distance`` (m),
  ``progress`` (m closer this step), ``heading_error`` (rad), ``clearance`` (m),
  ``collisions`` (new contacts with obstacles this step), ``reached`` (1 at the goal),
  ``speed`` (m/s). Default reward: ``progress``.
- **ends**: ``terminated`` at the goal (the controller's tolerances); ``truncated`` at
  the scenario's duration.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from robotsim.errors import UnknownNameError
from robotsim.gym.reward import RewardSpec

__all__ = ["MobileGoalEnv"]


class MobileGoalEnv(gym.Env):  # type: ignore[type-arg]
    """See the module doc. Made by :func:`robotsim.gym.make`."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        data: dict[str, Any],
        source: str,
        robot: str | None = None,
        reward: Any = "progress",
        start_noise: float = 0.0,
    ) -> None:
        from robotsim.control.wheeled_base import MobileBase
        from robotsim.mobile.build import build_mobile, make_controller
        from robotsim.mobile.contacts import ForbiddenContacts
        from robotsim.mobile.load import load_mobile
        from robotsim.physics import World

        sc, robots, obstacles = load_mobile(data, source)
        names = [rb.name for rb in robots]
        if robot is None:
            robot = names[0]
        if robot not in names:
            raise UnknownNameError("robot of the scenario", robot, names)
        self.sc, self.robots, self.source = sc, robots, source
        self.index = names.index(robot)
        self.robot = robot
        self.start_noise = float(start_noise)
        self.world = World(build_mobile(sc, robots, obstacles, source), seed=sc.seed)
        self.bases = [MobileBase(self.world, n) for n in names]
        self.controllers = [
            make_controller(sc, rb, obstacles, b.holonomic) for rb, b in zip(robots, self.bases)
        ]
        h = self.world.timestep
        self.steps_per_tick = max(1, round((1.0 / sc.control_rate) / h))
        self.tick = self.steps_per_tick * h
        self.max_steps = max(1, round(sc.duration / self.tick))
        obs_names = {f"obstacle{i + 1}" for i in range(len(obstacles))} | {
            o.name for o in sc.objects
        }
        self.contacts = ForbiddenContacts(self.world, names, obs_names)
        self.obstacles = np.asarray(obstacles, dtype=np.float64).reshape(-1, 3)
        self._obstacle_list = [tuple(o) for o in self.obstacles.tolist()]
        self.radius = float(robots[self.index].radius)
        ctrl = self.controllers[self.index]
        lim = ctrl.config.limits
        self.holonomic = self.bases[self.index].holonomic
        scale = [lim[0].max_speed, lim[1].max_speed, lim[2].max_speed]
        default = (1.0, 1.0, 2.0)
        self.scale = np.array([s if math.isfinite(s) else d for s, d in zip(scale, default)])
        self._scale = self.scale.tolist()
        n_act = 3 if self.holonomic else 2
        self.action_space = gym.spaces.Box(-1.0, 1.0, (n_act,), np.float32)
        # finite bounds: distances within the field (twice its diagonal), speeds within
        # ten times the limits
        span = 2.0 * float(np.hypot(*sc.field.size)) + 10.0
        v = 10.0 * float(max(self.scale[:2])) + 1.0
        w = 10.0 * float(self.scale[2]) + 1.0
        self.obs_high = np.array([span, span, 1, 1, v, v, w, span, span, span], np.float32)
        self.obs_low = -self.obs_high
        self.obs_low[9] = -span
        self.observation_space = gym.spaces.Box(self.obs_low, self.obs_high, dtype=np.float32)
        self.reward_spec = RewardSpec.parse(reward)
        self.reward_spec.check(self._metrics(0.0, 0.0, 0.0, 0.0, 0, False, 0.0))
        self._steps = 0
        self._dist = 0.0
        self._touching = self.contacts._none

    # -- helpers --------------------------------------------------------------------------
    def _goal_error(self, x: float, y: float, th: float) -> tuple[float, float, float, float]:
        gx, gy, gth = self.controllers[self.index].goal.tolist()
        dx, dy = gx - x, gy - y
        c, s = math.cos(th), math.sin(th)
        dth = math.atan2(math.sin(gth - th), math.cos(gth - th))
        return c * dx + s * dy, -s * dx + c * dy, dth, math.hypot(dx, dy)

    def _nearest(self, x: float, y: float, th: float) -> tuple[float, float, float]:
        best, ox, oy = math.inf, 0.0, 0.0
        hypot = math.hypot
        for px, py, r in self._obstacle_list:  # floats: cheaper than NumPy for tens
            dx, dy = px - x, py - y
            d = hypot(dx, dy) - r
            if d < best:
                best, ox, oy = d, dx, dy
        if best == math.inf:
            return 0.0, 0.0, 10.0
        c, s = math.cos(th), math.sin(th)
        return c * ox + s * oy, -s * ox + c * oy, best - self.radius

    @staticmethod
    def _metrics(
        dist: float, progress: float, dth: float, gap: float, hits: int, reached: bool, speed: float
    ) -> dict[str, float]:
        return {
            "goal_distance": dist,
            "progress": progress,
            "heading_error": abs(dth),
            "clearance": gap,
            "collisions": float(hits),
            "reached": float(reached),
            "speed": speed,
        }

    def _observe(self) -> tuple[np.ndarray, tuple[float, ...]]:
        base = self.bases[self.index]
        x, y, th = base.pose_xyt()
        gx, gy, dth, dist = self._goal_error(x, y, th)
        vx, vy, w = base.twist_xyw()
        ox, oy, gap = self._nearest(x, y, th)
        obs = np.array(
            [gx, gy, math.sin(dth), math.cos(dth), vx, vy, w, ox, oy, gap], dtype=np.float32
        )
        return obs, (x, y, th, dth, dist, gap, math.hypot(vx, vy))

    # -- the Gymnasium API ------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.world.reset()
        for c in self.controllers:
            c.reset()
        noise = float((options or {}).get("start_noise", self.start_noise))
        if noise > 0:  # move the controlled robot's start, seeded
            base = self.bases[self.index].base
            p = base.position
            dxy = self.np_random.uniform(-noise, noise, 2)
            yaw = float(self.np_random.uniform(-math.pi, math.pi))
            base.set_pose(
                [p[0] + dxy[0], p[1] + dxy[1], p[2]],
                [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)],
            )
        self._steps = 0
        self._touching = self.contacts.touching()
        obs, state = self._observe()
        self._dist = state[4]
        return obs, {"goal_distance": state[4], "t": self.world.time}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        # Python floats from here on: for two or three numbers they cost a fraction
        # of NumPy's per-call overhead (the step is a few MuJoCo steps plus this)
        a = np.asarray(action, dtype=np.float64).reshape(-1).tolist()
        if len(a) != self.action_space.shape[0]:
            raise ValueError(f"action must have shape {self.action_space.shape}, got ({len(a)},)")
        a = [-1.0 if v < -1.0 else 1.0 if v > 1.0 else v for v in a]
        sx, sy, sw = self._scale
        cmd = [a[0] * sx, a[1] * sy, a[2] * sw] if self.holonomic else [a[0] * sx, 0.0, a[1] * sw]
        tick = self.tick
        for i, (base, ctrl) in enumerate(zip(self.bases, self.controllers)):
            if i == self.index:
                base.set_twist_xyw(*ctrl.limiter.limit(cmd, tick))
            else:
                base.set_twist_xyw(*ctrl.command_xyt(*base.pose_xyt(), tick))
        self.world.step(self.steps_per_tick)
        touching = self.contacts.touching()
        hits = (
            int(np.count_nonzero(touching[self.index] & ~self._touching[self.index]))
            if touching is not self._touching
            else 0
        )
        self._touching = touching
        self._steps += 1
        obs, (x, y, th, dth, dist, gap, speed) = self._observe()
        reached = self.controllers[self.index].at_goal_xyt(x, y, th)
        metrics = self._metrics(dist, self._dist - dist, dth, gap, hits, reached, speed)
        self._dist = dist
        reward = self.reward_spec(metrics)
        truncated = self._steps >= self.max_steps and not reached
        info = {"t": self.world.time, "metrics": metrics}
        return obs, reward, bool(reached), bool(truncated), info
