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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.walk.biped import Biped
from robotsim.walk.engine import START_HOLD
from robotsim.walk.params import Resolved, WalkParams
from robotsim.walk.pattern import WalkPattern
from robotsim.walk.plan import TimedStep
from robotsim.walk.stabilizer import BalanceGains, Measured, Stabilizer
from robotsim.walk.swing import Ground
from robotsim.walk.wbik import WholeBodyIK

__all__ = [
    "CommandDriver",
    "Push",
    "WalkRun",
    "WalkSim",
    "run_driver",
    "simulate_goal",
    "simulate_walk",
    "slope_slab",
]

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
    (n, 2) m, ``tilt_deg`` (n,), ``soles`` (n, 2, 3, 4) the measured sole poses,
    ``support`` (n,) the planned support (0 left, 1 right, 2 both); ``steps`` the
    footsteps as walked (planned, re-anchored), ``goal`` (forward, left, turn) and the
    walk's start and end times; the verdict ``fell`` with ``fell_at_s`` and ``reason``."""

    biped: Biped
    params: Resolved
    goal: tuple[float, float, float]
    feet0: np.ndarray
    t_start: float
    t_walk: float
    steps: tuple[TimedStep, ...]
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
    soles: np.ndarray
    support: np.ndarray
    fell: bool
    fell_at_s: float | None
    reason: str
    sim_seconds: float
    wall_seconds: float
    cpu_seconds: float
    extra: dict[str, Any] = field(default_factory=dict)
    #: the floor walked on (None: the flat floor at height 0)
    ground: Ground | None = None

    @property
    def rtf(self) -> float:
        return self.sim_seconds / self.wall_seconds if self.wall_seconds > 0 else float("inf")

    @property
    def cpu_rtf(self) -> float:
        """Simulated seconds per second of this process's CPU (one core)."""
        return self.sim_seconds / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")

    def walking(self) -> np.ndarray:
        """Mask of the ticks between the walk's start and end (weight shifts included)."""
        return (self.t >= self.t_start) & (self.t <= self.t_walk)

    def summary(self) -> dict[str, Any]:
        """The numbers behind the verdict (m, s, deg)."""
        gx, gy, gth = self.goal
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
        t_walk = self.t_walk - self.t_start
        ll = self.biped.leg_length
        done = not self.fell and t_walk > 0 and self.t[-1] >= self.t_walk - 1e-9
        return {
            "fell": self.fell,
            "fell_at_s": self.fell_at_s,
            "reason": self.reason,
            "distance_m": dist,
            "goal_m": d,
            "walk_time_s": t_walk,
            "mean_speed_m_s": dist / t_walk if done else None,
            "mean_speed_leg_lengths_s": dist / t_walk / ll if done else None,
            "leg_length_m": ll,
            "heading_change_deg": math.degrees((yaw1 - yaw0 + math.pi) % (2 * math.pi) - math.pi),
            "heading_goal_deg": math.degrees(gth),
            "final_offset_m": self._final_offset(),
            "max_tilt_deg": float(np.max(self.tilt_deg)),
            "max_zmp_error_m": float(np.max(ze)) if ze.size else None,
            "max_dcm_error_m": float(np.max(np.linalg.norm(self.dcm_error[walk], axis=1)))
            if walk.any()
            else None,
            "steps": len(self.steps),
            "duration_s": float(self.t[-1]) if len(self.t) else 0.0,
            "rtf": self.rtf,
            "cpu_rtf": self.cpu_rtf,
            **self.extra,
        }

    def _final_offset(self) -> float:
        """Distance (m) from the middle of the feet at the end to the goal (the walk
        frame at the start moved by the goal)."""
        from robotsim.walk.footsteps import compose, walk_frame

        goal = compose(walk_frame(self.feet0), np.array(self.goal))
        return float(np.linalg.norm(self.soles[-1, :, :2, 3].mean(axis=0) - goal[:2]))


class _PatternDriver:
    """A precomputed :class:`WalkPattern` behind the engine's interface (no replanning:
    re-anchoring is ignored, the feet go where the pattern says)."""

    def __init__(self, pattern: WalkPattern) -> None:
        from robotsim.walk.engine import Reference

        self.pattern = pattern
        self.biped = pattern.biped
        self.res = pattern.params
        self.dt = pattern.params.dt
        self.k = 0
        self.lifted: list[int] = []
        self.ik = WholeBodyIK(pattern.biped, tol=1e-9, max_iter=8)
        self.q = pattern.q[0].copy()
        self.T = pattern.root[0].copy()
        self._ref = Reference
        self.t_start, self.t_walk = pattern.plan.t_start, pattern.plan.t_walk
        self.goal = pattern.goal
        self.feet0 = pattern.plan.feet0
        self.ground = pattern.plan.ground

    @property
    def t(self) -> float:
        return float(self.pattern.t[self.k])

    @property
    def done(self) -> bool:
        return self.k >= len(self.pattern.t) - 1

    @property
    def steps(self) -> tuple[TimedStep, ...]:
        return self.pattern.plan.steps

    def reference(self) -> Any:
        p, k = self.pattern, self.k
        return self._ref(
            t=float(p.t[k]),
            feet=p.feet[k],
            com=p.com[k],
            com_vel=p.com_vel[k],
            zmp=p.zmp_ref[k],
            R_torso=p.root[k, :3, :3],
            support=int(p.support[k]),
        )

    def tick(self) -> Any:
        t0 = self.t
        self.k += 1
        t1 = self.t
        self.lifted = [s.side for s in self.pattern.plan.steps if t0 + 1e-9 < s.t_lift <= t1 + 1e-9]
        return self.reference()

    def solve(self, ref: Any, com: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.q, self.T, _ = self.ik.solve(ref.feet, com, R, self.q, self.T)
        return self.q, self.T

    def nominal_q(self) -> np.ndarray:
        return self.pattern.q[self.k]

    def reanchor(self, side: int, measured: tuple[float, float, float]) -> None:
        del side, measured


#: The sizes (m) of the static slab a walk on a slope stands on.
SLOPE_SLAB = (40.0, 40.0, 1.0)


def slope_slab(ground: Ground | None) -> np.ndarray | None:
    """The world pose of the slab whose top is the ``ground`` plane (:data:`SLOPE_SLAB`),
    or None for the flat floor at height 0 (a plane)."""
    if ground is None or (ground.slope_x == 0 and ground.slope_y == 0 and ground.height == 0):
        return None
    R = ground.tilt()
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = np.array([0.0, 0.0, ground.height]) - 0.5 * SLOPE_SLAB[2] * R[:, 2]  # top at h
    return T


def _scene(
    biped: Biped,
    q0: np.ndarray,
    T0: np.ndarray,
    physics: Any,
    friction: float | None,
    ground: Ground | None = None,
) -> Any:
    """The world of a walk: the robot on its servos, on the floor or on a slope (a
    static slab whose top is the ``ground`` plane, 40 x 40 m)."""
    from robotsim.model.geometry import Box
    from robotsim.physics import Body, ContactSurface, Motor, Plane, RobotPlacement, Scene

    model = biped.model
    motors = {}
    ff = getattr(physics, "feedforward", "gravity")
    for name in model.joint_names:
        kp, kv, tau = physics.gains(name)
        motors[name] = Motor("position", gain=kp, damping=kv, force=tau, feedforward=ff)
    T = np.array(T0, dtype=np.float64)
    T[2, 3] += 1e-4  # just above the floor, not in it
    placement = RobotPlacement(
        name=ROBOT,
        model=model,
        T_world_base=T,
        q0={n: float(v) for n, v in zip(model.joint_names, q0)},
        motors=motors,
        collide_with_robots=False,
    )
    mu = physics.friction if friction is None else friction
    slab = slope_slab(ground)
    bodies: tuple[Body, ...] = ()
    if slab is not None:
        bodies = (Body("slope", Box(SLOPE_SLAB), slab),)
    return Scene(
        robots=(placement,),
        bodies=bodies,
        ground=Plane() if slab is None else None,
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
    setup: Callable[[WalkSim], None] | None = None,
) -> WalkRun:
    """Walk a precomputed ``pattern`` in MuJoCo with balance feedback (module docs).
    ``physics``: the profile's :class:`~robotsim.profile.file.PhysicsSpec` (default: the
    robot's); ``friction``: the floor's (default: the profile's); ``setup``: called with
    the :class:`WalkSim` before its first tick (sensors, :mod:`robotsim.walk.sensing`)."""
    return run_driver(
        _PatternDriver(pattern), gains, pushes, friction, stop_after_fall, physics, setup=setup
    )


def simulate_goal(
    biped: Biped,
    goal: tuple[float, float, float],
    pairs: int,
    params: WalkParams | None = None,
    gains: BalanceGains | None = None,
    pushes: tuple[Push, ...] = (),
    friction: float | None = None,
    stop_after_fall: float = 0.5,
    physics: Any = None,
    ground: Ground | None = None,
    settle: float | None = None,
    setup: Callable[[WalkSim], None] | None = None,
) -> WalkRun:
    """Walk to ``goal`` (forward m, left m, turn rad) in ``pairs`` pairs of steps with
    the online engine (:class:`~robotsim.walk.engine.WalkEngine`): balance feedback, and
    each landed foot re-anchors the plan where it really is, so slips are walked back
    to the goal. The robot stands one preview horizon first, then walks; the run ends
    ``settle`` s (default a step period) after the weight is back between the feet."""
    from robotsim.walk.engine import WalkEngine

    engine = WalkEngine(biped, params, ground)
    return run_driver(
        _GoalDriver(engine, goal, pairs, settle), gains, pushes, friction, stop_after_fall,
        physics, setup=setup,
    )  # fmt: skip


class _EngineDriver:
    """What every driver of the walk engine hands on to it unchanged: its clock, the
    lifted feet, the whole-body IK, the nominal posture and the re-anchoring of a foot
    to where it measured."""

    engine: Any

    @property
    def t(self) -> float:
        return self.engine.t

    @property
    def lifted(self) -> list[int]:
        return self.engine.lifted

    def solve(self, ref: Any, com: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.engine.solve(ref, com, R)

    def nominal_q(self) -> np.ndarray:
        return self.engine.q

    def reanchor(self, side: int, measured: tuple[float, float, float]) -> None:
        self.engine.reanchor(side, measured)


class _GoalDriver(_EngineDriver):
    """The engine, standing for one preview horizon, then walking to a goal."""

    def __init__(self, engine: Any, goal: tuple[float, float, float], pairs: int,
                 settle: float | None) -> None:  # fmt: skip
        self.engine = engine
        self.biped = engine.biped
        self.res = engine.res
        self.dt = engine.dt
        self.goal = goal
        self.pairs = pairs
        self._t_goal = engine.N * engine.dt  # the goal is set; the weight shift follows
        self.t_start = self._t_goal + START_HOLD / engine.res.omega  # after the hold
        self.t_walk = math.inf
        self.settle = engine.period if settle is None else settle
        self.q, self.T = engine.q, engine.T
        self.walked: dict[float, TimedStep] = {}
        self._started = False
        self.feet0 = engine.rest.copy()
        self.ground = engine.ground

    @property
    def done(self) -> bool:
        return self.t >= self.t_walk + self.settle - 1e-9

    @property
    def steps(self) -> tuple[TimedStep, ...]:
        return tuple(self.walked[k] for k in sorted(self.walked))

    def reference(self) -> Any:
        return self.engine.reference()

    def tick(self) -> Any:
        e = self.engine
        if not self._started and e.t >= self._t_goal - 1e-9:
            e.set_goal(*self.goal, pairs=self.pairs)
            self._started = True
        ref = e.tick()
        for s in e.steps:
            self.walked[s.t_lift] = s
        if self._started and not e.walking and self.t_walk == math.inf:
            self.t_walk = e.knots_t[-1]
        elif self._started and e.walking:
            last = e.knots_t[-1]
            if not e._open_feet() and e._pair_inc is None:
                self.t_walk = last
        return ref


class CommandDriver(_EngineDriver):
    """The engine steered live (velocity commands, goals, stop) for :class:`WalkSim`:
    what the studio, a ``kind: walk`` schedule and the UDP server drive."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.biped = engine.biped
        self.res = engine.res
        self.dt = engine.dt
        self.goal = (0.0, 0.0, 0.0)
        self.t_start = math.inf
        self.t_walk = math.inf
        self.q, self.T = engine.q, engine.T
        self.walked: dict[float, TimedStep] = {}
        self.feet0 = engine.rest.copy()
        self.ground = engine.ground
        self.done = False

    @property
    def steps(self) -> tuple[TimedStep, ...]:
        return tuple(self.walked[k] for k in sorted(self.walked))

    def command(self, vx: float, vy: float = 0.0, wz: float = 0.0) -> None:
        """Walk at a body-frame velocity (m/s, m/s, rad/s); all zero stops."""
        self.engine.set_velocity(vx, vy, wz)
        if (vx or vy or wz) and self.t_start == math.inf:
            self.t_start = self._shift_start()

    def go_to(self, distance: float, lateral: float = 0.0, turn: float = 0.0) -> None:
        self.engine.set_goal(distance, lateral, turn)
        if self.t_start == math.inf:
            self.t_start = self._shift_start()
        self.goal = (distance, lateral, turn)

    def _shift_start(self) -> float:
        """When the walk starts: the weight shift, after the engine's start hold (as
        :class:`_GoalDriver` counts), so the speeds reported match between drivers."""
        return max(self.engine.t, self.engine.hold_until)

    def reference(self) -> Any:
        return self.engine.reference()

    def tick(self) -> Any:
        ref = self.engine.tick()
        for s in self.engine.steps:
            self.walked[s.t_lift] = s
        if len(self.walked) > 4096:  # a live session: keep the recent steps
            for k in sorted(self.walked)[:-2048]:
                del self.walked[k]
        return ref


class WalkSim:
    """The walk in MuJoCo, one control tick at a time (module docs): ``driver`` is a
    precomputed pattern, the engine walking to a goal, or a :class:`CommandDriver`.
    :meth:`step` advances ``dt``; :meth:`result` is the :class:`WalkRun` so far.
    ``record=False`` keeps no per-tick history (a live session)."""

    def __init__(
        self,
        driver: Any,
        gains: BalanceGains | None = None,
        pushes: tuple[Push, ...] = (),
        friction: float | None = None,
        physics: Any = None,
        record: bool = True,
    ) -> None:
        from robotsim.motion.profile import motion_profile
        from robotsim.physics import World

        self.driver = driver
        biped = self.biped = driver.biped
        model = self.model = biped.model
        if physics is None:
            physics = motion_profile(model)[1].physics
        self.physics = physics
        self.friction = physics.friction if friction is None else friction
        scene = _scene(biped, driver.q, driver.T, physics, friction, driver.ground)
        world = self.world = World(scene)
        joints = [world.joint(f"{ROBOT}/{n}") for n in model.joint_names]
        world.model.dof_armature[[j.vadr for j in joints]] = np.maximum(
            world.model.dof_armature[[j.vadr for j in joints]], physics.armature
        )
        world.reset()
        self.sensors: Any = None  # a SensorRig of this world: it steps it (robotsim.sensors)
        self._motor_ids = np.array([world.motor(f"{ROBOT}/{n}").id for n in model.joint_names])
        self._targets = world._targets  # the servo targets the world applies at each step
        self.base = world.body(f"{ROBOT}/{model.root}")
        self._bodies = frozenset(f"{ROBOT}/{lk}" for lk in model.link_names)
        self._qadr = np.array([j.qadr for j in joints])
        self._qpos = world.data.qpos
        fall = self._fall = physics.fall
        self._cos_max = math.cos(math.radians(fall.max_tilt_deg))
        res = self.res = driver.res
        self.stab = Stabilizer(res.omega, biped.leg_length, gains)
        self._feedback = self.stab.gains.enabled
        ik = driver.ik if hasattr(driver, "ik") else driver.engine.ik
        self._measure = WholeBodyIK.measure.__get__(ik)
        self.dt = res.dt
        self.rows: list[tuple[Any, ...]] = []
        self.record = record
        self.fell_at: float | None = None
        self.reason = "the root stayed above the fall height and within the fall tilt"
        self.pushes = list(pushes)
        self._R_up = biped.R_root_upright
        self._weights = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
        self.ref = driver.reference()
        self.q_cmd = np.array(driver.q)
        self.soles = np.zeros((2, 3, 4))
        self.wall = 0.0
        self.cpu = 0.0
        self._measure_now()

    @property
    def t(self) -> float:
        return float(self.driver.t)

    @property
    def fell(self) -> bool:
        return self.fell_at is not None

    def push(self, impulse: float, direction: tuple[float, float], duration: float = 0.1) -> None:
        """An impulse (N s) on the root along world ``direction`` (x, y), from now."""
        self.pushes.append(Push(self.t, impulse, direction, duration))

    def _measure_now(self) -> tuple[Any, ...]:
        """Measure (module docs), re-anchor on a foot standing alone, compute the
        corrected targets; returns the row of this tick."""
        driver, stab = self.driver, self.stab
        t = self.t
        T_b = self.base.pose
        q = self._qpos[self._qadr].copy()
        soles, com = self._measure(T_b, q)  # (2, 3, 4), (3,) measured
        self.soles = soles
        for swing in driver.lifted:  # one foot carries the robot: where is it really?
            S = soles[1 - swing]
            driver.reanchor(
                1 - swing, (float(S[0, 3]), float(S[1, 3]), math.atan2(S[1, 0], S[0, 0]))
            )
            self.ref = driver.reference()
        ref = self.ref
        # compare with the pattern relative to the feet that carry the robot (the
        # support foot is the root, as in seed 000): slips move the pattern's world
        offset = self._weights[ref.support] @ (soles[:, :2, 3] - ref.feet[:, :2, 3])
        com_rel = com.copy()
        com_rel[:2] -= offset
        vel = stab.filtered_velocity(t, com)
        pos, frc = self.world.contact_forces().on(self._bodies)
        zmp = None
        if len(frc) and frc[:, 2].sum() > 1e-6:
            zmp = (pos[:, :2] * frc[:, 2:3]).sum(axis=0) / frc[:, 2].sum() - offset
        meas = Measured(t, T_b, q, com_rel, vel, zmp)
        com_cmd, R_cmd, err = stab.correct(ref.com, ref.com_vel, ref.zmp, ref.R_torso, meas)
        if self._feedback:
            q_cmd, _ = driver.solve(ref, com_cmd, R_cmd)
        else:
            q_cmd = driver.nominal_q()
        self.q_cmd = np.array(q_cmd)
        zrow = zmp if zmp is not None else (math.nan, math.nan)
        row = (t, T_b, q, self.q_cmd, com, ref.com, zrow, ref.zmp, err, soles, ref.support)
        if self.record:
            self.rows.append(row)
        h = T_b[2, 3] - float(driver.ground.z(T_b[0, 3], T_b[1, 3]))
        up = float(T_b[2, :3] @ self._R_up[2])  # cos of the tilt from upright
        fall = self._fall
        if self.fell_at is None and (h < fall.min_base_height or up < self._cos_max):
            self.fell_at = t
            tilt = math.degrees(math.acos(max(-1.0, min(1.0, up))))
            self.reason = (
                f"root {h:.3f} m above the ground < {fall.min_base_height:g} m"
                if h < fall.min_base_height
                else f"root tilted {tilt:.1f} deg > {fall.max_tilt_deg:g} deg"
            )
        return row

    def step(self) -> None:
        """Send the targets, step the physics one control period, measure."""
        wall0, cpu0 = time.perf_counter(), time.process_time()
        self._targets[self._motor_ids] = self.q_cmd
        t = self.t
        for p in self.pushes:
            if p.t <= t < p.t + p.duration:
                self.base.apply_force(p.force())
        if self.sensors is None:
            self.world.advance(self.dt)
        else:  # the rig steps the world, reading each sensor when it is due
            self.sensors.step(max(1, round(self.dt / self.world.timestep)))
        self.ref = self.driver.tick()
        self._measure_now()
        self.wall += time.perf_counter() - wall0
        self.cpu += time.process_time() - cpu0

    def joint_positions(self) -> np.ndarray:
        """The measured joints ``(nq,)`` now (rad or m)."""
        return self._qpos[self._qadr].copy()

    def link_poses(self) -> np.ndarray:
        """Every link's measured world pose ``(L, 4, 4)`` now."""
        q = self._qpos[self._qadr]
        return self.base.pose @ self.model.fk_all(q)

    def result(self) -> WalkRun:
        """The :class:`WalkRun` of the ticks recorded so far."""
        cols = list(zip(*self.rows))
        root = np.array(cols[1])
        R_up = self._R_up
        tilt = np.degrees(np.arccos(np.clip(root[:, 2, :3] @ R_up[2], -1, 1)))
        d = self.driver
        return WalkRun(
            biped=self.biped,
            params=self.res,
            goal=tuple(float(v) for v in d.goal),  # type: ignore[arg-type]
            feet0=np.array(d.feet0),
            t_start=float(d.t_start),
            t_walk=float(d.t_walk),
            steps=tuple(d.steps),
            t=np.array(cols[0]),
            root=root,
            q=np.array(cols[2]),
            q_cmd=np.array(cols[3]),
            com=np.array(cols[4]),
            com_ref=np.array(cols[5]),
            zmp=np.array(cols[6], dtype=np.float64),
            zmp_ref=np.array(cols[7]),
            dcm_error=np.array(cols[8]),
            tilt_deg=tilt,
            soles=np.array(cols[9]),
            support=np.array(cols[10], dtype=np.int64),
            fell=self.fell,
            fell_at_s=self.fell_at,
            reason=self.reason,
            sim_seconds=float(self.world.time),
            wall_seconds=self.wall,
            cpu_seconds=self.cpu,
            extra={"timestep_s": self.world.timestep, "control_dt_s": self.dt},
            ground=d.ground,
        )


def run_driver(
    driver: Any,
    gains: BalanceGains | None = None,
    pushes: tuple[Push, ...] = (),
    friction: float | None = None,
    stop_after_fall: float = 0.5,
    physics: Any = None,
    max_ticks: int | None = None,
    setup: Callable[[WalkSim], None] | None = None,
) -> WalkRun:
    """The control loop (module docs) around a driver, to its end (or a fall);
    ``setup(sim)`` before the first tick."""
    sim = WalkSim(driver, gains, pushes, friction, physics)
    if setup is not None:
        setup(sim)
    limit = max_ticks if max_ticks is not None else 10**9
    k = 0
    while not (
        (sim.fell_at is not None and sim.t >= sim.fell_at + stop_after_fall)
        or driver.done
        or k >= limit
    ):
        sim.step()
        k += 1
    return sim.result()
