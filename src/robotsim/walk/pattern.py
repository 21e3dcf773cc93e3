"""The walk pattern generator: goal -> footsteps -> ZMP -> CoM -> swing -> whole-body IK.

1. Footsteps (:mod:`robotsim.walk.footsteps`) that reach the goal within the step
   limits, as many pairs as the requested mean speed allows;
2. their timing and the ZMP reference (:mod:`robotsim.walk.plan`);
3. the CoM by ZMP preview control of the cart-table model (Kajita et al. 2003,
   :mod:`robotsim.walk.preview`) at a constant height ``zc`` above the ground;
4. the swing feet (:mod:`robotsim.walk.swing`);
5. the joints by whole-body IK (:mod:`robotsim.walk.wbik`): soles exact, CoM tracked,
   torso upright and turned to the heading between the feet, joint limits kept.

Speed: a walk of ``d`` metres takes ``T (n + 2) + Ts`` seconds with ``n`` steps of
period ``T`` (one period to shift the weight before the first step, one after the last
to bring it back between the feet); its mean speed is ``d`` over that time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from robotsim.errors import InputError, KinematicsError, ModelError
from robotsim.walk.biped import Biped
from robotsim.walk.footsteps import Footstep, goal_footsteps, pairs_needed
from robotsim.walk.momentum import swing_momentum_gains, zmp_shift
from robotsim.walk.params import CROUCHES, Resolved, WalkParams, resolve_params
from robotsim.walk.plan import Plan, timed_plan
from robotsim.walk.preview import G, preview_gains, preview_track
from robotsim.walk.swing import Ground
from robotsim.walk.wbik import WholeBodyIK

#: the largest foot or CoM miss (m) and foot rotation miss (rad) a pattern accepts
FOOT_TOL = 1e-4
ROT_TOL = 1e-3

#: the most steps one walk (a goal) takes: a slow speed over a long way (steps grow in
#: number as 1 / speed) is a one-line error saying the slowest speed that fits
MAX_STEPS = 1000
#: the most samples a pattern holds (its length over ``dt``): a bound on time and memory
#: whatever the parameters (a step period of hours)
MAX_SAMPLES = 2_000_000

__all__ = [
    "MAX_SAMPLES",
    "MAX_STEPS",
    "STEADY_SHARE",
    "SWING_MARGIN",
    "UNROLLED_STEP",
    "WalkPattern",
    "bent_seed",
    "default_speed",
    "generate_walk",
    "heading_R",
    "sole_margin",
    "standing_feet",
    "swing_dcm_per_speed",
    "swing_zmp_per_speed",
    "walk_duration",
]


@dataclass(frozen=True, eq=False)
class WalkPattern:
    """A generated walk, sampled every ``params.dt`` seconds (arrays per sample ``n``).

    ``q`` (n, nq) joint targets; ``root`` (n, 4, 4) the root's world pose; ``com``
    (n, 3) and ``com_vel`` (n, 3) the CoM reference (m, m/s); ``zmp_ref`` (n, 2) the
    planned ZMP and ``zmp`` (n, 2) the cart-table model's; ``feet`` (n, 2, 4, 4) the sole
    poses (left, right); ``support`` (n,) 0 left, 1 right, 2 both; ``ik_errors`` (n, 3)
    foot position (m), foot rotation (rad) and CoM (m) residuals of the IK;
    ``torso_lean`` (n,) how far the torso leaves upright and ``sole_roll`` (n,) how far
    the soles roll where the legs cannot keep them flat (rad)."""

    biped: Biped
    params: Resolved
    plan: Plan
    t: np.ndarray
    q: np.ndarray
    root: np.ndarray
    com: np.ndarray
    com_vel: np.ndarray
    zmp_ref: np.ndarray
    zmp: np.ndarray
    feet: np.ndarray
    support: np.ndarray
    ik_errors: np.ndarray
    torso_lean: np.ndarray
    sole_roll: np.ndarray
    goal: tuple[float, float, float]
    pairs: int = 0

    @property
    def duration(self) -> float:
        return float(self.t[-1])

    def summary(self) -> dict[str, Any]:
        """Numbers of the pattern (m, s, rad)."""
        d = math.hypot(self.goal[0], self.goal[1])
        walk = self.plan.t_walk - self.plan.t_start
        return {
            "steps": len(self.plan.steps),
            "walk_time_s": walk,
            "duration_s": self.duration,
            "planned_speed_m_s": d / walk if walk > 0 else 0.0,
            "max_zmp_model_error_m": float(np.max(np.linalg.norm(self.zmp - self.zmp_ref, axis=1))),
            "max_foot_error_m": float(np.max(self.ik_errors[:, 0])),
            "max_foot_rotation_error_rad": float(np.max(self.ik_errors[:, 1])),
            "max_com_error_m": float(np.max(self.ik_errors[:, 2])),
            "max_torso_lean_deg": float(np.degrees(np.max(self.torso_lean))),
            "max_sole_roll_deg": float(np.degrees(np.max(self.sole_roll))),
        }


def standing_feet(biped: Biped, half_width: float | None = None) -> np.ndarray:
    """The soles ``(2, 3)`` (x, y, yaw) of the robot standing with its root above the
    origin, upright; ``half_width`` moves them symmetrically sideways."""
    m = biped.model
    feet = np.zeros((2, 3))
    for k, s in enumerate(biped.soles):
        p = biped.R_root_upright @ m.fk(biped.q_rest, s)[:3, 3]
        feet[k, :2] = p[:2]
    if half_width is not None:
        mid = feet[:, 1].mean()
        feet[0, 1], feet[1, 1] = mid + half_width, mid - half_width
    return feet


def heading_R(biped: Biped, yaw: np.ndarray) -> np.ndarray:
    """Root orientations ``(n, 3, 3)``: upright, turned by ``yaw`` ``(n,)`` (rad)."""
    c, s = np.cos(yaw), np.sin(yaw)
    Rz = np.zeros((len(yaw), 3, 3))
    Rz[:, 0, 0], Rz[:, 0, 1], Rz[:, 1, 0], Rz[:, 1, 1] = c, -s, s, c
    Rz[:, 2, 2] = 1.0
    return Rz @ biped.R_root_upright


def bent_seed(biped: Biped) -> np.ndarray:
    """``q_rest`` with each leg's lopsided joints (knees: a limit near zero, the other
    far) bent a fifth of the way to their far limit: a start for IK away from the
    stretched-leg singularity, on the side the knee bends."""
    m = biped.model
    q = biped.q_rest.copy()
    for cols in biped.leg_cols:
        for c in cols:
            lo, hi = float(m.lower[c]), float(m.upper[c])
            if not (np.isfinite(lo) and np.isfinite(hi)):
                continue
            small, big = sorted((lo, hi), key=abs)
            if abs(big) > 0.5 and abs(big) >= 3 * abs(small):
                q[c] = 0.2 * big
    return q


def walk_duration(res: Resolved, n_steps: int) -> float:
    """How long a walk of ``n_steps`` steps lasts, weight shifts included (s; see the
    module docs)."""
    if n_steps == 0:
        return 0.0
    return res.step_period * (n_steps + 1) + res.t_single


#: the share of the sole's margin (:func:`sole_margin`) the capture point may move by
#: at the default speed under the swing legs' ZMP excursion, estimated by one lumped leg
#: (:func:`swing_dcm_per_speed`). The multibody excursion is larger than the lumped
#: leg's (the body moving against the leg to hold the CoM: 2.7 cm on NAO's file at 0.4
#: leg lengths/s against 0.8 cm lumped); the momentum correction
#: (:mod:`robotsim.walk.momentum`) cancels most of it, and what is left (the feet's
#: vertical motion, the servos' lag) must not carry the capture point off the sole.
#: Measured on NAO's file (4.4 cm stand-in soles): it walks at 0.44 leg lengths/s and
#: rocks off its soles' edges at 0.6; 0.35 puts it at 0.44.
SWING_MARGIN = 0.35

#: the share of the steady fastest walk (:attr:`Resolved.max_speed`: the longest steps
#: at the step period) a walk asked for no speed takes at most. ROBOTIS's OP3 file
#: (12.7 cm soles) walks 2 m at 0.74 leg lengths/s (0.64 of its
#: steady fastest) and falls in its first steps at 0.88 (0.77).
STEADY_SHARE = 0.62

#: the longest step (leg lengths) a walk asked for no speed takes with legs that cannot
#: roll a sole (no ankle roll): they walk quicker steps
#: (:func:`robotsim.walk.params.sway_period`) on soles rolled onto an edge, and long
#: steps tip or spin them. Measured on the H1-like MJCF of the tests (0.87 m legs,
#: 0.37 s steps, 24 cm soles whose margin would allow 0.62 leg lengths/s): 2 m in steps
#: of 0.19 l ends 3 mm from the goal tilting 2.2 deg; in steps of 0.23 l it tilts 12 deg
#: and ends 13 cm short; 1 m in steps of 0.29 l turns it 24 deg; 0.62 leg lengths/s
#: spins it and it falls. Unitree's H1 file walks 2 m in steps of 0.19 l.
UNROLLED_STEP = 0.2


def sole_margin(biped: Biped) -> float:
    """The ZMP's room along the walk (m): from the sole's reference point (its area
    centroid, where single support puts the ZMP) to its nearer end, the smaller sole."""
    return float(
        min(
            min(c[0] - P[:, 0].min(), P[:, 0].max() - c[0])
            for P, c in zip(biped.polygons, biped.centres)
        )
    )


def swing_zmp_per_speed(biped: Biped, res: Resolved) -> float:
    """The ZMP excursion (m per m/s of walking speed) a swinging leg makes if nothing
    corrects it: the leg (mass ``m``, its centre ``h`` above the sole, pivoting at the
    hip ``l`` above it) moves with the swing foot's peak minimum-jerk acceleration
    ``5.77 s / t^2`` over a stride ``s = 2 v T`` in ``t = 0.9`` of the single support,
    its centre at ``(l - h) / l`` of that; the horizontal force at height ``h`` moves
    the ZMP by ``m a h / (M g)``."""
    ll, h = biped.leg_length, biped.leg_com_height
    lever = h * max(ll - h, 0.0) / ll
    acc_per_v = 5.77 * 2.0 * res.step_period / (0.9 * res.t_single) ** 2
    return biped.leg_mass / biped.mass * lever * acc_per_v / G


def swing_dcm_per_speed(biped: Biped, res: Resolved) -> float:
    """How far (m per m/s of walking speed) the swing leg's uncorrected ZMP excursion
    (:func:`swing_zmp_per_speed`, following the foot's minimum-jerk acceleration
    ``s / t^2 (60 u - 180 u^2 + 120 u^3)``) moves the capture point while the foot
    speeds up (the first half of the swing, ``u`` in [0, 1/2]; the second half moves it
    back): the pendulum's capture point ``xi`` follows ``xi' = (xi - p) / tau``, so a
    ZMP shift ``e(t)`` moves it by ``int e(t') exp((t - t') / tau) dt' / tau``. A swing
    short against ``tau`` (quick steps) moves it by about the foot's peak speed times the
    excursion per acceleration over ``tau``: for the same walking speed the same,
    whatever the step period; a long swing lets the shift grow for longer."""
    ll, h = biped.leg_length, biped.leg_com_height
    lever = h * max(ll - h, 0.0) / ll
    t = 0.9 * res.t_single
    tau = math.sqrt(res.com_height / G)
    u = np.linspace(0.0, 0.5, 201)
    acc = 2.0 * res.step_period / t**2 * (60 * u - 180 * u**2 + 120 * u**3)  # per m/s
    e = biped.leg_mass / biped.mass * lever * acc / G
    return float(np.trapezoid(e * np.exp((0.5 - u) * t / tau), u * t) / tau)


def default_speed(res: Resolved, v_max: float, biped: Biped | None = None) -> float:
    """The mean speed (m/s) of a walk asked for none: the fastest the step limits allow
    for this goal (``v_max``, m/s), at most :data:`STEADY_SHARE` of the steady fastest
    (:attr:`Resolved.max_speed`), and at most the
    speed at which the capture point moved by the swing legs' uncorrected ZMP
    excursion reaches :data:`SWING_MARGIN` times the sole's margin (:func:`sole_margin`,
    :func:`swing_dcm_per_speed`): a short sole or heavy legs walk slower (NAO's file
    on 4.4 cm soles: 0.44 leg lengths/s; a 44 kg humanoid on 22 cm soles: its step
    limits, 0.43 over 2 m)."""
    v = min(v_max, STEADY_SHARE * res.max_speed)
    if biped is not None and biped.leg_mass > 0:
        per_v = swing_dcm_per_speed(biped, res)
        if per_v > 0:
            margin = sole_margin(biped)
            if not margin > 0:
                raise ModelError(_no_margin(biped))
            v = min(v, SWING_MARGIN * margin / per_v)
    return v


def _no_margin(biped: Biped) -> str:
    """The one-line error of a sole that leaves the ZMP no room along the walk."""
    k, end, m = min(
        (
            (k, end, float(m))
            for k, (P, c) in enumerate(zip(biped.polygons, biped.centres))
            for end, m in (("back", c[0] - P[:, 0].min()), ("front", P[:, 0].max() - c[0]))
        ),
        key=lambda x: x[2],
    )
    return (
        f"{biped.name}: the {('left', 'right')[k]} sole {biped.soles[k]!r} leaves the ZMP "
        f"{m * 1e3:.3g} mm from its centre to its {end} end (sole length "
        f"{np.ptp(biped.polygons[k][:, 0]) * 1e3:.3g} mm): no default walking speed; "
        "give the sole a length along x (profile file: feet size or polygon) or a speed "
        "(--speed)"
    )


def _choose_steps(
    res: Resolved,
    feet0: np.ndarray,
    goal: tuple[float, float, float],
    speed: float | None,
    name: str,
    biped: Biped | None = None,
) -> tuple[list[Footstep], float, int]:
    """``(footsteps, mean speed asked for, pairs of steps)`` of a goal; the default
    speed is :func:`default_speed`, of the fastest walk in steps of at most
    :data:`UNROLLED_STEP` leg lengths for legs that cannot roll a sole."""
    d, lat, turn = goal
    need = pairs_needed(res, d, lat, turn)
    dist = math.hypot(d, lat)
    if 2 * need > MAX_STEPS:
        raise InputError(
            f"{name}: the goal ({d:.4g} m forward, {lat:.4g} m left, "
            f"{math.degrees(turn):.4g} deg) takes {2 * need} steps at its step limits, more "
            f"than the {MAX_STEPS} a walk may take: a nearer goal"
        )
    if dist < 1e-9:
        return goal_footsteps(res, feet0, d, lat, turn, pairs=need), 0.0, need
    fastest = goal_footsteps(res, feet0, d, lat, turn, pairs=need)
    v_max = dist / walk_duration(res, len(fastest))
    asked = speed
    if speed is None:
        v_default = v_max
        if biped is not None and not biped.rolls_soles:
            # legs that cannot roll a sole: the fastest in steps of UNROLLED_STEP
            short = replace(
                res, max_step_length=min(res.max_step_length, UNROLLED_STEP * res.leg_length)
            )
            n_short = len(
                goal_footsteps(short, feet0, d, lat, turn, pairs=pairs_needed(short, d, lat, turn))
            )
            v_default = min(v_max, dist / walk_duration(res, n_short))
        speed = default_speed(res, v_default, biped)
        if not speed > 0:
            raise ModelError(
                f"{name}: no default walking speed ({speed:g} m/s from its step limits: "
                f"steps of at most {res.max_step_length:.3g} m every "
                f"{res.step_period:.3g} s); give a speed (--speed)"
            )
    if not speed > 0:
        raise InputError(f"--speed: {speed:g} m/s; must be > 0")
    if speed > v_max * (1 + 1e-9):
        raise InputError(
            f"{name}: a mean speed of {speed:.3g} m/s over {dist:.3g} m is more than its legs "
            f"can do: at most {v_max:.3g} m/s ({v_max / res.leg_length:.2f} leg lengths/s; "
            f"steps of at most {res.max_step_length:.3g} m every {res.step_period:.3g} s)"
        )
    # the most pairs (shortest steps) that still reach the speed
    T = res.step_period
    est = max(need, int((dist / speed - T - res.t_single) / T) // 2 + 1)
    if 2 * est > MAX_STEPS:
        slowest = dist / walk_duration(res, MAX_STEPS)
        why = (
            f"the default speed its soles allow, {speed:.3g} m/s"
            if asked is None
            else f"a mean speed of {speed:.3g} m/s"
        )
        raise InputError(
            f"{name}: {why} over {dist:.3g} m takes about {2 * est} steps, more than "
            f"the {MAX_STEPS} a walk may take: ask at least {slowest:.3g} m/s (--speed) "
            "or a shorter distance"
        )
    for pairs in range(est, need - 1, -1):
        steps = goal_footsteps(res, feet0, d, lat, turn, pairs=pairs)
        if dist / walk_duration(res, len(steps)) >= speed * (1 - 1e-9):
            return steps, speed, pairs
    return fastest, speed, need


def generate_walk(
    biped: Biped,
    distance: float,
    lateral: float = 0.0,
    turn: float = 0.0,
    speed: float | None = None,
    params: WalkParams | None = None,
    ground: Ground | None = None,
) -> WalkPattern:
    """The walk pattern (module docs) that carries the robot ``distance`` m forward,
    ``lateral`` m to its left and turns it by ``turn`` rad, at a mean ``speed`` (m/s;
    default: :func:`default_speed`), starting standing
    with its root above the origin, heading +x. One-line :class:`InputError` for goals
    or speeds its legs cannot do."""
    for what, v in (("distance", distance), ("lateral", lateral), ("turn", turn)):
        if not math.isfinite(v):
            raise InputError(f"--{what}: {v!r}; must be a finite number")
    p = params or WalkParams()
    goal = (distance, lateral, turn)
    if speed is not None:
        try:
            return _first_that_solves(biped, p, goal, [speed], ground)
        except KinematicsError as exc:
            lower = [speed * f for f in (0.8, 0.6, 0.4, 0.2)]
            try:
                ok = _first_that_solves(biped, p, goal, lower, ground)
            except KinematicsError:
                raise InputError(f"{exc} (no slower walk solves either)") from None
            got = ok.summary()["planned_speed_m_s"]
            raise InputError(
                f"{biped.name}: its legs cannot follow a walk at {speed:.3g} m/s (steps too "
                f"long for their joint limits); at most about {got:.3g} m/s "
                f"({got / biped.leg_length:.2f} leg lengths/s)"
            ) from None
    return _first_that_solves(biped, p, goal, [None, 0.8, 0.6, 0.4], ground)


def _first_that_solves(
    biped: Biped,
    p: WalkParams,
    goal: tuple[float, float, float],
    speeds: list[float | None],
    ground: Ground | None,
) -> WalkPattern:
    """The first pattern whose IK solves, over the speeds (m/s; a float below 1 after
    ``None`` is a fraction of the default speed) and the crouch depths (:data:`CROUCHES`
    unless ``p`` sets one)."""
    crouches = [None] if p.crouch is not None or p.com_height is not None else CROUCHES
    failure: KinematicsError | None = None
    default: float | None = None
    for sp in speeds:
        for c in crouches:
            q = p if c is None else p.with_(crouch=c * biped.leg_length)
            res = resolve_params(biped, q)
            if abs(goal[2]) > 1e-12 and res.max_turn <= 0:
                raise InputError(
                    f"{biped.name}: its legs have no joint about the vertical (a hip yaw): "
                    "it cannot turn; walk straight or sideways (--turn 0)"
                )
            g = ground or Ground()
            feet0 = standing_feet(biped, p.half_width)
            want = sp
            if default is not None and sp is not None and sp < 1.0:
                want = sp * default
            steps, used, pairs = _choose_steps(res, feet0, goal, want, biped.name, biped)
            if sp is None and default is None:
                default = used
            plan = timed_plan(
                feet0, steps, res.t_single, res.t_double, res.step_height, biped.centres, g,
                hold=res.preview,
            )  # fmt: skip
            try:
                return replace(pattern_from_plan(biped, res, plan, goal), pairs=pairs)
            except KinematicsError as exc:
                failure = failure or exc
    assert failure is not None
    raise failure


def pattern_from_plan(
    biped: Biped, res: Resolved, plan: Plan, goal: tuple[float, float, float] = (0, 0, 0)
) -> WalkPattern:
    """Steps 3-5 of the module docs for a timed plan."""
    dt = res.dt
    n = math.floor(plan.t_end / dt + 1e-9) + 1
    if n > MAX_SAMPLES:
        raise InputError(
            f"{biped.name}: a walk of {plan.t_end:.4g} s in samples of {dt:g} s is "
            f"{n} samples, more than {MAX_SAMPLES}: a shorter step period, a larger dt "
            "or a shorter walk"
        )
    t = np.arange(n) * dt
    zmp_ref = plan.zmp(t)
    feet, support = plan.feet(t)
    # the torso heads between the feet
    ya, yb = (
        np.arctan2(feet[:, 0, 1, 0], feet[:, 0, 0, 0]),
        np.arctan2(feet[:, 1, 1, 0], feet[:, 1, 0, 0]),
    )
    dyaw = (yb - ya + np.pi) % (2 * np.pi) - np.pi
    R = heading_R(biped, ya + dyaw / 2)
    ik = WholeBodyIK(biped)
    seed = bent_seed(biped)
    c0 = np.array([zmp_ref[0, 0], zmp_ref[0, 1], 0.0])
    c0[2] = float(plan.ground.z(c0[0], c0[1])) + res.com_height
    T0 = np.eye(4)
    T0[:3, :3] = R[0]
    T0[:3, 3] = [c0[0], c0[1], c0[2] + biped.sole_height - biped.com_height]
    q1, T1, _ = ik.solve(feet[0], c0, R[0], seed, T0)
    # the legs' momentum moves the robot's ZMP off the pendulum's (momentum.py): the
    # pendulum tracks the reference less that shift
    K = swing_momentum_gains(biped, ik, feet[0], c0, R[0], q1, T1, res.step_height)
    shift = np.zeros_like(zmp_ref)
    if n > 2:
        shift[1:-1] = zmp_shift(K, biped.mass, feet[:, :, :3, 3], np.stack([ya, yb], axis=1), dt)
    gains = preview_gains(dt, res.com_height, res.preview, res.qe, res.r)
    xs, zmp = preview_track(gains, zmp_ref - shift)
    zmp = zmp + shift
    com = np.empty((n, 3))
    com[:, :2] = xs[:, 0, :]
    com[:, 2] = plan.ground.z(com[:, 0], com[:, 1]) + res.com_height
    com_vel = np.zeros((n, 3))
    com_vel[:, :2] = xs[:, 1, :]
    com_vel[:, 2] = plan.ground.slope_x * com_vel[:, 0] + plan.ground.slope_y * com_vel[:, 1]
    q1, T1, _ = ik.solve(feet[0], com[0], R[0], q1, T1)
    sol = ik.path(feet, com, R, q1, T1, stop=(FOOT_TOL, ROT_TOL))
    bad = np.flatnonzero(
        (sol.errors[:, 0] > FOOT_TOL) | (sol.errors[:, 1] > ROT_TOL) | (sol.errors[:, 2] > FOOT_TOL)
    )
    if bad.size:
        k = int(bad[0])
        e = sol.errors[k]
        raise KinematicsError(
            f"{biped.name}: the legs cannot follow the walk at t={t[k]:.2f} s (feet "
            f"missed by {e[0] * 1e3:.2g} mm and {math.degrees(e[1]):.2g} deg, CoM by "
            f"{e[2] * 1e3:.2g} mm): shorter steps, a lower --crouch or a slower --speed"
        )
    return WalkPattern(
        biped=biped,
        params=res,
        plan=plan,
        t=t,
        q=sol.q,
        root=sol.root,
        com=com,
        com_vel=com_vel,
        zmp_ref=zmp_ref,
        zmp=zmp,
        feet=feet,
        support=support,
        ik_errors=sol.errors,
        torso_lean=sol.torso,
        sole_roll=sol.sole_roll,
        goal=(float(goal[0]), float(goal[1]), float(goal[2])),
    )
