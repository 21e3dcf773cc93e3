"""The humanoid-balance task: keep a legged robot standing on position servos in its
MuJoCo world, from a ``kind: motion_check`` scenario (its program's robot, the
profile's servo gains and floor friction with the scenario's overrides).

The robot starts in its ``stand`` (else ``home``, ``ready``, the zero) pose, set down
on the floor; each reset adds small seeded joint offsets (``start_noise`` rad).

- **action**: a joint offset per joint from the stand pose, scaled to ``[-1, 1]``
  (``1``: :data:`OFFSET` rad, or the joint range if smaller); the servos track it.
- **observation** (``2 n + 10`` floats): joint values (rad or m) and velocities, the
  root link's height (m), gravity's direction in the root frame (3), the root's
  angular velocity (rad/s, root frame; 3) and linear velocity (m/s, world; 3).
- **metrics**: ``height`` (m), ``upright`` (cosine of the root's tilt), ``tilt``
  (rad), ``alive`` (1 while standing), ``effort`` (squared action norm). Default
  reward: ``upright``.
- **ends**: ``terminated`` when it fell: the root below :data:`FALL_HEIGHT` of its
  standing height, or tilted past :data:`FALL_TILT`; ``info["fell"]`` says which and
  with what numbers. ``truncated`` after :data:`MAX_STEPS` steps of :data:`DT` s.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from robotsim.errors import InputError, ScenarioError
from robotsim.gym.reward import RewardSpec

__all__ = ["DT", "FALL_HEIGHT", "FALL_TILT", "MAX_STEPS", "OFFSET", "HumanoidBalanceEnv"]

DT = 0.02
MAX_STEPS = 500
OFFSET = 0.3
FALL_HEIGHT = 0.6
FALL_TILT = math.radians(50.0)
ROBOT = "robot"


class HumanoidBalanceEnv(gym.Env):  # type: ignore[type-arg]
    """See the module doc. Made by :func:`robotsim.gym.make`."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        data: dict[str, Any],
        source: str,
        robot: str | None = None,
        reward: Any = "upright",
        start_noise: float = 0.02,
    ) -> None:
        from robotsim.model import load_robot
        from robotsim.motion.check_kind import MotionCheckScenario
        from robotsim.motion.profile import PhysicsSpec, motion_profile
        from robotsim.motion.schema import load_program
        from robotsim.physics import ContactSurface, Motor, RobotPlacement, Scene, World
        from robotsim.validation import validate_as

        sc = validate_as(MotionCheckScenario, data, source, ScenarioError)
        if robot is None:
            robot = sc.robot
        if robot is None:
            base = Path(source).resolve().parent if Path(source).is_file() else Path.cwd()
            robot = load_program((base / sc.program).resolve()).robot
        if robot is None:
            raise ScenarioError(f"{source}: robot: neither the scenario nor its program names one")
        model, profile = motion_profile(load_robot(robot))
        if not profile.soles:
            raise InputError(f"{source}: robot {model.name}: no feet in its profile to stand on")
        ph = validate_as(
            PhysicsSpec,
            {**profile.physics.model_dump(), **sc.physics},
            f"{source}: physics",
            ScenarioError,
        )
        self.model = model
        self.start_noise = float(start_noise)
        stand = next((p for p in ("stand", "home", "ready") if p in model.poses), None)
        q0 = model.pose(stand) if stand else np.clip(model.zero(), model.lower, model.upper)
        self.q_stand = np.asarray(q0, dtype=np.float64)
        motors = {}
        for jn in model.joint_names:
            kp, kv, tau = ph.gains(jn)
            motors[jn] = Motor("position", gain=kp, damping=kv, force=tau)
        from robotsim.physics.freebase import on_ground

        T0 = on_ground(model, np.eye(4), self.q_stand)
        T0[2, 3] += 1e-4  # just above the floor, not in it
        placement = RobotPlacement(
            ROBOT,
            model,
            T0,
            q0=dict(zip(model.joint_names, q0.tolist())),
            motors=motors,
            collide_with_robots=False,
        )
        scene = Scene(
            robots=(placement,),
            timestep=ph.timestep,
            default_surface=ContactSurface(mu=ph.friction),
            name="balance",
        )
        self.world = World(scene)
        w = self.world
        self.joints = [w.joint(f"{ROBOT}/{j}") for j in model.joint_names]
        self.motors = [w.motor(f"{ROBOT}/{j}") for j in model.joint_names]
        self.root = w.body(f"{ROBOT}/{model.root}")
        self.steps_per_tick = max(1, round(DT / w.timestep))
        lo, hi = np.asarray(model.lower), np.asarray(model.upper)
        span = np.where(np.isfinite(hi - lo), hi - lo, 2 * OFFSET)
        self.offset = np.minimum(OFFSET, 0.5 * span)
        self.lower, self.upper = lo, hi
        n = model.nq
        self.action_space = gym.spaces.Box(-1.0, 1.0, (n,), np.float32)
        # finite bounds: the joint ranges (a turn either way where unbounded) and speeds
        # far past any a standing robot reaches
        qlo = np.where(np.isfinite(lo), lo, -2 * math.pi)
        qhi = np.where(np.isfinite(hi), hi, 2 * math.pi)
        big = np.full(n, 100.0)
        self.obs_low = np.concatenate(
            [qlo, -big, [-1.0], -np.ones(3), -np.full(3, 100.0), -np.full(3, 50.0)]
        ).astype(np.float32)
        self.obs_high = np.concatenate(
            [qhi, big, [10.0], np.ones(3), np.full(3, 100.0), np.full(3, 50.0)]
        ).astype(np.float32)
        self.observation_space = gym.spaces.Box(self.obs_low, self.obs_high, dtype=np.float32)
        self.reward_spec = RewardSpec.parse(reward)
        self.reward_spec.check(self._metrics(1.0, 1.0, 0.0, 0.0))
        self.height0 = float(self.root.position[2])
        self._steps = 0

    @staticmethod
    def _metrics(height: float, upright: float, tilt: float, effort: float) -> dict[str, float]:
        return {"height": height, "upright": upright, "tilt": tilt, "alive": 1.0, "effort": effort}

    def _observe(self) -> tuple[np.ndarray, float, float]:
        q = np.array([j.q for j in self.joints])
        qd = np.array([j.qd for j in self.joints])
        R = self.root.pose[:3, :3]
        gravity = R.T @ np.array([0.0, 0.0, -1.0])
        lin, ang = self.root.velocity
        height = float(self.root.position[2])
        obs = np.concatenate([q, qd, [height], gravity, R.T @ ang, lin]).astype(np.float32)
        return np.clip(obs, self.obs_low, self.obs_high), height, float(R[2, 2])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.world.reset()
        noise = float((options or {}).get("start_noise", self.start_noise))
        q = self.q_stand + self.np_random.uniform(-noise, noise, self.model.nq)
        q = np.clip(q, self.lower, self.upper)
        qpos = self.world.data.qpos
        for j, m, v in zip(self.joints, self.motors, q.tolist()):
            qpos[j.qadr] = v
            m.set(v)
        self.world.sync_poses()
        self._steps = 0
        obs, h, _ = self._observe()
        return obs, {"height": h}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        a = np.clip(np.asarray(action, dtype=np.float64).reshape(-1), -1.0, 1.0)
        if a.shape != self.action_space.shape:
            raise ValueError(f"action must have shape {self.action_space.shape}, got {a.shape}")
        target = np.clip(self.q_stand + a * self.offset, self.lower, self.upper)
        for m, v in zip(self.motors, target.tolist()):
            m.set(v)
        self.world.step(self.steps_per_tick)
        self._steps += 1
        obs, height, upright = self._observe()
        tilt = math.acos(max(-1.0, min(1.0, upright)))
        low = height < FALL_HEIGHT * self.height0
        fell = low or tilt > FALL_TILT
        metrics = self._metrics(height, upright, tilt, float(a @ a))
        info: dict[str, Any] = {
            "metrics": metrics,
            "fell": {
                "fell": fell,
                "height_m": height,
                "standing_height_m": self.height0,
                "tilt_deg": math.degrees(tilt),
                "limits": {"height_fraction": FALL_HEIGHT, "tilt_deg": math.degrees(FALL_TILT)},
            },
        }
        truncated = self._steps >= MAX_STEPS and not fell
        return obs, self.reward_spec(metrics), bool(fell), bool(truncated), info
