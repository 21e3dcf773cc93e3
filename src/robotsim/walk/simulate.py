"""A walk in MuJoCo physics, balanced by feedback on the robot's own position servos.

The robot is placed as the pattern starts it (soles flat on the floor, root free), its
joints held by position servos with the profile's gains (``physics`` of its profile
file, else sized from its weight and height: :func:`robotsim.motion.profile.
scaled_physics`), and every ``dt`` of the pattern the loop

1. measures the root pose, the joints, the CoM (our kinematics on the measured
   joints), its velocity (filtered) and the ZMP of the ground reaction (the centre of
   pressure of every contact between the robot and the ground);
2. asks the :class:`~robotsim.walk.stabilizer.Stabilizer` for the corrected CoM and
   torso targets;
3. solves whole-body IK for them with the pattern's sole poses and sends the joint
   targets to the servos; MuJoCo steps in between.

A **fall** is the root lower than the profile's ``fall.min_base_height`` above the
ground or tilted more than ``fall.max_tilt_deg``; the run stops ``stop_after_fall``
seconds later. Pushes (impulses on the root, N s) are forces over their duration.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.walk.pattern import WalkPattern
from robotsim.walk.stabilizer import BalanceGains, Measured, Stabilizer
from robotsim.walk.wbik import WholeBodyIK

__all__ = ["Push", "WalkRun", "simulate_walk"]

ROBOT = "robot"


@dataclass(frozen=True)
class Push:
    """An impulse ``impulse`` (N s) on the root along world ``direction`` (x, y),
    spread over ``duration`` s from ``t`` (s of the pattern)."""

    t: float
    impulse: float
    direction: tuple[float, float] = (0.0, 1.0)
    duration: float = 0.1

    def force(self) -> np.ndarray:
        d = np.array([self.direction[0], self.direction[1], 0.0])
        d /= max(float(np.linalg.norm(d)), 1e-12)
        return d * self.impulse / self.duration


@dataclass(frozen=True, eq=False)
class WalkRun:
    """What happened: per control tick ``(n,)``: ``t``, ``root`` (n, 4, 4) measured,
    ``q`` (n, nq) measured, ``q_cmd`` (n, nq) sent, ``com`` (n, 3) measured, ``com_ref``
    (n, 3), ``zmp`` (n, 2) measured (NaN in the air), ``zmp_ref`` (n, 2), ``dcm_error``
    (n, 2) m, ``tilt_deg`` (n,), ``soles`` (n, 2, 3, 4) the measured sole poses; the
    verdict ``fell`` with ``fell_at_s`` and ``reason``."""

    pattern: WalkPattern
    t: np.ndarray
    root: np.ndarray
    q: np.ndarray
    q_cmd: np.ndarray
    com: np.ndarray
    com_ref: np.ndarray
    zmp: np.ndarray
    zmp_ref: np.ndarray
    dcm_error: np.ndarray
    tilt_deg: np.ndarray
    fell: bool
    fell_at_s: float | None
    reason: str
    sim_seconds: float
    wall_seconds: float
    soles: np.ndarray  # (n, 2, 3, 4) measured sole poses (rows of T_world_sole)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rtf(self) -> float:
        return self.sim_seconds / self.wall_seconds if self.wall_seconds > 0 else float("inf")

    def walking(self) -> np.ndarray:
        """Mask of the ticks between the walk's start and end (weight shifts included)."""
        p = self.pattern.plan
        return (self.t >= p.t_start) & (self.t <= p.t_walk)

    def summary(self) -> dict[str, Any]:
        """The numbers behind the verdict (m, s, deg)."""
        pat = self.pattern
        gx, gy, gth = pat.goal
        d = math.hypot(gx, gy)
        x0 = self.root[0, :2, 3]
        x1 = self.root[-1, :2, 3]
        yaw0 = math.atan2(self.root[0, 1, 0], self.root[0, 0, 0])
        yaw1 = math.atan2(self.root[-1, 1, 0], self.root[-1, 0, 0])
        # the commanded direction in the world (the walk starts heading +x)
        u = np.array([gx, gy]) / d if d > 1e-9 else np.array([1.0, 0.0])
        dist = float((x1 - x0) @ u)
        walk = self.walking()
        ze = np.linalg.norm(self.zmp - self.zmp_ref, axis=1)
        ze = ze[walk & np.isfinite(ze)]
        t_walk = pat.plan.t_walk - pat.plan.t_start
        ll = pat.biped.leg_length
        return {
            "fell": self.fell,
            "fell_at_s": self.fell_at_s,
            "reason": self.reason,
            "distance_m": dist,
            "goal_m": d,
            "walk_time_s": t_walk,
            "mean_speed_m_s": dist / t_walk if t_walk > 0 and not self.fell else None,
            "mean_speed_leg_lengths_s": dist / t_walk / ll
            if t_walk > 0 and not self.fell
            else None,
            "leg_length_m": ll,
            "heading_change_deg": math.degrees((yaw1 - yaw0 + math.pi) % (2 * math.pi) - math.pi),
            "heading_goal_deg": math.degrees(gth),
            "final_offset_m": _final_offset(self),
            "max_tilt_deg": float(np.max(self.tilt_deg)),
            "max_zmp_error_m": float(np.max(ze)) if ze.size else None,
            "max_dcm_error_m": float(np.max(np.linalg.norm(self.dcm_error[walk], axis=1)))
            if walk.any()
            else None,
            "steps": len(pat.plan.steps),
            "duration_s": float(self.t[-1]) if len(self.t) else 0.0,
            "rtf": self.rtf,
            **self.extra,
        }


def _final_offset(run: WalkRun) -> float:
    """Distance (m) from where the root ended to where the pattern put it."""
    k = len(run.t) - 1
    return float(np.linalg.norm(run.root[k, :2, 3] - run.pattern.root[k, :2, 3]))


def _scene(pattern: WalkPattern, physics: Any, friction: float | None) -> Any:
    from robotsim.physics import ContactSurface, Motor, RobotPlacement, Scene

    model = pattern.biped.model
    motors = {}
    for name in model.joint_names:
        kp, kv, tau = physics.gains(name)
        motors[name] = Motor("position", gain=kp, damping=kv, force=tau)
    T0 = np.array(pattern.root[0])
    T0[2, 3] += 1e-4  # just above the floor, not in it
    placement = RobotPlacement(
        name=ROBOT,
        model=model,
        T_world_base=T0,
        q0={n: float(v) for n, v in zip(model.joint_names, pattern.q[0])},
        motors=motors,
        collide_with_robots=False,
    )
    mu = physics.friction if friction is None else friction
    return Scene(
        robots=(placement,),
        timestep=physics.timestep,
        default_surface=ContactSurface(mu=mu),
        integrator="implicitfast",  # the servos' damping implicit: stable at any gain
        name=f"{model.name} walk",
    )


def simulate_walk(
    pattern: WalkPattern,
    gains: BalanceGains | None = None,
    pushes: tuple[Push, ...] = (),
    friction: float | None = None,
    stop_after_fall: float = 0.5,
    physics: Any = None,
) -> WalkRun:
    """Walk ``pattern`` in MuJoCo with balance feedback (module docs). ``physics``: the
    profile's :class:`~robotsim.profile.file.PhysicsSpec` (default: the robot's);
    ``friction``: the floor's (default: the profile's)."""
    from robotsim.motion.profile import motion_profile
    from robotsim.physics import World

    biped = pattern.biped
    model = biped.model
    if physics is None:
        physics = motion_profile(model)[1].physics
    world = World(_scene(pattern, physics, friction))
    joints = [world.joint(f"{ROBOT}/{n}") for n in model.joint_names]
    world.model.dof_armature[[j.vadr for j in joints]] = np.maximum(
        world.model.dof_armature[[j.vadr for j in joints]], physics.armature
    )
    world.reset()
    motor_ids = np.array([world.motor(f"{ROBOT}/{n}").id for n in model.joint_names])
    targets = world._targets  # the servo targets the world applies at each step
    base = world.body(f"{ROBOT}/{model.root}")
    robot_bodies = frozenset(f"{ROBOT}/{lk}" for lk in model.link_names)
    qadr = np.array([j.qadr for j in joints])
    qpos = world.data.qpos
    fall = physics.fall
    cos_max = math.cos(math.radians(fall.max_tilt_deg))
    res = pattern.params
    stab = Stabilizer(res.omega, biped.leg_length, gains)
    ik = WholeBodyIK(biped, tol=1e-9, max_iter=8)
    n = len(pattern.t)
    dt = res.dt
    out_root = np.empty((n, 4, 4))
    out_q = np.empty((n, model.nq))
    out_cmd = np.empty((n, model.nq))
    out_com = np.empty((n, 3))
    out_zmp = np.full((n, 2), np.nan)
    out_dcm = np.empty((n, 2))
    out_soles = np.empty((n, 2, 3, 4))
    fell_at: float | None = None
    reason = "the root stayed above the fall height and within the fall tilt"
    q_cmd = pattern.q[0].copy()
    T_cmd = pattern.root[0].copy()
    push_force = [(p.t, p.t + p.duration, p.force()) for p in pushes]
    ground = pattern.plan.ground
    R_up = biped.R_root_upright
    weights = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    wall0 = time.perf_counter()
    k = 0
    for k in range(n):
        t = float(pattern.t[k])
        T_b = base.pose
        q = qpos[qadr].copy()
        soles, com = ik.measure(T_b, q)  # (2, 3, 4), (3,) measured
        # the pattern's world slides with the feet: compare positions relative to the
        # feet that carry the robot (the support foot is the root, as in seed 000)
        sup = int(pattern.support[k])
        w = weights[sup]
        offset = w @ (soles[:, :2, 3] - pattern.feet[k, :, :2, 3])
        com_rel = com.copy()
        com_rel[:2] -= offset
        vel = stab.filtered_velocity(t, com)
        pos, frc = world.contact_forces().on(robot_bodies)
        zmp = None
        if len(frc) and frc[:, 2].sum() > 1e-6:
            zmp = (pos[:, :2] * frc[:, 2:3]).sum(axis=0) / frc[:, 2].sum() - offset
            out_zmp[k] = zmp
        meas = Measured(t, T_b, q, com_rel, vel, zmp)
        com_cmd, R_cmd, err = stab.correct(
            pattern.com[k], pattern.com_vel[k], pattern.zmp_ref[k], pattern.root[k, :3, :3], meas
        )
        if stab.gains.enabled:
            q_cmd, T_cmd, _ = ik.solve(pattern.feet[k], com_cmd, R_cmd, q_cmd, T_cmd)
        else:
            q_cmd = pattern.q[k]
        out_root[k], out_q[k], out_cmd[k], out_com[k], out_dcm[k] = T_b, q, q_cmd, com, err
        out_soles[k] = soles
        h = T_b[2, 3] - float(ground.z(T_b[0, 3], T_b[1, 3]))
        up = float(T_b[2, :3] @ R_up[2])  # cos of the tilt from upright
        if fell_at is None and (h < fall.min_base_height or up < cos_max):
            fell_at = t
            tilt = math.degrees(math.acos(max(-1.0, min(1.0, up))))
            reason = (
                f"root {h:.3f} m above the ground < {fall.min_base_height:g} m"
                if h < fall.min_base_height
                else f"root tilted {tilt:.1f} deg > {fall.max_tilt_deg:g} deg"
            )
        if fell_at is not None and t >= fell_at + stop_after_fall:
            break
        targets[motor_ids] = q_cmd
        for t0, t1, f in push_force:
            if t0 <= t < t1:
                base.apply_force(f)
        world.advance(dt)
    wall = time.perf_counter() - wall0
    m = k + 1
    tilt = np.degrees(np.arccos(np.clip(out_root[:m, 2, :3] @ R_up[2], -1, 1)))
    return WalkRun(
        pattern=pattern,
        t=pattern.t[:m].copy(),
        root=out_root[:m],
        q=out_q[:m],
        q_cmd=out_cmd[:m],
        com=out_com[:m],
        com_ref=pattern.com[:m],
        zmp=out_zmp[:m],
        zmp_ref=pattern.zmp_ref[:m],
        dcm_error=out_dcm[:m],
        tilt_deg=tilt,
        fell=fell_at is not None,
        fell_at_s=fell_at,
        reason=reason,
        sim_seconds=float(world.time),
        wall_seconds=wall,
        soles=out_soles[:m],
        extra={"timestep_s": world.timestep, "control_dt_s": dt},
    )
