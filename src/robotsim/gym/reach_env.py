"""The arm-reach task: bring the tool of one arm of a ``kind: clearance`` scenario's
robot to a target, with our kinematics (no dynamics; fast).

The arm is the robot profile's first arm (its joints and tool frame,
:mod:`robotsim.profile`); the robot stands at its scenario base pose and starts at the
scenario's start configuration. Each reset draws a target the arm can reach: the tool
position of a random configuration within the joint limits (seeded).

- **action**: a joint velocity per arm joint, scaled to ``[-1, 1]`` (``1``: the
  joint's velocity limit; 1.5 rad/s or 0.5 m/s where it has none); one step is
  :data:`DT` s; joints stop at their limits.
- **observation** (``3 n + 7`` floats, ``n`` arm joints): the joint values (rad or m),
  their velocities, the joint values scaled to ``[-1, 1]`` over their limits, the
  tool position (m, world), the target minus the tool (m) and the distance (m).
- **metrics**: ``distance`` (m), ``progress`` (m closer this step), ``reached`` (1
  within :data:`TOLERANCE`), ``effort`` (the action's squared norm). Default reward:
  ``-distance``.
- **ends**: ``terminated`` within :data:`TOLERANCE` of the target; ``truncated`` after
  :data:`MAX_STEPS` steps.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from robotsim.errors import InputError, UnknownNameError
from robotsim.gym.reward import RewardSpec

__all__ = ["DT", "MAX_STEPS", "TOLERANCE", "ArmReachEnv"]

DT = 0.05
MAX_STEPS = 200
TOLERANCE = 0.02


class ArmReachEnv(gym.Env):  # type: ignore[type-arg]
    """See the module doc. Made by :func:`robotsim.gym.make`."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        data: dict[str, Any],
        source: str,
        robot: str | None = None,
        reward: Any = "-distance",
    ) -> None:
        from robotsim.clearance.scenario import ClearanceScenario, build
        from robotsim.errors import ScenarioError
        from robotsim.profile.resolve import resolve_profile
        from robotsim.validation import validate_as

        spec = validate_as(ClearanceScenario, data, source, ScenarioError)
        loaded = build(spec, source)
        names = [r.name for r in loaded.scene.robots]
        robot = names[0] if robot is None else robot
        if robot not in names:
            raise UnknownNameError("robot of the scenario", robot, names)
        placed = next(r for r in loaded.scene.robots if r.name == robot)
        model = placed.model
        arms = resolve_profile(model).arms
        if not arms:
            raise InputError(f"{source}: robot {robot!r} ({model.name}): its profile has no arm")
        arm = arms[0]
        self.model, self.robot, self.arm = model, robot, arm
        self.T_base = np.asarray(placed.T_world_base, dtype=np.float64)
        self.q_start = np.asarray(loaded.trajectories[robot].q(0.0), dtype=np.float64).reshape(-1)
        self.idx = np.array([model.joint_index(j) for j in arm.joints], dtype=np.intp)
        self.lower = np.asarray(model.lower, dtype=np.float64)[self.idx]
        self.upper = np.asarray(model.upper, dtype=np.float64)[self.idx]
        prismatic = np.asarray(model.prismatic_mask)[self.idx]
        vel = np.array([model.joint(j).limits.velocity for j in arm.joints], dtype=np.float64)
        self.vmax = np.where(np.isfinite(vel) & (vel > 0), vel, np.where(prismatic, 0.5, 1.5))
        # a sampling range for targets: the limits, or a turn either way where unbounded
        self.lo = np.where(np.isfinite(self.lower), self.lower, -math.pi)
        self.hi = np.where(np.isfinite(self.upper), self.upper, math.pi)
        self.tool_link, self.T_tool = arm.tool.link, arm.tool.T
        n = len(arm.joints)
        self.action_space = gym.spaces.Box(-1.0, 1.0, (n,), np.float32)
        # finite bounds: the joints' ranges, their speeds, the arm's reach round its base
        reach = self._reach()
        base = self.T_base[:3, 3]
        self.obs_low = np.concatenate(
            [self.lo, -self.vmax, -np.ones(n), base - reach, -2 * reach * np.ones(3), [0.0]]
        ).astype(np.float32)
        self.obs_high = np.concatenate(
            [self.hi, self.vmax, np.ones(n), base + reach, 2 * reach * np.ones(3), [2 * reach]]
        ).astype(np.float32)
        self.observation_space = gym.spaces.Box(self.obs_low, self.obs_high, dtype=np.float32)
        self.reward_spec = RewardSpec.parse(reward)
        self.reward_spec.check(self._metrics(0.0, 0.0, 0.0))
        self.q = self.q_start.copy()
        self.qd = np.zeros(n)
        self.target = self._tool(self.q)
        self._dist = 0.0
        self._steps = 0

    def _reach(self) -> float:
        """A bound on the tool's distance from the base: the sum of the joint offsets
        along the chain plus the tool offset, with a margin."""
        T = np.asarray(self.model.fk_all(self.q_start))
        pts = T[:, :3, 3]
        chain = float(np.sum(np.linalg.norm(np.diff(pts, axis=0), axis=1)))
        prismatic = np.asarray(self.model.prismatic_mask)
        travel = float(
            np.sum(
                np.where(prismatic, np.abs(self.model.upper - self.model.lower), 0),
                where=np.isfinite(self.model.upper - self.model.lower),
            )
        )
        return 1.5 * (chain + float(np.linalg.norm(self.T_tool[:3, 3])) + travel) + 0.5

    def _tool(self, q: np.ndarray) -> np.ndarray:
        T = self.T_base @ np.asarray(self.model.fk(q, self.tool_link)) @ self.T_tool
        return np.asarray(T[:3, 3])

    @staticmethod
    def _metrics(dist: float, progress: float, effort: float) -> dict[str, float]:
        return {
            "distance": dist,
            "progress": progress,
            "reached": float(dist <= TOLERANCE),
            "effort": effort,
        }

    def _observe(self) -> tuple[np.ndarray, float]:
        qa = self.q[self.idx]
        tool = self._tool(self.q)
        err = self.target - tool
        dist = float(np.linalg.norm(err))
        scaled = 2.0 * (qa - self.lo) / (self.hi - self.lo) - 1.0
        obs = np.concatenate([qa, self.qd, scaled, tool, err, [dist]]).astype(np.float32)
        return np.clip(obs, self.obs_low, self.obs_high), dist

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.q = self.q_start.copy()
        self.qd = np.zeros(len(self.idx))
        target = (options or {}).get("target")
        if target is not None:
            self.target = np.asarray(target, dtype=np.float64).reshape(3)
        else:
            qt = self.q_start.copy()
            qt[self.idx] = self.np_random.uniform(self.lo, self.hi)
            self.target = self._tool(qt)
        self._steps = 0
        obs, self._dist = self._observe()
        return obs, {"target": self.target.tolist(), "distance": self._dist}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        a = np.clip(np.asarray(action, dtype=np.float64).reshape(-1), -1.0, 1.0)
        if a.shape != self.action_space.shape:
            raise ValueError(f"action must have shape {self.action_space.shape}, got {a.shape}")
        old = self.q[self.idx]
        new = np.clip(old + a * self.vmax * DT, self.lower, self.upper)
        self.q[self.idx] = new
        self.qd = (new - old) / DT
        self._steps += 1
        obs, dist = self._observe()
        metrics = self._metrics(dist, self._dist - dist, float(a @ a))
        self._dist = dist
        reached = dist <= TOLERANCE
        truncated = self._steps >= MAX_STEPS and not reached
        return obs, self.reward_spec(metrics), bool(reached), bool(truncated), {"metrics": metrics}
