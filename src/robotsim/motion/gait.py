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

__all__ = ["REFERENCE_HEIGHT", "WalkParams", "biped_walk", "leg_ik", "static_walk", "walk_legs"]

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
        self, model: RobotModel, p: WalkParams, soles: tuple[str, str], legs: tuple[list[int], ...]
    ) -> None:
        self.model = model
        self.p = p
        self.soles = soles
        self.legs = legs
        self.q = model.zero()
        self.body_xy = np.zeros(2)

    def solve(self, spec: _Spec) -> np.ndarray:
        m, p = self.model, self.p
        q = self.q.copy()
        bxy = self.body_xy.copy()
        for _ in range(12):
            T_wb = np.eye(4)
            T_wb[:2, 3] = bxy
            T_wb[2, 3] = p.body_height
            for frame, cols, xyz in zip(self.soles, self.legs, spec.feet):
                T_ws = np.eye(4)
                T_ws[:3, 3] = xyz
                q1, resid = leg_ik(m, frame, inv_T(T_wb) @ T_ws, q, cols)
                if resid > 1e-9:  # stuck at the stretched knee: start from bent joints
                    q1, resid = leg_ik(m, frame, inv_T(T_wb) @ T_ws, _bent(m, q, cols), cols)
                q = q1
                if resid > 1e-9:
                    where = ", ".join(f"{v:.4g}" for v in xyz)
                    raise KinematicsError(
                        f"walk keyframe {spec.name!r}: {frame} cannot reach ({where}) m "
                        f"(IK misses by {resid:.2g} m) with the body {p.body_height:g} m "
                        "above the floor; try a smaller --step-length or a --height the legs reach"
                    )
            com = com_world(m, T_wb @ m.fk_all(q))
            err = np.asarray(spec.com) - com[:2]
            bxy = bxy + err
            if np.max(np.abs(err)) < 1e-9:
                break
        self.q, self.body_xy = q, bxy
        return q


def _bent(model: RobotModel, q: np.ndarray, cols: list[int]) -> np.ndarray:
    """``q`` with every one-sided joint of the leg (a limit near 0, like a knee) turned a
    quarter of the way into its range: away from the stretched-leg singularity."""
    out = np.array(q, dtype=np.float64)
    for c in cols:
        lo, hi = float(model.lower[c]), float(model.upper[c])
        if np.isfinite(lo) and np.isfinite(hi) and min(abs(lo), abs(hi)) < 0.1:
            big = lo if abs(lo) > abs(hi) else hi
            if abs(big) > 0.5:
                out[c] = 0.25 * big
    return out


def leg_ik(
    model: RobotModel, frame: str, T_target: np.ndarray, q0: np.ndarray, cols: list[int]
) -> tuple[np.ndarray, float]:
    """``(q, residual)``: ``frame`` placed at ``T_target`` (root frame, (4, 4)) moving only
    the joints ``cols`` of ``q`` (damped least squares within the joint limits); the
    residual is the larger of the position (m) and rotation (rad) errors."""
    from robotsim.spatial import rot_log

    q = np.array(q0, dtype=np.float64)
    lo, hi = model.lower[cols], model.upper[cols]
    resid = np.inf
    for _ in range(200):
        T = model.fk(q, frame)
        e = np.concatenate([T_target[:3, 3] - T[:3, 3], rot_log(T_target[:3, :3] @ T[:3, :3].T)])
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
    return q, resid


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
    w = float(T[0, 1, 3] - T[1, 1, 3]) / 2 if p.half_width is None else p.half_width
    # the CoM goes over each sole's deepest point (its frame's origin for a symmetric sole)
    deep = [T[k, :2, :2] @ centres.get(soles[k], np.zeros(2)) for k in (0, 1)]

    def com_over(side: int, x: float) -> tuple[float, float]:
        """Where the CoM stands over the sole on ``side`` (0 left) placed at ``x``."""
        y = w if side == 0 else -w
        return (x + float(deep[side][0]), y + float(deep[side][1]) - np.sign(y) * p.com_inset)

    d, c = p.step_length, p.clearance
    legs = [n for n in model.joint_names if n in leg_joints[0] or n in leg_joints[1]]
    cols = tuple([model.joint_index(n) for n in lj] for lj in leg_joints)
    solver = _Solver(model, p, soles, cols)

    def foot(x: float, side: int, z: float = 0.0) -> tuple[float, float, float]:
        return (x, w if side == 0 else -w, z)

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


def biped_walk(
    model: RobotModel,
    steps: int,
    step_length: float,
    clearance: float | None = None,
    body_height: float | None = None,
) -> tuple[Program, WalkParams, tuple[str, str]]:
    """``(program, params, (left sole, right sole))``: a static walk of ``steps`` steps
    (even, >= 4) of ``step_length`` m for any biped, legs and soles from its profile.

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
    err: Exception | None = None
    for frac in (0.0, 0.25, 0.5):
        for bh in heights:
            for lift in lifts:
                for wf in (1.0, 0.85, 0.7):
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
                        return static_walk(model, params), params, soles
                    except KinematicsError as exc:
                        err = exc
    raise InputError(f"{model.name}: no static walk: {err}")
