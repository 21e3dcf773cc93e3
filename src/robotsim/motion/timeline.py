"""Compile a program into a timeline of joint-space segments, and sample it.

A :class:`Timeline` is the program flattened: the start pose and one *knot* per
keyframe visit (repeats unrolled), each reached from the previous knot in ``duration``
seconds with one of three rest-to-rest profiles ``s(u)``, ``u = t / duration``:

========  =====================  ===================  ======================
kind      s(u)                   peak speed factor    note
========  =====================  ===================  ======================
linear    u                      1                    the paper's
cubic     3u^2 - 2u^3            1.5                  zero end velocities
minjerk   10u^3 - 15u^4 + 6u^5   1.875                zero end vel. and acc.
========  =====================  ===================  ======================

A segment lasts ``max(T(level), factor * max_j |dq_j| / vmax_j)``: the speed level
sets the nominal time (:func:`robotsim.motion.schema.speed_seconds`) and joint
velocity limits stretch it when needed (``stretched`` says which segments were).

Sampling (:meth:`Timeline.sample`) implements the paper's two speed methods:

- ``fixed_tick``: the tick is fixed (``tick`` s); a segment gets ``ceil(T / tick)``
  interpolation points, so faster levels get fewer points;
- ``fixed_points``: every segment gets ``points`` interpolation points and the tick is
  ``T / points``, so slower levels get longer ticks.

Both land exactly on every keyframe (``u = 1`` is always sampled).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from robotsim.errors import ScenarioError
from robotsim.model.robot import JointType, RobotModel
from robotsim.motion.schema import Keyframe, Program, speed_seconds

__all__ = [
    "KINDS",
    "Samples",
    "SpeedMethod",
    "Timeline",
    "compile_program",
    "keyframe_from_q",
    "keyframe_poses",
    "profile",
]

KINDS = ("linear", "cubic", "minjerk")
PEAK = np.array([1.0, 1.5, 1.875])
SpeedMethod = Literal["fixed_tick", "fixed_points"]


def profile(kind: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``s(u)`` for kind codes ``(N,)`` (0 linear, 1 cubic, 2 minjerk) and ``u`` ``(N,)``."""
    u = np.clip(u, 0.0, 1.0)
    u2 = u * u
    return np.where(
        kind == 0, u, np.where(kind == 1, u2 * (3 - 2 * u), u2 * u * (10 + u * (-15 + 6 * u)))
    )


@dataclass(frozen=True)
class Samples:
    """The ticks of one playback: sample 0 is the start, sample ``i`` ends tick ``i``.

    Shapes: ``seg``/``u``/``t``/``dt`` ``(N + 1,)``; ``q`` ``(N + 1, nq)`` rad/m.
    ``dt[i]`` is the length of tick ``i`` (``dt[0] = 0``), ``t`` its end time (s).
    """

    method: str
    seg: np.ndarray
    u: np.ndarray
    t: np.ndarray
    dt: np.ndarray
    q: np.ndarray

    @property
    def ticks(self) -> int:
        return len(self.t) - 1


@dataclass(frozen=True)
class Timeline:
    """Knots and segments of a compiled program (see module docs).

    Shapes: ``knots`` ``(K + 1, nq)``; ``duration``, ``hold``, ``kind``, ``speed``,
    ``nominal`` ``(K,)``; ``labels[k]`` = (motion, repeat index, keyframe) of segment k.
    """

    joint_names: tuple[str, ...]
    knots: np.ndarray
    duration: np.ndarray
    nominal: np.ndarray
    hold: np.ndarray
    kind: np.ndarray
    speed: np.ndarray
    labels: tuple[tuple[str, int, str], ...]

    @property
    def segments(self) -> int:
        return len(self.duration)

    @property
    def stretched(self) -> np.ndarray:
        """Segments lengthened by a joint velocity limit ``(K,)`` bool."""
        return self.duration > self.nominal + 1e-12

    @property
    def total_time(self) -> float:
        return float(np.sum(self.duration) + np.sum(self.hold))

    def q_at(self, seg: np.ndarray | int, u: np.ndarray | float) -> np.ndarray:
        """Joint values ``(..., nq)`` at fraction ``u`` of segment ``seg``."""
        seg = np.asarray(seg)
        u = np.asarray(u, dtype=np.float64)
        s = profile(self.kind[seg], u)
        a = self.knots[seg]
        return a + s[..., None] * (self.knots[seg + 1] - a)

    def bytes_per_tick(self) -> int:
        """What one tick costs at the peak of a playback and its report (bytes): seg, u,
        t, dt and q here, the joint values' work arrays while sampling, and the
        playback's root pose, support and sole heights (up to 4 soles) per tick. Every
        other per-tick array of ``robotsim motion play`` (link and sole poses, CoM,
        margins, the run store's rows) is smaller or formed a chunk of ticks at a time;
        ``tests/motion/test_motion_budget.py`` measures the peak against this."""
        nq = int(self.knots.shape[-1])
        return 8 * (4 + nq) + 8 * (16 + 1 + 4) + 3 * 8 * nq

    def _check_budget(self, ticks: float, what: str, hint: str) -> None:
        """Refuse before allocating (:meth:`bytes_per_tick` per tick)."""
        from robotsim import budget

        budget.check(f"sampling {ticks:.3g} {what}", ticks * self.bytes_per_tick(), hint)

    def sample(
        self,
        method: SpeedMethod = "fixed_tick",
        tick: float = 0.01,
        points: int | np.ndarray = 20,
        min_tick: float = 0.0,
    ) -> Samples:
        """Sample with one of the paper's speed methods (module docs).

        ``points``: one count for every segment, or one per segment ``(K,)`` (e.g. from
        :func:`robotsim.motion.speed.contact_points`). ``min_tick`` (s): the timer
        floor of ``fixed_points`` (the paper's 30 ms): a tick never gets shorter, so a
        segment whose ``T / points`` is below it lasts ``points * min_tick``. With
        ``fixed_tick`` the floor applies too: a ``tick`` below it ticks at ``min_tick``
        (a timer cannot fire faster than its floor)."""
        if not (min_tick >= 0 and math.isfinite(min_tick)):
            raise ScenarioError(f"min tick must be >= 0 s, got {min_tick}")
        if method == "fixed_tick":
            if not (tick > 0 and math.isfinite(tick)):
                raise ScenarioError(f"tick must be finite and > 0 s, got {tick}")
            tick = max(float(tick), float(min_tick))
            self._check_budget(
                float(np.sum(np.ceil(self.duration / tick)) + np.sum(np.ceil(self.hold / tick))),
                f"ticks of {tick:g} s",
                "use a longer --tick",
            )
            n = np.where(
                self.duration > 0, np.ceil(self.duration / tick - 1e-9).astype(np.int64), 0
            )
            n = np.maximum(n, (self.duration > 0).astype(np.int64))
            seg_dt = np.full(self.segments, float(tick))
            hold_dt = seg_dt
        elif method == "fixed_points":
            pts = np.broadcast_to(np.asarray(points), (self.segments,)).astype(np.int64)
            if pts.size and int(pts.min()) < 1:
                raise ScenarioError(f"points must be >= 1, got {int(pts.min())}")
            pmax = int(pts.max(initial=1))
            self._check_budget(
                float(pmax) * float(np.sum(self.duration > 0) + np.sum(self.hold > 0)),
                f"points ({pmax} per keyframe)",
                "use fewer --points",
            )
            n = np.where(self.duration > 0, pts, 0).astype(np.int64)
            seg_dt = np.where(self.duration > 0, self.duration / np.maximum(pts, 1), 0.0)
            seg_dt = np.where(self.duration > 0, np.maximum(seg_dt, min_tick), 0.0)
            hold_dt = np.where(seg_dt > 0, seg_dt, max(speed_seconds(8) / pmax, min_tick))
        else:
            raise ScenarioError(f"unknown speed method {method!r}; valid: fixed_tick, fixed_points")
        nh = np.where(self.hold > 0, np.ceil(self.hold / hold_dt - 1e-9), 0).astype(np.int64)
        total = int(np.sum(n) + np.sum(nh))
        seg = np.empty(total + 1, np.int64)
        u = np.empty(total + 1)
        dt = np.empty(total + 1)
        seg[0], u[0], dt[0] = 0, 0.0, 0.0
        i = 1
        for k in range(self.segments):
            m = int(n[k])
            seg[i : i + m] = k
            u[i : i + m] = np.arange(1, m + 1) / m if m else []
            dt[i : i + m] = seg_dt[k]
            i += m
            h = int(nh[k])
            seg[i : i + h] = k
            u[i : i + h] = 1.0
            dt[i : i + h] = hold_dt[k]
            i += h
        t = np.cumsum(dt)
        q = self.q_at(seg, u)
        return Samples(method, seg, u, t, dt, q)


def _joint_scales(model: RobotModel, units: str) -> dict[str, float]:
    deg = math.pi / 180.0 if units == "deg" else 1.0
    return {
        n: (1.0 if model.joint(n).type is JointType.PRISMATIC else deg) for n in model.joint_names
    }


def _fmt(v: float, scale: float) -> str:
    return f"{v / scale:.6g}"


def targets_to_q(
    model: RobotModel, targets: dict[str, float], base: np.ndarray, units: str, where: str
) -> np.ndarray:
    """``base`` with the named joints set from file-unit ``targets``; checks names and
    limits, raising :class:`ScenarioError` naming ``where``."""
    scales = _joint_scales(model, units)
    q = base.copy()
    for name, v in targets.items():
        if name not in scales:
            shown = ", ".join(model.joint_names[:20])
            raise ScenarioError(
                f"{where}.targets.{name}: unknown joint of {model.name}; valid: {shown}"
            )
        k = model.joint_index(name)
        val = v * scales[name]
        lo, hi = model.lower[k], model.upper[k]
        if val < lo - 1e-9 or val > hi + 1e-9:
            u = units if scales[name] != 1.0 else "m"
            raise ScenarioError(
                f"{where}.targets.{name}: {v:g} {u} is outside the joint limits "
                f"[{_fmt(lo, scales[name])}, {_fmt(hi, scales[name])}] {u}"
            )
        q[k] = val
    return q


def compile_program(program: Program, model: RobotModel, source: str = "") -> Timeline:
    """Flatten ``program`` for ``model``: resolve names, convert units, check limits,
    unroll repeats and time every segment (module docs)."""
    src = f"{source}: " if source else ""
    foreign = _foreign_joints(program, model)
    if foreign:
        raise ScenarioError(
            f"{src}the program moves {len(foreign)} joint(s) that {model.name} does not have "
            f"({', '.join(foreign[:4])}{', ...' if len(foreign) > 4 else ''}): it is written "
            f"for {program.robot}; a program plays on the robot whose "
            f"joints it names (make {model.name}'s own: 'robotsim walk ROBOT --distance D' "
            "writes its walk as a program, 'robotsim motion gait --robot ROBOT' a static one)"
        )
    try:
        return _compile(program, model)
    except ScenarioError as exc:
        raise ScenarioError(f"{src}{exc}") from None


def _foreign_joints(program: Program, model: RobotModel) -> list[str]:
    """The joints ``program``'s keyframes (and start targets) name that ``model`` lacks,
    in file order, when the program names its robot and none of them is ``model``'s:
    another robot's program (a typo among the robot's own joints, or a program naming no
    robot, is left to the per-keyframe error)."""
    if program.robot is None:
        return []
    names: dict[str, None] = {}
    if isinstance(program.start, dict):
        names.update(dict.fromkeys(program.start))
    for m in program.motions:
        for kf in m.keyframes:
            names.update(dict.fromkeys(kf.targets))
    own = set(model.joint_names)
    if not names or any(n in own for n in names):
        return []
    return list(names)


def _compile(program: Program, model: RobotModel) -> Timeline:
    units = program.units
    motions = {m.name: m for m in program.motions}
    midx = {m.name: i for i, m in enumerate(program.motions)}
    # Resolve every motion's keyframes once, as deltas applied in order.
    first_motion = motions[program.steps[0].motion]
    if program.start is None:
        q0 = targets_to_q(
            model,
            first_motion.keyframes[0].targets,
            model.zero(),
            units,
            f"motions[{midx[first_motion.name]}].keyframes[0]",
        )
    elif isinstance(program.start, str):
        if program.start not in model.poses:
            shown = ", ".join(model.poses) or "(the robot has no named poses)"
            raise ScenarioError(
                f"start: unknown pose {program.start!r} of {model.name}; valid: {shown}"
            )
        q0 = model.pose(program.start)
    else:
        q0 = targets_to_q(model, program.start, model.zero(), units, "start")
    knots = [q0]
    dur, hold, kind, speed, labels = [], [], [], [], []
    vmax = np.asarray(model.velocity_limits)
    q = q0
    for step in program.steps:
        m = motions[step.motion]
        k_code = KINDS.index(m.interpolation)
        for rep in range(step.repeat):
            for j, kf in enumerate(m.keyframes):
                where = f"motions[{midx[m.name]}].keyframes[{j}]"
                q_new = targets_to_q(model, kf.targets, q, units, where)
                nominal = speed_seconds(kf.speed)
                if len(knots) == 1 and program.start is None:
                    nominal = 0.0  # the first keyframe is the start pose
                knots.append(q_new)
                dur.append(nominal)
                hold.append(kf.hold)
                kind.append(k_code)
                speed.append(kf.speed)
                labels.append((m.name, rep, kf.name))
                q = q_new
    K = np.array(knots)
    nominal_arr = np.array(dur)
    dq = np.abs(np.diff(K, axis=0))
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.where(np.isfinite(vmax), dq / vmax, 0.0).max(axis=1) * PEAK[np.array(kind)]
    duration = np.maximum(nominal_arr, need)
    for a in (K, duration, nominal_arr):
        a.setflags(write=False)
    return Timeline(
        joint_names=model.joint_names,
        knots=K,
        duration=duration,
        nominal=nominal_arr,
        hold=np.array(hold),
        kind=np.array(kind, dtype=np.int64),
        speed=np.array(speed, dtype=np.int64),
        labels=tuple(labels),
    )


def keyframe_from_q(
    model: RobotModel,
    q: np.ndarray,
    name: str,
    units: str = "deg",
    speed: int = 4,
    joints: list[str] | None = None,
) -> Keyframe:
    """Capture configuration ``q`` ``(nq,)`` (rad/m) as a keyframe in file ``units``
    (all joints, or only ``joints``) — what an editor does when the user records a pose."""
    scales = _joint_scales(model, units)
    names = list(model.joint_names) if joints is None else list(joints)
    targets = {n: round(float(q[model.joint_index(n)]) / scales[n], 9) for n in names}
    return Keyframe(name=name, targets=targets, speed=speed)


def keyframe_poses(program: Program, model: RobotModel) -> dict[tuple[str, str], np.ndarray]:
    """The configuration ``(nq,)`` each keyframe reaches, keyed by (motion, keyframe),
    at its first visit in the program (joints a keyframe does not name hold the values
    they had, so a pose depends on what came before)."""
    tl = compile_program(program, model)
    out: dict[tuple[str, str], np.ndarray] = {}
    for k, (motion, _rep, kf) in enumerate(tl.labels):
        out.setdefault((motion, kf), tl.knots[k + 1])
    for m in program.motions:  # motions not in the sequence: from the start pose
        for kf in m.keyframes:
            if (m.name, kf.name) not in out:
                base = tl.knots[0]
                out[(m.name, kf.name)] = targets_to_q(
                    model, kf.targets, base, program.units, f"motions[{m.name}]"
                )
    return out
