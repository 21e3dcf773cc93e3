"""What a sweep optimises: objectives, constraints, and the verdict on a trial's runs.

An **objective** is a metric to minimise or maximise; a **constraint** is a metric
compared with a bound (``overshoot_pct <= 2``, ``collisions == 0``,
``reached_goal == true``). Both name a metrics column of the sweep file or a dotted path
into the run's summary (which then becomes a column named by the path).

A trial (one point of parameters, run ``repeats`` times) is **feasible** when every one
of its runs finished (``status: ok``), gave a finite number for every objective and met
every constraint; its objective values are the means over its runs. The verdict keeps
its proof: the measured values and, for an infeasible trial, the first reason
(``overshoot_pct = 3.1, needs <= 2``; ``run failed``; ``time_to_goal is null``).

:func:`pareto_mask` marks the non-dominated feasible trials (for one objective: the
best ones, ties included).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "OPERATORS",
    "Constraint",
    "Goals",
    "Objective",
    "TrialVerdict",
    "annotate",
    "goals_from_meta",
    "pareto_mask",
    "parse_constraint",
]

#: Comparison operators a constraint may use.
OPERATORS = ("<=", ">=", "==", "!=", "<", ">")
_CONSTRAINT = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(<=|>=|==|!=|<|>)\s*(\S+)\s*$")
#: The violation given to a failed run or a missing value (constraint units do not apply).
MISSING_VIOLATION = 1.0


@dataclass(frozen=True)
class Objective:
    """Minimise or maximise the metrics column ``column`` (summary path ``path``)."""

    column: str
    path: str
    goal: str  # "minimize" | "maximize"

    @property
    def sign(self) -> float:
        """+1 to minimise, -1 to maximise: ``sign * value`` is always minimised."""
        return 1.0 if self.goal == "minimize" else -1.0


@dataclass(frozen=True)
class Constraint:
    """``column OP bound``; ``text`` is the constraint as written."""

    column: str
    path: str
    op: str
    bound: float | bool
    text: str

    def check(self, value: Any) -> tuple[bool, float, str | None]:
        """``(holds, violation >= 0, reason when it does not)`` for one measured value."""
        if isinstance(self.bound, bool):
            if not isinstance(value, (bool, int, float)) or (
                isinstance(value, float) and (not math.isfinite(value))
            ):
                return False, MISSING_VIOLATION, f"{self.column} is {_shown(value)}"
            equal = bool(value) == self.bound
            holds = equal if self.op == "==" else not equal
            why = None if holds else f"{self.column} = {_shown(value)}, needs {self.op} "
            return (
                holds,
                0.0 if holds else MISSING_VIOLATION,
                (None if holds else f"{why}{str(self.bound).lower()}"),
            )
        if isinstance(value, bool):
            value = float(value)
        if not isinstance(value, (int, float)) or not math.isfinite(float(value)):
            return False, MISSING_VIOLATION, f"{self.column} is {_shown(value)}"
        v, b = float(value), float(self.bound)
        op = self.op
        if op == "<=":
            holds, gap = v <= b, v - b
        elif op == "<":
            holds, gap = v < b, v - b
        elif op == ">=":
            holds, gap = v >= b, b - v
        elif op == ">":
            holds, gap = v > b, b - v
        elif op == "==":
            holds, gap = v == b, abs(v - b)
        else:  # !=
            holds, gap = v != b, 0.0
        if holds:
            return True, 0.0, None
        # a strict bound met with equality, or != : violated by "a little"
        violation = max(gap, 1e-12 * max(1.0, abs(b)))
        return False, violation, f"{self.column} = {v:.6g}, needs {op} {b:g}"


def _shown(value: Any) -> str:
    return "null" if value is None else repr(value)


def parse_constraint(text: str) -> tuple[str, str, float | bool]:
    """``"overshoot <= 0.05"`` -> ``("overshoot", "<=", 0.05)``; ValueError naming what
    is allowed otherwise."""
    m = _CONSTRAINT.match(str(text))
    if m is None:
        raise ValueError(
            f"{text!r}: write METRIC OP VALUE, OP one of {' '.join(OPERATORS)} "
            "(e.g. 'overshoot <= 0.05', 'collisions == 0', 'reached_goal == true')"
        )
    name, op, rhs = m.groups()
    low = rhs.lower()
    if low in ("true", "false"):
        if op not in ("==", "!="):
            raise ValueError(f"{text!r}: a true/false bound takes == or !=, not {op}")
        return name, op, low == "true"
    try:
        bound = float(rhs)
    except ValueError:
        raise ValueError(f"{text!r}: the bound {rhs!r} must be a number, true or false") from None
    if not math.isfinite(bound):
        raise ValueError(f"{text!r}: the bound must be a finite number")
    return name, op, bound


@dataclass(frozen=True)
class TrialVerdict:
    """A trial's outcome: ``values`` (per objective, the mean over its runs; ``None``
    where a run gave none), ``feasible``, ``violation`` (total, 0 when feasible) and
    ``reason`` (why it is not feasible; ``None`` when it is)."""

    values: tuple[float | None, ...]
    feasible: bool
    violation: float
    reason: str | None
    constraint_violations: tuple[float, ...] = ()


@dataclass(frozen=True)
class Goals:
    """The objectives and constraints of a sweep (possibly none: a plain sweep)."""

    objectives: tuple[Objective, ...] = ()
    constraints: tuple[Constraint, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.objectives)

    @property
    def signs(self) -> np.ndarray:
        return np.array([o.sign for o in self.objectives])

    def judge(self, rows: Sequence[Mapping[str, Any]]) -> TrialVerdict:
        """The verdict on a trial from its runs' result rows (see the module doc)."""
        reason: str | None = None
        failed = 0
        per_obj: list[list[float]] = [[] for _ in self.objectives]
        missing = [False] * len(self.objectives)
        worst = [0.0] * len(self.constraints)
        for row in rows:
            if row.get("status") != "ok":
                failed += 1
                reason = reason or f"run {row.get('run_key')} failed: {row.get('error') or ''}"
                continue
            for i, o in enumerate(self.objectives):
                v = row.get(o.column)
                if isinstance(v, bool):
                    v = float(v)
                if isinstance(v, (int, float)) and math.isfinite(float(v)):
                    per_obj[i].append(float(v))
                else:
                    missing[i] = True
                    reason = reason or f"objective {o.column} is {_shown(v)}"
            for j, c in enumerate(self.constraints):
                holds, viol, why = c.check(row.get(c.column))
                worst[j] = max(worst[j], viol)
                if not holds:
                    reason = reason or why
        values = tuple(
            None if missing[i] or not vals else float(np.mean(vals))
            for i, vals in enumerate(per_obj)
        )
        if failed:  # a failed run violates every constraint it could not be checked on
            worst = [max(w, MISSING_VIOLATION) for w in worst]
        violation = float(sum(worst)) + MISSING_VIOLATION * (failed + sum(missing))
        feasible = bool(rows) and violation == 0.0 and all(v is not None for v in values)
        return TrialVerdict(values, feasible, violation, None if feasible else reason, tuple(worst))


def pareto_mask(values: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Non-dominated rows of ``values`` ``(N, k)`` (NaN rows never are): row ``i`` is
    dominated when another row is at least as good in every objective and better in
    one (``signs``: +1 minimise, -1 maximise). For ``k = 1``: the best rows, ties kept."""
    v = np.asarray(values, float) * np.asarray(signs, float)
    n = v.shape[0]
    ok = np.all(np.isfinite(v), axis=1) if n else np.zeros(0, bool)
    mask = ok.copy()
    idx = np.flatnonzero(ok)
    for i in idx:
        others = v[idx]
        dominated = np.any(np.all(others <= v[i], axis=1) & np.any(others < v[i], axis=1))
        mask[i] = not dominated
    return mask


def goals_from_meta(meta: Mapping[str, Any]) -> Goals:
    """The goals a sweep folder's ``sweep.json`` names (objective metrics are columns)."""
    objs = tuple(
        Objective(str(o["metric"]), str(o["metric"]), str(o.get("goal", "minimize")))
        for o in meta.get("objectives") or []
    )
    cons = []
    for text in meta.get("constraints") or []:
        name, op, bound = parse_constraint(text)
        cons.append(Constraint(name, name, op, bound, str(text).strip()))
    return Goals(objs, tuple(cons))


def annotate(
    rows: Sequence[dict[str, Any]], goals: Goals, repeats: int = 1
) -> list[dict[str, Any]]:
    """The goal columns of a sweep's rows, given in the order they finished: a trial is
    judged when its ``repeats``-th run is in (trials still short at the end: with the
    runs there are); each row gets its trial's ``feasible``, ``best_so_far`` (the best
    feasible objective among the trials judged up to it; one objective only) and
    ``pareto`` (its trial is on the final front of the feasible trials). Returns new
    row dicts."""
    if not goals.active:
        return [dict(r) for r in rows]
    by_trial: dict[Any, list[dict[str, Any]]] = {}
    verdicts: dict[Any, TrialVerdict] = {}
    best_after: list[float | None] = []
    best: float | None = None
    single = len(goals.objectives) == 1
    sign = goals.objectives[0].sign
    for r in rows:
        t = r.get("trial", r.get("point"))
        group = by_trial.setdefault(t, [])
        group.append(r)
        if len(group) == repeats:
            v = verdicts[t] = goals.judge(group)
            if single and v.feasible and v.values[0] is not None:
                if best is None or sign * v.values[0] < sign * best:
                    best = v.values[0]
        best_after.append(best if single else None)
    for t, group in by_trial.items():
        if t not in verdicts:
            verdicts[t] = goals.judge(group)
    trials = list(verdicts)
    vals = np.array(
        [
            [np.nan if x is None or not verdicts[t].feasible else x for x in verdicts[t].values]
            for t in trials
        ],
        float,
    ).reshape(len(trials), len(goals.objectives))
    front = pareto_mask(vals, goals.signs)
    on_front = {t for t, f in zip(trials, front) if f}
    out = []
    for r, b in zip(rows, best_after):
        t = r.get("trial", r.get("point"))
        out.append({**r, "trial": t, "feasible": verdicts[t].feasible, "best_so_far": b,
                    "pareto": t in on_front})  # fmt: skip
    return out
