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

**Foot force.** When the robot's profile has feet, a ``force`` sensor on them
(:mod:`robotsim.sensors.contact`) reads each foot's contact force every tick: the
measured centre of pressure (``cop``: the feet's contact points weighted by their
normal forces, world frame) and which feet carry weight (at least 2 % of the robot's;
``support_force``). ``support="force"`` makes those feet, rather than the soles within
2 mm of the floor, the support polygon of ``support_margin``; either way the summary
says how often the two agree, how deep inside the force-support polygon the measured
centre of pressure stayed, and how often it sat on the polygon's edge (a foot rolling
on its edge: the robot tipping; a statically stable walk keeps it inside).

The real-time factor counts the simulation loop (settling, servo targets, MuJoCo steps,
fall test); the CoM and support-polygon analysis runs afterwards in one batch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.errors import PhysicsError, PhysicsFault
from robotsim.model.robot import RobotModel
from robotsim.motion.balance import com_world, convex_hull, polygon_margin
from robotsim.motion.playback import PlaybackResult
from robotsim.motion.profile import RobotProfile

__all__ = ["CHECK_SIGNALS", "PhysicsCheck", "check_physics", "record_check"]

ROBOT = "robot"
CONTACT_TOL = 2e-3
#: m: a measured centre of pressure closer than this to the edge of the support polygon
#: counts as on the edge (the foot rolls on it)
COP_EDGE = 1e-3


@dataclass(frozen=True, eq=False)
class PhysicsCheck:
    """Outcome of :func:`check_physics`. Arrays are per control tick ``(T,)``/``(T, k)``."""

    verdict: str  # "stands" | "falls" | "fault" (the physics diverged: extra["fault"])
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
    #: measured by the feet's force sensor (None: no feet): centre of pressure (T, 3)
    #: world m (NaN in the air), each sole's normal force (T, S) N and whether it
    #: carries weight (T, S), in the order of the playback's soles
    cop: np.ndarray | None = None
    sole_force: np.ndarray | None = None
    support_force: np.ndarray | None = None
    #: (T,) margin (m) of the measured CoP inside the polygon of the soles carrying
    #: weight (-inf in the air); the geometric support set (T, S) for comparison
    cop_margin: np.ndarray | None = None
    support_geometry: np.ndarray | None = None
    #: with ``poses=True``: the physics world's scene document and, per tick, the
    #: robot's root pose and joints as MuJoCo had them after the tick (T, 7 + nq),
    #: in :func:`robotsim.recording.scene.pose_names` order (what a replay records)
    replay_scene: dict[str, Any] | None = None
    replay_poses: np.ndarray | None = None

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
            **self._force_summary(),
            **self.extra,
        }

    def _force_summary(self) -> dict[str, Any]:
        """The foot force sensor's numbers (None where there is none)."""
        if self.cop_margin is None or self.support_force is None:
            return {"support_by": "geometry", "min_cop_margin_m": None,
                    "cop_on_edge_fraction": None, "support_agreement": None}  # fmt: skip
        cm = self.cop_margin
        landed = np.isfinite(cm)
        geo = self.support_geometry
        agree = None if geo is None else float(np.mean(np.all(geo == self.support_force, axis=1)))
        return {
            "support_by": self.extra.get("support_by", "geometry"),
            "min_cop_margin_m": float(np.min(cm[landed])) if landed.any() else None,
            # the measured CoP within 1 mm of the support polygon's edge: a foot rolling
            # on an edge, tipping (a statically stable gait keeps it inside)
            "cop_on_edge_fraction": float(np.mean(cm[landed] < COP_EDGE)) if landed.any() else None,
            "support_agreement": agree,
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


def _foot_sensor(world: Any, model: RobotModel, soles: Any) -> tuple[Any, np.ndarray] | None:
    """A force sensor on the soles' links (read from the world's data: the poses and
    contact forces of the last step, consistently), and the sensor site of each sole
    (-1: a sole whose link it does not cover); None when no sole's link has one."""
    from robotsim.profile.sensor_spec import ForceSpec
    from robotsim.sensors import mount_sensors
    from robotsim.sensors.contact import ForceSensor

    frame_link = {f.name: f.link for f in model.frames}
    links = [frame_link.get(s.frame, s.frame) for s in soles]
    links = [lk for lk in dict.fromkeys(links) if lk in model.link_names]
    if not links:
        return None
    spec = ForceSpec(type="force", name="feet", links=links, rate=1.0 / world.timestep)
    mount = mount_sensors(ROBOT, model, [spec], world.timestep, "feet")[0]
    site = np.array([links.index(frame_link[s.frame]) if frame_link.get(s.frame) in links
                     else -1 for s in soles])  # fmt: skip
    return ForceSensor(world, mount, world.seed), site


def check_physics(
    playback: PlaybackResult,
    profile: RobotProfile,
    settle: float = 0.5,
    diverge_m: float = 0.03,
    stop_after_fall: float = 0.5,
    t_end: float | None = None,
    support: str = "geometry",
    poses: bool = False,
) -> PhysicsCheck:
    """Run the physics check of one kinematic playback (module docs); ``t_end`` (s of
    playback) stops it early. ``support``: ``geometry`` (the soles within 2 mm of the
    floor) or ``force`` (the soles whose feet carry weight, by the foot force sensor)
    make the support polygon of ``support_margin``. ``poses``: also keep the scene and
    every tick's root pose and joints for a replay (``replay_scene``,
    ``replay_poses``; read after the tick's sensors, so the check's numbers are the
    same with and without)."""
    if support not in ("geometry", "force"):
        raise PhysicsError(f"support {support!r}: valid: geometry, force")
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
    feet = _foot_sensor(world, model, soles) if soles else None
    if support == "force" and feet is None:
        raise PhysicsError(f"{model.name}: support='force' needs feet (soles on links)")
    weight = float(world.model.body_subtreemass[base.id]) * 9.81

    def targets(q: np.ndarray) -> None:
        for m, v in zip(motors, q):
            m.set(float(v))

    qadr = np.array([j.qadr for j in joints])
    qpos = world.data.qpos
    sampler = None
    replay_scene = None
    replay_rows: list[list[float]] = []
    if poses:
        from robotsim.recording.scene import PhysicsPoseSampler, physics_scene_doc

        sampler = PhysicsPoseSampler(world)
        replay_scene = physics_scene_doc(world.scene)
    span = float(samples.t[-1]) if t_end is None else min(float(samples.t[-1]), t_end)
    world.check_work(settle + span, f"{model.name}: physics check")
    wall0 = time.perf_counter()
    n = samples.ticks + 1
    if t_end is not None:
        n = max(1, min(n, int(np.searchsorted(samples.t, t_end, side="right"))))
    T_base = np.empty((n, 4, 4))
    q_sim = np.empty((n, model.nq))
    nf = 0 if feet is None else len(feet[0].sites)
    foot_n = np.zeros((n, nf))  # each foot's normal force, N
    foot_cop = np.full((n, nf, 3), np.nan)  # each foot's centre of pressure, world m
    fell_at = None
    fall_tick: int | None = None
    reason = "body height and tilt stayed within the thresholds"
    stop_at = None
    cos_max = np.cos(np.radians(fall.max_tilt_deg))
    k = 0
    fault: PhysicsFault | None = None
    for i in range(n):
        try:
            if i == 0:
                targets(samples.q[0])
                world.advance(settle)
            else:
                targets(samples.q[i])
                world.advance(samples.dt[i])
        except PhysicsFault as exc:  # divergence: a fault, not a verdict on balance
            fault = exc
            if k == 0:  # the settling itself diverged: keep the state it reached
                T_base[0], q_sim[0], k = base.pose, qpos[qadr], 1
            break
        T_b = base.pose
        T_base[i] = T_b
        q_sim[i] = qpos[qadr]
        if feet is not None:
            r = feet[0].sample()
            foot_n[i] = r["normal"]
            R_f, p_f = feet[0].frames()
            foot_cop[i] = np.einsum("nij,nj->ni", R_f, r["cop"]) + p_f
        if sampler is not None:  # last: it recomputes the body poses of the state now
            replay_rows.append(sampler.sample()[0][2])
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
    nsole = len(soles)
    geo = np.zeros((k, nsole), dtype=bool)
    sole_pts = np.empty((k, nsole), dtype=object)
    for i in range(k):
        for f in range(nsole):
            c = (S[i, f] @ corners[f])[:3]
            geo[i, f] = np.min(c[2]) <= CONTACT_TOL
            sole_pts[i, f] = c[:2].T
    by_force = cop = cop_margin = sole_force = None
    if feet is not None:
        site = feet[1]
        sole_force = np.where(site >= 0, foot_n[:k][:, np.maximum(site, 0)], 0.0)
        by_force = sole_force >= 0.02 * weight
        total = foot_n[:k].sum(axis=1)
        w = np.nan_to_num(foot_cop[:k]) * foot_n[:k, :, None]
        cop = np.where(
            total[:, None] > 0, w.sum(axis=1) / np.maximum(total, 1e-12)[:, None], np.nan
        )
        cop_margin = np.full(k, -np.inf)
        for i in range(k):
            pts = [sole_pts[i, f] for f in range(nsole) if by_force[i, f]]
            if pts and np.isfinite(cop[i]).all():
                cop_margin[i] = polygon_margin(convex_hull(np.vstack(pts)), cop[i])
    use = by_force if support == "force" and by_force is not None else geo
    margin = np.empty(k)
    for i in range(k):
        pts = [sole_pts[i, f] for f in range(nsole) if use[i, f]]
        margin[i] = polygon_margin(convex_hull(np.vstack(pts)), com[i]) if pts else -np.inf
    t = samples.t[:k]
    pos = T_base[:, :3, 3]
    tilt_deg = np.degrees(np.arccos(np.clip(T_base[:, 2, 2], -1, 1)))
    ref = playback.T_world_root[:k, :3, 3]
    div = np.linalg.norm(pos - ref, axis=1)
    over = np.flatnonzero(div > diverge_m)
    return PhysicsCheck(
        verdict="fault" if fault is not None else "falls" if fell_at is not None else "stands",
        reason=str(fault) if fault is not None else reason,
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
            "support_by": support,
            **({} if fault is None else {"fault": fault.fault.to_json()}),
        },
        cop=cop,
        sole_force=sole_force,
        support_force=by_force,
        cop_margin=cop_margin,
        support_geometry=geo,
        replay_scene=replay_scene,
        replay_poses=None if sampler is None else np.array(replay_rows, dtype=np.float64),
    )


#: The check's own signals in the run store (group ``robot``).
CHECK_SIGNALS = ("base_height", "tilt_deg", "support_margin", "divergence")


def record_check(recorder: Any, chk: PhysicsCheck) -> bool:
    """Record a check into a started run: its signals (:data:`CHECK_SIGNALS`, NaN for
    infinite margins), and when it kept its poses (``check_physics(..., poses=True)``)
    the scene and every tick's root pose and joints, so that it replays in 3D; the fall
    and the divergence as events (``fall``: reason, ``diverges``). Returns whether the
    3D scene was stored (the run store: yes; CSV or no recorder: no)."""
    from robotsim.recording.scene import ROOT_SIGNALS, write_scene

    if not hasattr(recorder, "signals"):  # the null and CSV recorders
        return False
    cols = np.column_stack([chk.base_height, chk.tilt_deg, chk.support_margin, chk.divergence_m])
    recorder.signals(ROBOT, chk.t, CHECK_SIGNALS, np.where(np.isfinite(cols), cols, np.nan))
    if chk.fell_at_s is not None:
        data = {"reason": chk.reason, "during": chk.fell_during}
        recorder.event(chk.fell_at_s, "fall", ROBOT, data)
    if chk.diverges_at_s is not None:
        recorder.event(chk.diverges_at_s, "diverges", ROBOT,
                       {"threshold_m": chk.extra.get("diverge_threshold_m"),
                        "during": chk.diverges_during})  # fmt: skip
    if chk.replay_scene is None or chk.replay_poses is None:
        return False
    if not write_scene(recorder, chk.replay_scene):
        return False
    joints = chk.replay_scene["robots"][0]["joints"]
    names = (*ROOT_SIGNALS, *(f"q.{j}" for j in joints))
    recorder.signals(ROBOT, chk.t, names, chk.replay_poses)
    return True
