"""Kinematic playback: one deterministic loop, a fixed sample sequence, support switching.

:func:`play` samples a :class:`~robotsim.motion.timeline.Timeline` with one of the
paper's speed methods and moves the robot through it tick by tick with a
:class:`~robotsim.motion.support.SupportTracker`. The result holds the root pose and
support foot of every tick, the trajectory of every link (computed on demand in one
batch), the support phases and switches, and per-step measures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from typing import Any

import numpy as np

from robotsim.kinematics.floating import AnchoredState
from robotsim.model.robot import RobotModel
from robotsim.motion.balance import com_world, convex_hull, polygon_margin
from robotsim.motion.profile import SoleSpec
from robotsim.motion.support import ContactSettings, SupportTracker, Switch
from robotsim.motion.timeline import Samples, SpeedMethod, Timeline
from robotsim.spatial import rot_log

__all__ = ["POSE_CHUNK", "PlaybackResult", "Player", "StepMeasure", "compare_speed_methods", "play"]

#: Samples whose link poses ``(n, L, 4, 4)`` are formed at once (CoM, trajectory file).
POSE_CHUNK = 512


@dataclass(frozen=True)
class StepMeasure:
    """One stance phase: ``foot`` supports from ``t_start`` to ``t_end`` (s).

    ``stride_m``: horizontal distance from this foot's previous stance (nan for its
    first); ``clearance_m``: highest lowest-corner of the other feet (swing height);
    ``body_advance_m``: root displacement along the start heading; ``touchdown_error_m``:
    the foot's height when it became the support; ``slip_m``: its largest drift.
    """

    index: int
    foot: str
    t_start: float
    t_end: float
    position: tuple[float, float, float]
    stride_m: float
    clearance_m: float
    body_advance_m: float
    touchdown_error_m: float
    slip_m: float


@dataclass(frozen=True, eq=False)
class PlaybackResult:
    """Everything one playback produced. Shapes: ``N + 1`` samples (tick 0 = start).

    ``T_world_root`` ``(N+1, 4, 4)``; ``support`` ``(N+1,)`` foot index;
    ``heights`` ``(N+1, F)`` lowest-corner height of each sole (m); ``double``
    ``(N+1,)`` every sole within ``contact_tol`` of the floor.
    """

    model: RobotModel
    samples: Samples
    soles: tuple[SoleSpec, ...]
    settings: ContactSettings
    T_world_root: np.ndarray
    support: np.ndarray
    heights: np.ndarray
    switches: tuple[Switch, ...]
    labels: tuple[tuple[str, int, str], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def label_at(self, tick: int) -> str:
        """ "motion 'm' (repeat r) keyframe 'k'" being moved into at ``tick``."""
        if not self.labels:
            return ""
        m, r, k = self.labels[int(self.samples.seg[tick])]
        return f"motion {m!r} (repeat {r + 1}) keyframe {k!r}"

    @property
    def ticks(self) -> int:
        return self.samples.ticks

    @property
    def foot_names(self) -> tuple[str, ...]:
        return tuple(s.frame for s in self.soles)

    @cached_property
    def double(self) -> np.ndarray:
        if not self.soles:
            return np.zeros(self.ticks + 1, dtype=bool)
        return np.all(self.heights <= self.settings.contact_tol, axis=1)

    def link_poses(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """World pose of every link at samples ``[start, stop)`` (default: every
        sample) ``(n, L, 4, 4)``; long runs take them :data:`POSE_CHUNK` at a time."""
        q = self.samples.q[start:stop]
        return self.T_world_root[start:stop, None] @ self.model.fk_all(q)

    def frame_poses(self, name: str) -> np.ndarray:
        """World pose of one link or frame at every sample ``(N+1, 4, 4)``."""
        return self.T_world_root @ self.model.fk(self.samples.q, name)

    def sole_poses_between(self, foot: int, start: int, stop: int) -> np.ndarray:
        """World pose of sole ``foot`` (index into :attr:`soles`) at samples
        ``[start, stop)`` ``(n, 4, 4)``: what the measures use instead of
        :attr:`sole_poses`, so that no sole pose array spans the whole run."""
        q = self.samples.q[start:stop]
        return self.T_world_root[start:stop] @ self.model.fk(q, self.foot_names[foot])

    @cached_property
    def sole_poses(self) -> np.ndarray:
        """``(F, N+1, 4, 4)`` world poses of the sole frames (the whole run at once:
        :meth:`sole_poses_between` takes a slice)."""
        if not self.soles:
            return np.zeros((0, self.ticks + 1, 4, 4))
        return np.stack([self.frame_poses(n) for n in self.foot_names])

    @cached_property
    def phases(self) -> list[dict[str, Any]]:
        """Support phases: ``{"support": foot|"double", "tick_start", "tick_end",
        "t_start", "t_end"}`` (double when every sole is in contact)."""
        if not self.soles:
            return [
                {
                    "support": "fixed base",
                    "tick_start": 0,
                    "tick_end": self.ticks,
                    "t_start": 0.0,
                    "t_end": float(self.samples.t[-1]),
                }
            ]
        labels = np.where(self.double, -1, self.support)
        out: list[dict[str, Any]] = []
        start = 0
        t = self.samples.t
        for i in range(1, len(labels) + 1):
            if i == len(labels) or labels[i] != labels[start]:
                lab = "double" if labels[start] < 0 else self.foot_names[labels[start]]
                out.append(
                    {
                        "support": lab,
                        "tick_start": start,
                        "tick_end": i - 1,
                        "t_start": float(t[start]),
                        "t_end": float(t[i - 1]),
                    }
                )
                start = i
        return out

    @cached_property
    def com(self) -> np.ndarray:
        """Centre of mass at every sample ``(N+1, 3)`` (m, world); the link poses are
        formed :data:`POSE_CHUNK` samples at a time, never for the whole run at once."""
        n = self.ticks + 1
        parts = [com_world(self.model, self.link_poses(a, a + POSE_CHUNK))
                 for a in range(0, n, POSE_CHUNK)]  # fmt: skip
        return np.concatenate(parts) if parts else np.zeros((0, 3))

    @cached_property
    def support_margin(self) -> np.ndarray:
        """Signed distance (m) of the CoM's ground projection inside the support
        polygon (hull of the corners of the soles within ``contact_tol`` of the floor)
        at every sample ``(N+1,)``; negative = outside (statically unstable)."""
        if not self.soles:
            return np.full(self.ticks + 1, np.nan)
        corners = [np.vstack([s.corners().T, np.ones(len(s.corners()))]) for s in self.soles]
        feet = range(len(self.soles))
        out = np.empty(self.ticks + 1)
        for a in range(0, self.ticks + 1, POSE_CHUNK):  # sole poses a chunk at a time
            S = [self.sole_poses_between(f, a, a + POSE_CHUNK) for f in feet]
            for i in range(a, a + len(S[0])):
                pts = [
                    (S[f][i - a] @ corners[f])[:2].T
                    for f in feet
                    if self.heights[i, f] <= self.settings.contact_tol
                ]
                if not pts:
                    out[i] = -np.inf
                    continue
                out[i] = polygon_margin(convex_hull(np.vstack(pts)), self.com[i])
        return out

    @cached_property
    def stance_slip(self) -> np.ndarray:
        """Per sample, how far the support sole moved since it became the support
        ``(N+1,)`` (m; position and 1 m x rotation angle, whichever is larger)."""
        out = np.zeros(self.ticks + 1)
        if not self.soles:
            return out
        sup = self.support
        bounds = [0, *(np.flatnonzero(np.diff(sup)) + 1).tolist(), self.ticks + 1]
        for a, b in pairwise(bounds):  # each stance, POSE_CHUNK samples at a time
            f = int(sup[a])
            ref = self.sole_poses_between(f, a, a + 1)[0]
            for c in range(a, b, POSE_CHUNK):
                e = min(b, c + POSE_CHUNK)
                P = self.sole_poses_between(f, c, e)
                dp = np.linalg.norm(P[:, :3, 3] - ref[:3, 3], axis=1)
                dr = np.linalg.norm(rot_log(P[:, :3, :3] @ ref[:3, :3].T), axis=1)
                out[c:e] = np.maximum(dp, dr)
        return out

    @property
    def max_stance_slip_m(self) -> float:
        return float(np.max(self.stance_slip))

    @property
    def max_penetration_m(self) -> float:
        """Deepest sole corner below the floor over the whole playback (m, >= 0)."""
        return float(max(0.0, -np.min(self.heights, initial=0.0)))

    @property
    def max_touchdown_error_m(self) -> float:
        return float(max((abs(s.error_m) for s in self.switches), default=0.0))

    @cached_property
    def heading(self) -> np.ndarray:
        R = self.T_world_root[0, :3, :3]
        h = np.array([R[0, 0], R[1, 0]])
        n = np.linalg.norm(h)
        return h / n if n > 1e-9 else np.array([1.0, 0.0])

    @property
    def distance_walked_m(self) -> float:
        """Root displacement along its start heading, start to end (m)."""
        d = self.T_world_root[-1, :2, 3] - self.T_world_root[0, :2, 3]
        return float(d @ self.heading)

    @property
    def max_body_step_m(self) -> float:
        """Largest root move in one tick (m): the body pose is continuous when this is
        of the order of the joint speed times the tick."""
        d = np.diff(self.T_world_root[:, :3, 3], axis=0)
        return float(np.max(np.linalg.norm(d, axis=1), initial=0.0))

    def body_step_at_switches(self) -> float:
        if not self.switches:
            return 0.0
        d = np.linalg.norm(np.diff(self.T_world_root[:, :3, 3], axis=0), axis=1)
        return float(max(d[s.tick - 1] for s in self.switches))

    @cached_property
    def steps(self) -> list[StepMeasure]:
        if not self.soles:
            return []
        out: list[StepMeasure] = []
        bounds = [0, *[s.tick for s in self.switches], self.ticks + 1]
        errs = [0.0, *[s.error_m for s in self.switches]]
        last_pos: dict[int, np.ndarray] = {}
        t = self.samples.t
        for k in range(len(bounds) - 1):
            a, b = bounds[k], bounds[k + 1]
            if b <= a:
                continue
            f = int(self.support[a])
            pos = self.sole_poses_between(f, a, a + 1)[0, :3, 3]
            prev = last_pos.get(f)
            stride = float(np.linalg.norm(pos[:2] - prev[:2])) if prev is not None else np.nan
            last_pos[f] = pos
            others = [i for i in range(len(self.soles)) if i != f]
            clear = float(np.max(self.heights[a:b][:, others])) if others else 0.0
            adv = float(
                (self.T_world_root[b - 1, :2, 3] - self.T_world_root[a, :2, 3]) @ self.heading
            )
            out.append(
                StepMeasure(
                    index=len(out),
                    foot=self.foot_names[f],
                    t_start=float(t[a]),
                    t_end=float(t[b - 1]),
                    position=(float(pos[0]), float(pos[1]), float(pos[2])),
                    stride_m=stride,
                    clearance_m=clear,
                    body_advance_m=adv,
                    touchdown_error_m=errs[k],
                    slip_m=float(np.max(self.stance_slip[a:b])),
                )
            )
        return out

    def summary(self) -> dict[str, Any]:
        """The numbers ``robotsim motion play`` writes to ``summary.json``."""
        return {
            "robot": self.model.name,
            "speed_method": self.samples.method,
            "detection": self.settings.detection,
            "frames": self.ticks + 1,
            "ticks": self.ticks,
            "duration_s": float(self.samples.t[-1]),
            "support_switches": len(self.switches),
            "max_stance_slip_m": self.max_stance_slip_m,
            "max_penetration_m": self.max_penetration_m,
            "max_touchdown_error_m": self.max_touchdown_error_m,
            "distance_walked_m": self.distance_walked_m,
            "max_body_step_m": self.max_body_step_m,
            "body_step_at_switches_m": self.body_step_at_switches(),
            "double_support_fraction": float(np.mean(self.double)),
            "min_support_margin_m": float(np.min(self.support_margin)) if self.soles else None,
            "switches": [s.__dict__ for s in self.switches],
            "phases": self.phases,
            "steps": [s.__dict__ for s in self.steps],
            **self.extra,
        }


class Player:
    """Tick-by-tick playback for live use (the studio's play button): each
    :meth:`step` advances one sample with support switching; :attr:`state` is the
    :class:`~robotsim.kinematics.AnchoredState` to draw. :func:`play` runs the same
    loop to the end and collects the results."""

    def __init__(
        self,
        model: RobotModel,
        timeline: Timeline,
        soles: tuple[SoleSpec, ...],
        method: SpeedMethod = "fixed_tick",
        tick: float = 0.01,
        points: int | np.ndarray = 50,
        settings: ContactSettings | None = None,
        min_tick: float = 0.0,
    ) -> None:
        self.model = model
        self.timeline = timeline
        self.soles = tuple(soles)
        self.settings = settings or ContactSettings()
        self.samples = timeline.sample(method, tick=tick, points=points, min_tick=min_tick)
        self.reset()

    def reset(self) -> None:
        """Back to the start pose (tick 0)."""
        self.tracker = SupportTracker(self.model, self.soles, self.samples.q[0], self.settings)
        self.i = 0

    @property
    def state(self) -> AnchoredState:
        return self.tracker.state

    @property
    def t(self) -> float:
        """Time (s) of the current sample."""
        return float(self.samples.t[self.i])

    @property
    def done(self) -> bool:
        return self.i >= self.samples.ticks

    @property
    def label(self) -> tuple[str, int, str]:
        """(motion, repeat, keyframe) being moved into."""
        return self.timeline.labels[int(self.samples.seg[self.i])]

    def step(self) -> Switch | None:
        """Advance one tick (no-op when done); returns the support switch made, if any."""
        if self.done:
            return None
        s = self.samples
        i = self.i + 1
        k = int(s.seg[i])
        u0 = float(s.u[i - 1]) if s.seg[i - 1] == k else 0.0
        u1 = float(s.u[i])
        tl = self.timeline

        def q_of(x: float) -> np.ndarray:
            return tl.q_at(k, u0 + x * (u1 - u0))

        sw = self.tracker.step(s.q[i], q_of)
        self.i = i
        if sw is None:
            return None
        return Switch(i, float(s.t[i]), sw.from_foot, sw.to_foot, sw.error_m)

    def run(self) -> PlaybackResult:
        """Play from the start (tick 0) to the end and collect the results."""
        self.reset()
        samples = self.samples
        n = samples.ticks + 1
        T_root = np.empty((n, 4, 4))
        support = np.empty(n, dtype=np.int64)
        heights = np.empty((n, len(self.soles)))
        tracker = self.tracker
        T_root[0] = tracker.state.T_world_root
        support[0] = tracker.support
        heights[0] = tracker.heights
        switches: list[Switch] = []
        # runs of samples without a switch in one compiled call each (tracker.advance),
        # the switching samples through step()'s code (Python scalars by .item(): no NumPy
        # scalars, and no per-tick lists beside the arrays the budget counts)
        seg, u, t = samples.seg.item, samples.u.item, samples.t.item
        q_at, state = self.timeline.q_at, tracker.state
        qs = np.ascontiguousarray(samples.q, dtype=np.float64)
        i = 1
        while i < n:
            j = tracker.advance(qs, i, n, T_root, heights)
            support[i:j] = tracker.support
            if j >= n:
                break
            k = seg(j)
            u0 = u(j - 1) if seg(j - 1) == k else 0.0
            du = u(j) - u0

            def q_of(x: float, k: int = k, u0: float = u0, du: float = du) -> np.ndarray:
                return q_at(k, u0 + x * du)

            sw = tracker.step(qs[j], q_of)
            if sw is not None:
                switches.append(Switch(j, t(j), sw.from_foot, sw.to_foot, sw.error_m))
            T_root[j] = state.T_world_root
            support[j] = tracker.support
            heights[j] = tracker.heights
            i = j + 1
        self.i = n - 1
        return PlaybackResult(
            self.model,
            samples,
            self.soles,
            self.settings,
            T_root,
            support,
            heights,
            tuple(switches),
            self.timeline.labels,
        )


def play(
    model: RobotModel, timeline: Timeline, soles: tuple[SoleSpec, ...], *args: Any, **kwargs: Any
) -> PlaybackResult:
    """Play ``timeline`` kinematically with support switching (module docs); the
    further arguments are :class:`Player`'s (``method``, ``tick``, ``points``,
    ``settings``, ``min_tick``; ``points`` and ``min_tick`` as :meth:`Timeline.sample`)."""
    return Player(model, timeline, soles, *args, **kwargs).run()


def compare_speed_methods(
    model: RobotModel,
    timeline: Timeline,
    soles: tuple[SoleSpec, ...],
    tick: float = 0.01,
    points: int = 50,
    detection: str = "tick",
) -> dict[str, dict[str, float]]:
    """The paper's two speed methods side by side on the same program, with the
    paper's tick-time contact detection by default: how many ticks, the tick lengths,
    and the foot-ground contact error each produces."""
    out: dict[str, dict[str, float]] = {}
    settings = ContactSettings(detection=detection)  # type: ignore[arg-type]
    for method in ("fixed_tick", "fixed_points"):
        r = play(
            model,
            timeline,
            soles,
            method,
            tick=tick,
            points=points,  # type: ignore[arg-type]
            settings=settings,
        )
        dt = r.samples.dt[1:]
        out[method] = {
            "ticks": r.ticks,
            "tick_min_s": float(dt.min()) if dt.size else 0.0,
            "tick_max_s": float(dt.max()) if dt.size else 0.0,
            "support_switches": len(r.switches),
            "max_touchdown_error_m": r.max_touchdown_error_m,
            "max_penetration_m": r.max_penetration_m,
            "max_stance_slip_m": r.max_stance_slip_m,
        }
    return out
