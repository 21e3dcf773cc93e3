"""``plan``: make a clearance scenario collision-free by changing as little as it can.

The scene is first certified at the margin (:class:`~robotsim.plan.check.MarginCheck`).
While some pair comes within the margin, one robot of those pairs is changed with the
chosen method (``delay``, ``scale``, ``replan``; ``auto`` tries all three on every
candidate robot and keeps the change that adds the least time), the candidates being
the robots in the most offending pairs first; a change must keep every pair of its
robot above the margin, so each round clears at least one pair and breaks none. At
most one round per robot. The result is certified once more over the whole run.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from robotsim.clearance.certified import CertifiedResult
from robotsim.clearance.monitor import _pair_distance
from robotsim.clearance.scene import Scene
from robotsim.clearance.trajectory import Trajectory
from robotsim.errors import InputError, UnknownNameError
from robotsim.model.robot import RobotModel
from robotsim.plan.check import MarginCheck
from robotsim.plan.limits import JointLimits, joint_limits
from robotsim.plan.outcome import Budget, Change, Outcome
from robotsim.plan.replan import plan_replan
from robotsim.plan.timing import plan_delay, plan_scale

__all__ = ["METHODS", "PlanResult", "plan"]

Method = Literal["delay", "scale", "replan", "auto"]
METHODS = ("delay", "scale", "replan", "auto")


@dataclass(frozen=True, eq=False)
class PlanResult:
    """The plan: the trajectories after (every robot's), the changes made, the certified
    check before and after at the margin, and the numbers of ``summary.json``.

    ``collision_free`` is the certified verdict after the plan: every pair's lower
    bound above the margin, with exact speed bounds (see ``after``)."""

    method: str
    margin: float
    trajectories: Mapping[str, Trajectory]
    changes: tuple[Change, ...]
    before: CertifiedResult
    after: CertifiedResult
    plan_time_s: float
    makespan_before_s: float
    makespan_after_s: float
    reasons: tuple[str, ...]
    limits: Mapping[str, JointLimits] = field(default_factory=dict)
    models: Mapping[str, RobotModel] = field(default_factory=dict)

    @property
    def collision_free(self) -> bool:
        return self.after.collision_free

    @property
    def added_time_s(self) -> float:
        return self.makespan_after_s - self.makespan_before_s

    @property
    def min_distance_m(self) -> float:
        return min((p.min_distance for p in self.after.pairs.values()), default=math.inf)

    def summary(self, after: CertifiedResult | None = None) -> dict[str, object]:
        """What ``summary.json`` holds (strict JSON through ``to_jsonable``); ``after``:
        the certified check to report (default the plan's own)."""
        after = self.after if after is None else after
        worst = min(after.pairs.values(), key=lambda p: p.min_distance_lower_bound, default=None)
        return {
            "collision_free": after.collision_free,
            "certified": after.certified,
            "method": self.method,
            "margin_m": self.margin,
            "added_time_s": self.added_time_s,
            "min_distance_m": min((p.min_distance for p in after.pairs.values()), default=math.inf),
            "min_distance_lower_bound_m": after.min_distance_lower_bound,
            "closest_pair": None if worst is None else worst.name,
            "plan_time_s": self.plan_time_s,
            "makespan_before_s": self.makespan_before_s,
            "makespan_after_s": self.makespan_after_s,
            "changes": [
                {
                    "robot": c.robot,
                    "method": c.method,
                    "added_time_s": c.added_time_s,
                    "lower_bound_m": c.lower_bound,
                    **c.params,
                }
                for c in self.changes
            ],
            "reasons": list(self.reasons),
            "before": self.before.to_json(),
            "after": after.to_json(),
            "limits": {k: v.summary() for k, v in self.limits.items()},
        }


def _violations(res: CertifiedResult) -> list[str]:
    return [k for k, p in res.pairs.items() if not p.clear]


def _fixed_ends(check: MarginCheck, bad: list[str]) -> list[str]:
    """Why pairs cannot be helped by any change of one robot's timing or path: at time 0
    every robot is at its start and after the last one stops every robot is at its goal,
    whatever the plan, so a pair within the margin there stays so. One line per pair."""
    out = []
    for k in bad:
        a, b = k.split("-")
        ma, mb = check.motions[a], check.motions[b]
        for when in ("start", "goal"):
            ta = 0.0 if when == "start" else ma.trajectory.end
            tb = 0.0 if when == "start" else mb.trajectory.end
            Pa, _ = ma.levers.frames(ma.trajectory.q(np.array([ta])))
            Pb, _ = mb.levers.frames(mb.trajectory.q(np.array([tb])))
            d = float(_pair_distance(ma.mover, mb.mover, Pa, Pb)[0][0])
            if d <= check.level:
                out.append(
                    f"{k}: the {when} configurations of {a} and {b} are {d:.4f} m apart, "
                    f"within the margin {check.level:g} m: no change of timing or path "
                    "between the same start and goal can clear this pair"
                )
                break
    return out


def _apply(check: MarginCheck, change: Change) -> None:
    check.trajectories[change.robot] = change.trajectory
    check.motions[change.robot] = check.motions[change.robot].following(change.trajectory)


def _try(
    method: str, check: MarginCheck, name: str, limits: JointLimits, budget: Budget, seed: int
) -> Outcome:
    if method == "delay":
        return plan_delay(check, name, budget)
    if method == "scale":
        return plan_scale(check, name, limits, budget)
    return plan_replan(check, name, limits, budget, seed=seed)


def plan(
    scene: Scene,
    trajectories: Mapping[str, Trajectory],
    dt: float,
    *,
    method: Method = "auto",
    margin: float = 0.02,
    robot: str | None = None,
    budget_s: float = 30.0,
    seed: int = 0,
) -> PlanResult:
    """Plan ``scene`` collision-free at ``margin`` (m) by ``method`` (see the module);
    ``robot``: change only that robot; ``budget_s``: the time budget (s) of the whole
    plan (every method stops when it is spent, with the reason said)."""
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if not (math.isfinite(margin) and margin >= 0):
        raise InputError(f"margin must be finite and >= 0 m, got {margin!r}")
    if not (math.isfinite(budget_s) and budget_s > 0):
        raise InputError(f"budget must be finite and > 0 s, got {budget_s!r}")
    if robot is not None and robot not in scene.names:
        raise UnknownNameError("robot", robot, list(scene.names))
    t0 = time.perf_counter()
    budget = Budget(budget_s)
    check = MarginCheck(scene, trajectories, dt, margin)
    before = check.full()
    limits = {r.name: joint_limits(r.model, trajectories[r.name]) for r in scene.robots}
    makespan0 = check.horizon()
    changes: list[Change] = []
    reasons: list[str] = []
    bad = _violations(before)
    if not before.certified:
        reasons.append("the check before the plan is not certified (refinement budget spent)")
    stuck = _fixed_ends(check, bad)
    reasons += stuck
    stuck_pairs = {r.split(":")[0] for r in stuck}
    bad = [k for k in bad if k not in stuck_pairs]
    methods = ("delay", "scale", "replan") if method == "auto" else (method,)
    rounds = 0
    while bad and rounds < len(scene.robots) and not budget.spent():
        rounds += 1
        count = Counter(n for k in bad for n in k.split("-"))
        names = [robot] if robot is not None else [n for n, _ in count.most_common()]
        best: Change | None = None
        for m in methods:
            for name in names:
                if budget.spent():
                    break
                if name not in count:
                    reasons.append(f"{name} is in no pair within the margin")
                    continue
                # no attempt may take more than a third of the plan's budget
                sub = Budget(max(0.0, min(budget.left(), budget_s / 3)))
                out = _try(m, check, name, limits[name], sub, seed)
                reasons.append(f"{m} {name}: {out.reason}")
                c = out.change
                if c is not None and (best is None or c.added_time_s < best.added_time_s):
                    best = c
            if best is not None and method == "auto" and m == "delay":
                break  # a delay is the least change: keep the path and the speeds
        if best is None:
            break
        _apply(check, best)
        changes.append(best)
        bad = [k for k in bad if best.robot not in k.split("-")]
    if bad and budget.spent():
        reasons.append(
            f"time budget of {budget_s:g} s spent before every pair was clear "
            "(a larger budget may find one)"
        )
    after = check.full()
    used = (
        method if method != "auto" or not changes else "auto:" + "+".join(c.method for c in changes)
    )
    return PlanResult(
        method=used,
        margin=check.level,
        trajectories=dict(check.trajectories),
        changes=tuple(changes),
        before=before,
        after=after,
        plan_time_s=time.perf_counter() - t0,
        makespan_before_s=makespan0,
        makespan_after_s=check.horizon(),
        reasons=tuple(reasons),
        limits=limits,
        models={r.name: r.model for r in scene.robots},
    )
