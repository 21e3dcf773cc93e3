"""A static walk generated with leg IK, stored as keyframes (the shipped ``walk_forward``).

Any biped works: the legs, their joints and the sole frames come from the robot's
profile (:mod:`robotsim.profile`, inferred from the model when it has no profile file),
the left foot being the one on the +y side; each sole is placed by IK over its own
leg's joints only (damped least squares on the leg's Jacobian columns).

The gait is designed in the world (z up, x forward) and turned into joint keyframes:

- the body stays upright at a fixed height above the floor (a crouch, so the legs can
  reach forward and back);
- every keyframe names where each sole is (flat, on the floor or lifted) and where the
  centre of mass must be over the ground; the body's x, y are solved so the CoM lands
  there (a few fixed-point iterations), and each leg's joints by IK on its sole frame;
- a step is: shift the CoM over the stance foot in double support (three keyframes,
  so linear interpolation keeps the other sole within a fraction of a millimetre of the
  floor), lift the swing foot, carry it forward in two keyframes, set it down exactly
  on the floor at a keyframe. The CoM stays over the stance sole's centre during single
  support — a static walk, stable at any speed level the servos can follow.

The defaults (body 0.24 m above the floor, 4.5 cm steps, 1.2 cm clearance, six
keyframes per weight shift) keep the knees well bent (the legs far from their
stretched singularity), so linear interpolation between double-support keyframes
moves the free sole by less than 0.03 mm off the floor.

Because every keyframe is relative to the body, one "cycle" motion (a right step and a
left step) repeats unchanged: the program is crouch, first (half) step, cycle x N, a
closing step, stand up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robotsim.errors import KinematicsError
from robotsim.model.robot import RobotModel
from robotsim.motion.balance import com_world
from robotsim.motion.schema import Keyframe, Motion, Program, ProgramStep
from robotsim.spatial import inv_T

__all__ = [
    "REFERENCE_HEIGHT",
    "BipedWalk",
    "Knee",
    "LegIK",
    "LegReach",
    "WalkParams",
    "bent_leg",
    "biped_walk",
    "carries_sideways",
    "knee_of",
    "leg_ik",
    "leg_reach",
    "static_walk",
    "walk_legs",
]

REFERENCE_HEIGHT = 0.3  # m: standing sole depth the default speed levels suit (humanoid17)


@dataclass(frozen=True)
class WalkParams:
    """Gait parameters (m, speed levels 1..8)."""

    step_length: float = 0.045
    clearance: float = 0.012
    body_height: float = 0.24
    cycles: int = 4
    shift_keyframes: int = 6
    shift_speed: int = 8
    swing_speed: int = 4
    lift_speed: int = 5
    com_inset: float = 0.0  # m: CoM this far from the stance sole's centre towards the other
    half_width: float | None = None  # m: soles this far either side (default: zero pose)
    left_sole: str | None = None  # default: from the robot's profile
    right_sole: str | None = None


@dataclass(frozen=True)
class _Spec:
    name: str
    feet: tuple[tuple[float, float, float], tuple[float, float, float]]  # left, right xyz
    com: tuple[float, float]
    speed: int


class _Solver:
    def __init__(
        self,
        model: RobotModel,
        p: WalkParams,
        soles: tuple[str, str],
        legs: tuple[list[int], ...],
        lateral: bool = True,
    ) -> None:
        self.model = model
        self.p = p
        self.soles = soles
        self.legs = legs
        self.lateral = lateral  # False: the legs cannot carry the body sideways
        self.knees = [knee_of(model, cols, frame) for cols, frame in zip(legs, soles)]
        self.q = model.zero()
        self.body_xy = np.zeros(2)
        self.started = [False, False]

    def _leg(self, k: int, target: np.ndarray, q: np.ndarray) -> LegIK:
        """Leg ``k`` to ``target`` (root frame): from the last solution, else (the first
        keyframe, or stuck) from the leg bent at its knee for this sole height."""
        m, frame, cols = self.model, self.soles[k], self.legs[k]
        tries = [q] if self.started[k] else []
        tries.append(bent_leg(m, q, cols, self.knees[k], frame, target))
        best: LegIK | None = None
        for q0 in tries:
            res = leg_ik(m, frame, target, q0, cols)
            if res.reached:
                self.started[k] = True
                return res
            if best is None or res.score < best.score:
                best = res
        assert best is not None
        return best

    def solve(self, spec: _Spec) -> np.ndarray:
        m, p = self.model, self.p
        q = self.q.copy()
        bxy = self.body_xy.copy()
        for _ in range(12):
            T_wb = np.eye(4)
            T_wb[:2, 3] = bxy
            T_wb[2, 3] = p.body_height
            for k, xyz in enumerate(spec.feet):
                T_ws = np.eye(4)
                T_ws[:3, 3] = xyz
                target = inv_T(T_wb) @ T_ws
                res = self._leg(k, target, q)
                if not res.reached:
                    raise KinematicsError(self._miss(spec, k, xyz, res, target))
                q = res.q
            com = com_world(m, T_wb @ m.fk_all(q))
            err = np.asarray(spec.com) - com[:2]
            if not self.lateral:  # the soles fix the body sideways: only x is free
                err[1] = 0.0
            bxy = bxy + err
            if np.max(np.abs(err)) < 1e-9:
                break
        self.q, self.body_xy = q, bxy
        return q

    def _miss(self, spec: _Spec, k: int, xyz: tuple, res: LegIK, target: np.ndarray) -> str:
        """Why leg ``k`` misses ``target`` and what would help, in one line."""
        m, p = self.model, self.p
        where = ", ".join(f"{v:.4g}" for v in xyz)
        head = (
            f"walk keyframe {spec.name!r}: {self.soles[k]} cannot reach ({where}) m with the "
            f"body {p.body_height:g} m above the floor: the closest leg pose misses by "
            f"{res.position_error:.3g} m and {np.degrees(res.rotation_error):.3g} deg"
        )
        if res.at_limits:
            head += f", {', '.join(res.at_limits)} at a joint limit"
        reach = leg_reach(m, self.legs[k], self.soles[k])
        dist = float(np.linalg.norm(target[:3, 3] - reach.hip))
        ahead = abs(float(target[0, 3] - reach.hip[0])) > 0.25 * reach.straight
        knee = self.knees[k]
        folded = stretched = False
        if knee is not None:
            v, lo, hi = res.q[knee.col], m.lower[knee.col], m.upper[knee.col]
            flex_limit, straight_limit = (hi, lo) if knee.bend > 0 else (lo, hi)
            folded = bool(np.isclose(v, flex_limit))
            stretched = bool(np.isclose(v, straight_limit)) or knee.bend * v < 0.05
        if dist > 0.98 * reach.straight or stretched:
            short = max(dist - 0.95 * reach.straight, res.position_error)
            lower = p.body_height - short - 0.02 * reach.straight
            advice = (
                f"the leg is stretched (the sole {dist:.3f} m from the hip, the straight "
                f"leg {reach.straight:.3f} m): give a lower --height (about {lower:.3g} m)"
                + (" or a shorter --step-length" if ahead else "")
            )
        elif folded:
            advice = "the knee is fully bent: give a higher --height or a smaller --clearance"
        elif res.at_limits:
            advice = (
                "the joint limits stop the leg before the sole gets there: give a shorter "
                "--step-length, a smaller --clearance or another --height"
            )
        else:
            advice = (
                "give a shorter --step-length, or a --height between 0.8 and 0.95 of the "
                "standing hip height"
            )
        return f"{head}; {advice}"


@dataclass(frozen=True)
class LegIK:
    """What :func:`leg_ik` found: ``q`` ``(nq,)`` and how far the sole frame stays from
    its target: ``position_error`` (m) and ``rotation_error`` (rad); ``at_limits`` the
    leg joints left at a joint limit (``name=value rad``)."""

    q: np.ndarray
    position_error: float
    rotation_error: float
    at_limits: tuple[str, ...] = ()

    @property
    def reached(self) -> bool:
        return self.position_error <= REACH_TOL and self.rotation_error <= REACH_TOL

    @property
    def score(self) -> float:
        return self.position_error + 0.1 * self.rotation_error  # 0.1 m per rad


@dataclass(frozen=True)
class LegReach:
    """A leg's hip (its first joint's anchor, root frame ``(3,)``) and ``straight``: the
    hip-to-sole distance of the leg at the zero pose (straight, in most files), m."""

    hip: np.ndarray
    straight: float


def _anchors(model: RobotModel, cols: list[int], frame: str) -> tuple[np.ndarray, np.ndarray]:
    """Anchors of the leg joints ``cols`` with the sole position as the last row
    ``(n + 1, 3)``, and the joints' unit axes ``(n, 3)``; root frame, zero pose."""
    q = np.clip(np.zeros(model.nq), model.lower, model.upper)
    T = model.fk_all(q)
    idx = {n: i for i, n in enumerate(model.link_names)}
    pts, axes = [], []
    for c in cols:
        j = model.joint(model.joint_names[c])
        Tc = T[idx[j.child]]
        post = np.asarray(j.post)
        pts.append(Tc[:3, :3] @ (-(post[:3, :3].T @ post[:3, 3])) + Tc[:3, 3])
        a = Tc[:3, :3] @ (post[:3, :3].T @ np.asarray(j.axis, dtype=np.float64))
        axes.append(a / np.linalg.norm(a))
    pts.append(model.fk(q, frame)[:3, 3])
    return np.array(pts), np.array(axes)


def leg_reach(model: RobotModel, cols: list[int], frame: str) -> LegReach:
    """The leg's hip and straight length (:class:`LegReach`)."""
    pts, _ = _anchors(model, cols, frame)
    return LegReach(pts[0], float(np.linalg.norm(pts[-1] - pts[0])))


@dataclass(frozen=True)
class Knee:
    """A leg's knee: its column ``col`` in ``q``, the direction ``bend`` (+1/-1) it
    flexes, the thigh (hip to knee) and shank (knee to sole) lengths (m), and the
    columns of the leg joints parallel to it with their axis signs relative to its own
    (hip and ankle pitch)."""

    col: int
    bend: float
    thigh: float
    shank: float
    parallel: tuple[tuple[int, float], ...] = ()


def knee_of(model: RobotModel, cols: list[int], frame: str) -> Knee | None:
    """The knee of the leg with joints ``cols`` ending at sole ``frame``: of its joints
    whose axis is across the leg, the one farthest from both the hip and the sole at
    the zero pose (the middle of the leg), whatever the joints' order. It flexes towards
    the side its limits allow more of; with limits alike on both sides (or none), the
    side that swings the sole backwards (a human knee). ``None`` for a leg with no joint
    well away from both ends."""
    pts, axes = _anchors(model, cols, frame)
    hip, sole = pts[0], pts[-1]
    u = sole - hip
    length = float(np.linalg.norm(u))
    if length < 1e-9:
        return None
    u = u / length
    best, best_d = -1, 0.0
    for i, c in enumerate(cols):
        if model.prismatic_mask[c] or abs(float(axes[i] @ u)) > 0.5:
            continue
        d = min(float(np.linalg.norm(pts[i] - hip)), float(np.linalg.norm(pts[i] - sole)))
        if d > best_d:
            best, best_d = i, d
    if best < 0 or best_d < 0.15 * length:
        return None
    c = cols[best]
    lo, hi = float(model.lower[c]), float(model.upper[c])
    one_sided = np.isfinite(lo) and np.isfinite(hi)
    if one_sided and max(abs(lo), abs(hi)) > 1.25 * min(abs(lo), abs(hi)):
        bend = 1.0 if abs(hi) > abs(lo) else -1.0
    else:  # alike both ways (or unlimited): the way that swings the sole backwards
        q = np.clip(np.zeros(model.nq), model.lower, model.upper)
        x0 = model.fk(q, frame)[0, 3]
        q[c] += 0.1
        bend = 1.0 if model.fk(q, frame)[0, 3] < x0 else -1.0
    parallel = tuple(
        (cols[i], float(np.sign(axes[i] @ axes[best])))
        for i in range(len(cols))
        if i != best and abs(float(axes[i] @ axes[best])) > 1 - 1e-6
    )
    thigh = float(np.linalg.norm(pts[best] - hip))
    shank = float(np.linalg.norm(sole - pts[best]))
    return Knee(c, bend, thigh, shank, parallel)


def bent_leg(
    model: RobotModel,
    q: np.ndarray,
    cols: list[int],
    knee: Knee | None,
    frame: str,
    target: np.ndarray,
) -> np.ndarray:
    """``q`` with the leg ``cols`` bent at its ``knee`` for the sole ``target`` (root
    frame): the knee flexed to the angle a thigh and a shank of the leg's lengths make
    for that hip-to-sole distance (at least 0.2 rad), the joints parallel to it turned
    back by half of it each (body upright, sole flat), the leg's other joints at 0 (or
    their nearest limit): a start for the IK away from the stretched-knee singularity
    and on the side the knee bends. Without a knee, the leg's joints at 0."""
    out = np.array(q, dtype=np.float64)
    out[cols] = np.clip(0.0, model.lower[cols], model.upper[cols])
    if knee is None:
        return out
    hip = leg_reach(model, cols, frame).hip
    dist = float(np.linalg.norm(target[:3, 3] - hip))
    a, b = knee.thigh, knee.shank
    cos_inner = np.clip((a * a + b * b - dist * dist) / (2 * a * b), -1.0, 1.0)
    flex = max(float(np.pi - np.arccos(cos_inner)), 0.2)  # 0 = straight
    c = knee.col
    out[c] = np.clip(knee.bend * flex, model.lower[c], model.upper[c])
    for col, sign in knee.parallel:  # hip pitch and ankle pitch undo half each
        out[col] = np.clip(-sign * out[c] / 2, model.lower[col], model.upper[col])
    return out


REACH_TOL = 1e-9  # m and rad: a sole is where it should be


def leg_ik(
    model: RobotModel, frame: str, T_target: np.ndarray, q0: np.ndarray, cols: list[int]
) -> LegIK:
    """``frame`` placed at ``T_target`` (root frame, (4, 4)) moving only the joints
    ``cols`` of ``q0`` (damped least squares within the joint limits): a
    :class:`LegIK` with the position (m) and rotation (rad) errors apart."""
    from robotsim.spatial import rot_log

    q = np.array(q0, dtype=np.float64)
    lo, hi = model.lower[cols], model.upper[cols]

    def error(q: np.ndarray) -> np.ndarray:
        T = model.fk(q, frame)
        return np.concatenate([T_target[:3, 3] - T[:3, 3], rot_log(T_target[:3, :3] @ T[:3, :3].T)])

    for _ in range(200):
        e = error(q)
        resid = float(max(np.linalg.norm(e[:3]), np.linalg.norm(e[3:])))
        if resid < 1e-13:
            break
        J = model.jacobian(q, frame)[:, cols]
        lam = 1e-6 if resid < 1e-3 else 1e-3
        dq = np.linalg.solve(J.T @ J + lam * np.eye(len(cols)), J.T @ e)
        step = np.max(np.abs(dq))
        if step > 0.3:
            dq *= 0.3 / step
        q[cols] = np.clip(q[cols] + dq, lo, hi)
    e = error(q)
    pos, rot = float(np.linalg.norm(e[:3])), float(np.linalg.norm(e[3:]))
    limits: tuple[str, ...] = ()
    if max(pos, rot) > REACH_TOL:
        names = model.joint_names
        limits = tuple(
            f"{names[c]}={q[c]:.3g} rad"
            for c in cols
            if np.isclose(q[c], model.lower[c]) or np.isclose(q[c], model.upper[c])
        )
    return LegIK(q, pos, rot, limits)


def walk_legs(model: RobotModel) -> tuple[RobotModel, tuple[str, str], tuple[list[str], list[str]]]:
    """``(model with the profile's frames, (left sole, right sole), (left leg joints,
    right leg joints))`` from the robot's profile; an error saying what was found if the
    robot has not two legs with feet."""
    from robotsim.errors import InputError
    from robotsim.profile.resolve import resolve_profile, with_frames

    prof = resolve_profile(model)
    if len(prof.legs) != 2:
        raise InputError(
            f"{model.name}: a walk needs a biped (two legs with feet); its profile "
            f"({prof.kind.value}) has {len(prof.legs)} leg(s) -- give legs and feet in a "
            "profile file (docs/profiles.md)"
        )
    m = with_frames(model, prof)
    feet = {f.name: f for f in prof.feet}
    sides = []
    for lg in prof.legs:
        sole = feet[lg.foot].sole.name
        y = float(m.fk(m.zero(), sole)[1, 3])
        sides.append((y, sole, [j for j in lg.joints if j in m.joint_names]))
    sides.sort(key=lambda t: -t[0])  # +y first: left
    return m, (sides[0][1], sides[1][1]), (sides[0][2], sides[1][2])


def _sole_centres(model: RobotModel) -> dict[str, np.ndarray]:
    """Sole frame name -> the deepest point ``(2,)`` of its sole polygon on the frame's
    ``x = 0`` line (sole frame, m): the middle of the sole across, where the CoM has the
    most room sideways."""
    from robotsim.motion.balance import deepest_point
    from robotsim.profile.resolve import resolve_profile

    out = {}
    for f in resolve_profile(model).feet:
        poly = np.asarray(f.polygon, dtype=np.float64)
        if len(poly) >= 3:  # lateral room only: x stays at the frame (legs reach there)
            out[f.sole.name] = deepest_point(poly, x=0.0)[0]
    return out


def _targets(model: RobotModel, q: np.ndarray, joints: list[str]) -> dict[str, float]:
    return {n: round(float(np.degrees(q[model.joint_index(n)])), 6) for n in joints}


def static_walk(model: RobotModel, params: WalkParams | None = None) -> Program:
    """The static walk program for ``model`` (a biped with two sole frames)."""
    p = params or WalkParams()
    centres = _sole_centres(model)
    model, soles, leg_joints = walk_legs(model)
    if p.left_sole is not None and p.right_sole is not None:
        soles = (p.left_sole, p.right_sole)
    T = model.tree.fk_frames(model.zero(), list(soles))
    # each sole at its own side's standing offset (a leg that cannot carry the body
    # sideways reaches no other), or +-half_width
    if p.half_width is None:
        ys = (float(T[0, 1, 3]), float(T[1, 1, 3]))
    else:
        ys = (p.half_width, -p.half_width)
    # the CoM goes over each sole's deepest point (its frame's origin for a symmetric sole)
    deep = [T[k, :2, :2] @ centres.get(soles[k], np.zeros(2)) for k in (0, 1)]

    def com_over(side: int, x: float) -> tuple[float, float]:
        """Where the CoM stands over the sole on ``side`` (0 left) placed at ``x``."""
        y = ys[side]
        inset = p.com_inset if side == 0 else -p.com_inset
        return (x + float(deep[side][0]), y + float(deep[side][1]) - inset)

    d, c = p.step_length, p.clearance
    legs = [n for n in model.joint_names if n in leg_joints[0] or n in leg_joints[1]]
    cols = tuple([model.joint_index(n) for n in lj] for lj in leg_joints)
    solver = _Solver(model, p, soles, cols, lateral=carries_sideways(model, soles, cols))

    def foot(x: float, side: int, z: float = 0.0) -> tuple[float, float, float]:
        return (x, ys[side], z)

    def shift(
        name: str, feet: tuple, com0: tuple, com1: tuple, n: int | None = None
    ) -> list[_Spec]:
        n = n or p.shift_keyframes
        return [
            _Spec(
                f"{name}{i + 1}",
                feet,
                tuple(np.add(com0, (np.subtract(com1, com0)) * (i + 1) / n)),
                p.shift_speed,
            )
            for i in range(n)
        ]

    def step(
        prefix: str, swing: int, x_stance: float, x_from: float, x_to: float, com_from: tuple
    ) -> list[_Spec]:
        stance = 1 - swing
        com_st = com_over(stance, x_stance)

        def feet(xs: float, zs: float) -> tuple:
            planted, moving = foot(x_stance, stance), foot(xs, swing, zs)
            return (planted, moving) if stance == 0 else (moving, planted)

        specs = shift(f"{prefix}_shift", feet(x_from, 0.0), com_from, com_st)
        specs.append(_Spec(f"{prefix}_lift", feet(x_from, c), com_st, p.lift_speed))
        mid = (x_from + x_to) / 2
        specs.append(_Spec(f"{prefix}_swing1", feet(mid, c), com_st, p.swing_speed))
        specs.append(_Spec(f"{prefix}_swing2", feet(x_to, c), com_st, p.swing_speed))
        specs.append(_Spec(f"{prefix}_down", feet(x_to, 0.0), com_st, p.lift_speed))
        return specs

    def motion(name: str, specs: list[_Spec]) -> Motion:
        kfs = [
            Keyframe(name=s.name, targets=_targets(model, solver.solve(s), legs), speed=s.speed)
            for s in specs
        ]
        return Motion(name=name, interpolation="linear", keyframes=kfs)

    x0 = 0.0
    mid0 = tuple(np.mean([com_over(0, x0), com_over(1, x0)], axis=0))
    crouch = motion("crouch", [_Spec("crouch", (foot(x0, 0), foot(x0, 1)), mid0, 3)])
    first = motion("first_step", step("L0", 0, x0, x0, x0 + d, mid0))
    # cycle: right step then left step, in steady state (feet d apart, CoM over the back)
    xr, xl = x0, x0 + d
    cyc = step("R", 1, xl, xr, xl + d, com_over(1, xr))
    xr = xl + d
    cyc += step("L", 0, xr, xl, xr + d, com_over(0, xl))
    cycle = motion("cycle", cyc)
    # the cycle is relative to the body: after N repeats the feet are 2 d N further on
    xl_end, xr_end = x0 + d + 2 * d * p.cycles, x0 + 2 * d * p.cycles
    solver.body_xy = solver.body_xy + np.array([2 * d * (p.cycles - 1), 0.0])
    last = step("R_close", 1, xl_end, xr_end, xl_end, com_over(1, xr_end))
    mid = tuple(np.mean([com_over(0, xl_end), com_over(1, xl_end)], axis=0))
    last += shift("center", (foot(xl_end, 0), foot(xl_end, 1)), com_over(0, xl_end), mid, 2)
    closing = motion("last_step", last)
    stand = Motion(
        name="stand_up", keyframes=[Keyframe(name="stand", targets={n: 0.0 for n in legs}, speed=3)]
    )
    return Program(
        name="walk_forward",
        robot=model.name,
        description=(
            f"static walk: {2 + 2 * p.cycles} steps of {d} m, {c} m clearance, "
            f"body {p.body_height} m above the floor; generated by "
            "robotsim.motion.gait.static_walk"
        ),
        units="deg",
        start="stand" if "stand" in model.poses else {n: 0.0 for n in legs},
        motions=[crouch, first, cycle, closing, stand],
        sequence=[
            ProgramStep(motion="crouch"),
            ProgramStep(motion="first_step"),
            ProgramStep(motion="cycle", repeat=p.cycles),
            ProgramStep(motion="last_step"),
            ProgramStep(motion="stand_up"),
        ],
    )


def carries_sideways(
    model: RobotModel, soles: tuple[str, str], cols: tuple[list[int], ...]
) -> bool:
    """Whether both legs can move the body in every direction over a sole held flat
    and straight: with the sole's orientation fixed (the joint motions that leave it
    unturned, the null space of the orientation Jacobian), the sole still moves in
    three independent directions (knee bent). A leg of hip yaw, roll, pitch, knee and
    ankle pitch (no ankle roll) keeps its sole flat only with the hip roll at zero, so
    its sole stays under its hip sideways: the body's CoM cannot go over one foot. A
    leg of hip roll, pitch, knee, ankle pitch and roll (no yaw) can: its sole never
    turns about z."""
    for frame, leg in zip(soles, cols):
        knee = knee_of(model, leg, frame)
        q = model.zero()
        if knee is not None:
            T = model.fk(q, frame)
            T[2, 3] *= 0.9  # a slight crouch: away from the stretched knee
            q = bent_leg(model, q, leg, knee, frame, T)
        J = model.jacobian(q, frame)[:, leg]
        _, sv, Vt = np.linalg.svd(J[3:])
        turning = int(np.sum(sv > 1e-6 * max(float(sv.max(initial=0.0)), 1.0)))
        still = Vt[turning:].T  # joint motions that do not turn the sole
        if still.shape[1] < 3 or np.linalg.matrix_rank(J[:3] @ still, tol=1e-6) < 3:
            return False
    return True


@dataclass(frozen=True)
class BipedWalk:
    """What :func:`biped_walk` made: the ``program``, the ``params`` that solved, the
    (left, right) sole frames, and ``static``: whether the CoM stands over the stance
    sole in single support (a statically stable walk); else ``note`` says why not."""

    program: Program
    params: WalkParams
    soles: tuple[str, str]
    static: bool = True
    note: str = ""


def biped_walk(
    model: RobotModel,
    steps: int,
    step_length: float,
    clearance: float | None = None,
    body_height: float | None = None,
) -> BipedWalk:
    """A walk of ``steps`` steps (even, >= 4) of ``step_length`` m for any biped, legs
    and soles from its profile (:class:`BipedWalk`): static when its legs can carry the
    body sideways over each sole (:func:`carries_sideways`), else with the CoM kept
    between the feet (such a walk needs balance control to stand: ``static`` False).

    Defaults from the standing height ``h`` (base above the soles at the zero pose): body
    at ``0.83 h`` and clearance ``0.042 h`` (a crouch deep enough for the legs to reach
    and a lift that clears the floor in physics; humanoid17 stands with these and falls
    with a shallower crouch and a 1.5 % lift, which scuffs), else the first that solves
    of ``0.87 h``, ``0.9 h`` and a ``0.015 h`` lift. The CoM is held over the middle of
    the stance sole; when the legs' limits do not reach that, the soles are placed
    closer together (0.85, 0.7 of their standing distance), then the CoM is held a
    quarter or half of the sole's half width towards the other foot. Speed levels are
    the defaults divided by ``sqrt(h / REFERENCE_HEIGHT)`` for a taller robot (a body
    sways on its feet like a pendulum of its height: humanoid.xml, 1.28 m, moves at
    about half the levels of humanoid17)."""
    from robotsim.errors import InputError
    from robotsim.profile.resolve import resolve_profile

    if steps < 4 or steps % 2:
        raise InputError(f"--steps: {steps}; give an even number >= 4")
    if not step_length > 0:
        raise InputError(f"--step-length: {step_length}; must be > 0 (m)")
    m, soles, _ = walk_legs(model)
    h0 = -float(m.fk(m.zero(), soles[0])[2, 3])
    w0 = float(m.fk(m.zero(), soles[0])[1, 3] - m.fk(m.zero(), soles[1])[1, 3]) / 2
    polys = [np.asarray(f.polygon) for f in resolve_profile(model).feet]
    half = min(float(np.ptp(pg[:, 1])) / 2 for pg in polys)
    heights = (
        (body_height,)
        if body_height is not None
        else tuple(round(f * h0, 4) for f in (0.83, 0.87, 0.9))
    )
    lifts = (
        (clearance,) if clearance is not None else tuple(round(f * h0, 4) for f in (0.042, 0.015))
    )
    # a taller robot sways slower (pendulum time ~ sqrt(h / g)): the default speed
    # levels suit humanoid17 (h ~ REFERENCE_HEIGHT); a taller one gets slower levels
    slow = max(1.0, float(np.sqrt(h0 / REFERENCE_HEIGHT)))
    d = WalkParams()
    speeds = {
        k: max(1, round(getattr(d, k) / slow)) for k in ("shift_speed", "swing_speed", "lift_speed")
    }
    cols = tuple([m.joint_index(n) for n in lj] for lj in walk_legs(model)[2])
    static = carries_sideways(m, soles, cols)
    # a leg that cannot carry the body sideways keeps its sole under its hip: the
    # stance width and the CoM's offset towards the other foot are not free
    fracs, widths = ((0.0, 0.25, 0.5), (1.0, 0.85, 0.7)) if static else ((0.0,), (1.0,))
    note = (
        ""
        if static
        else (
            f"{model.name}: its legs cannot move the body sideways over a flat sole "
            "(e.g. hip yaw, roll, pitch, knee, ankle pitch: no ankle roll): the CoM stays between "
            f"the feet, {w0:.3f} m from each sole centre, so this walk is not statically "
            "stable and needs balance control to stand in physics"
        )
    )
    err: Exception | None = None
    for frac in fracs:
        for bh in heights:
            for lift in lifts:
                for wf in widths:
                    params = WalkParams(
                        step_length=step_length,
                        clearance=lift,
                        body_height=bh,
                        cycles=(steps - 2) // 2,
                        com_inset=round(frac * half, 4),
                        half_width=None if wf == 1.0 else round(wf * w0, 4),
                        left_sole=soles[0],
                        right_sole=soles[1],
                        **speeds,
                    )
                    try:
                        return BipedWalk(static_walk(model, params), params, soles, static, note)
                    except KinematicsError as exc:
                        err = err or exc  # the defaults' reason: what the user asked for
    raise InputError(f"{model.name}: no walk: {err}")
