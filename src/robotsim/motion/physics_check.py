"""Would the real robot fall? Play a program on the MuJoCo model with position servos.

The kinematic playback (:func:`robotsim.motion.playback.play`) gives the reference: the
joint targets at every tick and where the body should be. The physics check places the
robot exactly as the playback starts it (support sole flat on the floor), lets it
settle for ``settle`` seconds holding the start pose, then sends the same targets tick
by tick to position servos (``torque = kp (q_ref - q) - kv qdot``, clipped to the
torque limit; gains per joint from the robot profile's ``physics`` section) and steps
MuJoCo in between. Self-collisions are off (the robot touches only the floor).

It reports **falls** at the first tick where the body is lower than
``fall.min_base_height`` or tilted more than ``fall.max_tilt_deg``, else **stands**;
the path of the centre of mass over the support polygon (the soles within 2 mm of the
floor in the simulation) and how far the simulated body drifts from the kinematic
playback (and from when it drifts more than ``diverge_m``).

The real-time factor counts the simulation loop (settling, servo targets, MuJoCo steps,
fall test); the CoM and support-polygon analysis runs afterwards in one batch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.errors import PhysicsError
from robotsim.model.robot import RobotModel
from robotsim.motion.balance import com_world, convex_hull, polygon_margin
from robotsim.motion.playback import PlaybackResult
from robotsim.motion.profile import RobotProfile

__all__ = ["PhysicsCheck", "check_physics"]

ROBOT = "robot"
CONTACT_TOL = 2e-3


@dataclass(frozen=True, eq=False)
class PhysicsCheck:
    """Outcome of :func:`check_physics`. Arrays are per control tick ``(T,)``/``(T, k)``."""

    verdict: str  # "stands" | "falls"
    reason: str
    fell_at_s: float | None
    t: np.ndarray
    base_pos: np.ndarray  # (T, 3) simulated body position
    base_pos_ref: np.ndarray  # (T, 3) kinematic playback
    base_height: np.ndarray
    tilt_deg: np.ndarray
    com: np.ndarray  # (T, 3)
    support_margin: np.ndarray  # (T,) m, negative = CoM outside the support polygon
    divergence_m: np.ndarray  # (T,) |body sim - body kinematic|
    diverges_at_s: float | None
    fell_during: str | None
    diverges_during: str | None
    sim_seconds: float
    wall_seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rtf(self) -> float:
        return self.sim_seconds / self.wall_seconds if self.wall_seconds > 0 else float("inf")

    def summary(self) -> dict[str, Any]:
        """The numbers behind the verdict as strict JSON values (a margin that does not
        exist, no sole on the floor, is ``None`` with ``airborne_fraction`` saying how
        often)."""
        margin = self.support_margin
        landed = np.isfinite(margin)
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "fell_at_s": self.fell_at_s,
            "duration_s": float(self.t[-1]) if len(self.t) else 0.0,
            "min_base_height_m": float(np.min(self.base_height)),
            "max_tilt_deg": float(np.max(self.tilt_deg)),
            "min_support_margin_m": float(np.min(margin)) if landed.all() else None,
            "airborne_fraction": float(np.mean(~landed)),
            "com_outside_fraction": float(np.mean(margin < 0)),
            "max_divergence_m": float(np.max(self.divergence_m)),
            "final_divergence_m": float(self.divergence_m[-1]),
            "diverges_at_s": self.diverges_at_s,
            "fell_during": self.fell_during,
            "diverges_during": self.diverges_during,
            "distance_walked_m": float(
                (self.base_pos[-1, :2] - self.base_pos[0, :2]) @ _heading(self.base_pos_ref)
            ),
            "distance_walked_ref_m": float(
                (self.base_pos_ref[-1, :2] - self.base_pos_ref[0, :2]) @ _heading(self.base_pos_ref)
            ),
            "real_time_factor": self.rtf,
            **self.extra,
        }


def _heading(ref: np.ndarray) -> np.ndarray:
    d = ref[-1, :2] - ref[0, :2]
    n = np.linalg.norm(d)
    return d / n if n > 1e-6 else np.array([1.0, 0.0])


def _scene(model: RobotModel, profile: RobotProfile, T0: np.ndarray, q0: np.ndarray) -> Any:
    from robotsim.physics import ContactSurface, Motor, RobotPlacement, Scene

    ph = profile.physics
    motors = {}
    for name in model.joint_names:
        kp, kv, tau = ph.gains(name)
        motors[name] = Motor("position", gain=kp, damping=kv, force=tau, feedforward=ph.feedforward)
    lifted = np.array(T0, dtype=float)
    lifted[2, 3] += 1e-4  # start just above the floor, not in it
    placement = RobotPlacement(
        name=ROBOT,
        model=model,
        T_world_base=lifted,
        q0={n: float(v) for n, v in zip(model.joint_names, q0)},
        motors=motors,
        collide_with_robots=False,
    )
    return Scene(
        robots=(placement,),
        timestep=ph.timestep,
        default_surface=ContactSurface(mu=ph.friction),  # the profile's floor friction
        name=f"{model.name} physics check",
    )


def check_physics(
    playback: PlaybackResult,
    profile: RobotProfile,
    settle: float = 0.5,
    diverge_m: float = 0.03,
    stop_after_fall: float = 0.5,
    t_end: float | None = None,
) -> PhysicsCheck:
    """Run the physics check of one kinematic playback (module docs); ``t_end`` (s of
    playback) stops it early."""
    from robotsim.physics import World

    model = playback.model
    samples = playback.samples
    import mujoco

    world = World(_scene(model, profile, playback.T_world_root[0], samples.q[0]))
    if not world.scene.robots[0].model.floating:
        raise PhysicsError(
            f"{model.name}: its profile gives foot soles but no legs a physics world can "
            "set free, so its root would stay welded to the world and any walk would "
            "'stand'; give the legs and feet in its profile file (docs/profiles.md) or "
            "a floating root in its robot file"
        )
    motors = [world.motor(f"{ROBOT}/{n}") for n in model.joint_names]
    joints = [world.joint(f"{ROBOT}/{n}") for n in model.joint_names]
    # servo gearboxes: reflected rotor inertia on every joint, implicit servo damping
    world.model.dof_armature[[j.vadr for j in joints]] = profile.physics.armature
    world.model.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    world.reset()
    base = world.body(f"{ROBOT}/{model.root}")
    fall = profile.physics.fall
    soles = playback.soles
    corners = [np.vstack([s.corners().T, np.ones(len(s.corners()))]) for s in soles]
    frames = [s.frame for s in soles]

    def targets(q: np.ndarray) -> None:
        for m, v in zip(motors, q):
            m.set(float(v))

    qadr = np.array([j.qadr for j in joints])
    qpos = world.data.qpos
    span = float(samples.t[-1]) if t_end is None else min(float(samples.t[-1]), t_end)
    world.check_work(settle + span, f"{model.name}: physics check")
    wall0 = time.perf_counter()
    targets(samples.q[0])
    world.advance(settle)
    n = samples.ticks + 1
    if t_end is not None:
        n = max(1, min(n, int(np.searchsorted(samples.t, t_end, side="right"))))
    T_base = np.empty((n, 4, 4))
    q_sim = np.empty((n, model.nq))
    fell_at = None
    fall_tick: int | None = None
    reason = "body height and tilt stayed within the thresholds"
    stop_at = None
    cos_max = np.cos(np.radians(fall.max_tilt_deg))
    k = 0
    for i in range(n):
        if i > 0:
            targets(samples.q[i])
            world.advance(samples.dt[i])
        T_b = base.pose
        T_base[i] = T_b
        q_sim[i] = qpos[qadr]
        k = i + 1
        if fell_at is None and (T_b[2, 3] < fall.min_base_height or T_b[2, 2] < cos_max):
            fell_at = float(samples.t[i])
            fall_tick = i
            tilt = float(np.degrees(np.arccos(np.clip(T_b[2, 2], -1, 1))))
            reason = (
                f"body height {T_b[2, 3]:.3f} m < {fall.min_base_height} m"
                if T_b[2, 3] < fall.min_base_height
                else f"body tilt {tilt:.1f} deg > {fall.max_tilt_deg} deg"
            )
            stop_at = fell_at + stop_after_fall
        if stop_at is not None and samples.t[i] >= stop_at:
            break
    wall = time.perf_counter() - wall0
    T_base, q_sim = T_base[:k], q_sim[:k]
    poses = T_base[:, None] @ model.fk_all(q_sim)
    com = com_world(model, poses)
    S = T_base[:, None] @ model.tree.fk_frames(q_sim, frames)  # (k, F, 4, 4)
    margin = np.empty(k)
    for i in range(k):
        pts = []
        for f in range(len(soles)):
            c = (S[i, f] @ corners[f])[:3]
            if np.min(c[2]) <= CONTACT_TOL:
                pts.append(c[:2].T)
        margin[i] = polygon_margin(convex_hull(np.vstack(pts)), com[i]) if pts else -np.inf
    t = samples.t[:k]
    pos = T_base[:, :3, 3]
    tilt_deg = np.degrees(np.arccos(np.clip(T_base[:, 2, 2], -1, 1)))
    ref = playback.T_world_root[:k, :3, 3]
    div = np.linalg.norm(pos - ref, axis=1)
    over = np.flatnonzero(div > diverge_m)
    return PhysicsCheck(
        verdict="falls" if fell_at is not None else "stands",
        reason=reason,
        fell_at_s=fell_at,
        t=t,
        base_pos=pos,
        base_pos_ref=ref,
        base_height=pos[:, 2],
        tilt_deg=tilt_deg,
        com=com,
        support_margin=margin,
        divergence_m=div,
        diverges_at_s=float(t[over[0]]) if over.size else None,
        fell_during=playback.label_at(fall_tick) if fall_tick is not None else None,
        diverges_during=playback.label_at(int(over[0])) if over.size else None,
        sim_seconds=float(world.time),  # settling included, as in the wall time
        wall_seconds=wall,
        extra={
            "floating_base": True,  # a welded legged robot is refused above
            "timestep_s": world.timestep,
            "settle_s": settle,
            "diverge_threshold_m": diverge_m,
        },
    )
