"""Objectives, constraints, trial verdicts and Pareto fronts (robotsim.sweep.goals)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from robotsim.sweep.goals import (
    Constraint,
    Goals,
    Objective,
    annotate,
    pareto_mask,
    parse_constraint,
)


def _c(text: str) -> Constraint:
    name, op, bound = parse_constraint(text)
    return Constraint(name, name, op, bound, text)


@pytest.mark.parametrize(
    ("text", "value", "holds", "violation"),
    [
        ("overshoot <= 0.05", 0.05, True, 0.0),
        ("overshoot <= 0.05", 0.08, False, 0.03),
        ("overshoot < 0.05", 0.05, False, 1e-12),
        ("speed >= 1", 0.25, False, 0.75),
        ("speed > 1", 2.0, True, 0.0),
        ("collisions == 0", 0, True, 0.0),
        ("collisions == 0", 3, False, 3.0),
        ("collisions != 0", 0, False, 1e-12),
        ("reached == true", True, True, 0.0),
        ("reached == true", False, False, 1.0),
        ("fell == false", False, True, 0.0),
        ("overshoot <= 0.05", None, False, 1.0),
        ("overshoot <= 0.05", float("nan"), False, 1.0),
        ("reached == true", None, False, 1.0),
    ],
)
def test_constraints_hold_or_say_by_how_much(text, value, holds, violation) -> None:  # type: ignore[no-untyped-def]
    ok, viol, why = _c(text).check(value)
    assert ok is holds
    assert viol == pytest.approx(violation, abs=1e-15)
    assert (why is None) is holds
    if not holds:
        assert text.split()[0] in why  # the reason names the metric


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("overshoot 0.05", "write METRIC OP VALUE"),
        ("overshoot <= fast", "must be a number, true or false"),
        ("reached <= true", "takes == or !="),
        ("x <= inf", "finite"),
    ],
)
def test_bad_constraints_say_what_is_allowed(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        parse_constraint(text)


def _row(key: str, status: str = "ok", **metrics: object) -> dict:
    return {"run_key": key, "status": status, "error": "boom" if status != "ok" else None,
            **metrics}  # fmt: skip


def test_a_trial_is_feasible_only_when_every_run_is_and_averages_its_runs() -> None:
    g = Goals((Objective("t", "t", "minimize"),), (_c("over <= 2"),))
    v = g.judge([_row("a", t=10.0, over=1.0), _row("b", t=12.0, over=2.0)])
    assert v.feasible and v.values == (11.0,) and v.violation == 0 and v.reason is None
    v = g.judge([_row("a", t=10.0, over=1.0), _row("b", t=12.0, over=3.5)])
    assert not v.feasible and v.values == (11.0,) and v.violation == pytest.approx(1.5)
    assert v.reason == "over = 3.5, needs <= 2"
    v = g.judge([_row("a", t=10.0, over=1.0), _row("b", status="failed")])
    assert not v.feasible and "run b failed: boom" in v.reason
    v = g.judge([_row("a", t=None, over=1.0)])
    assert not v.feasible and v.values == (None,) and v.reason == "objective t is null"


def _dominated_brute(v: np.ndarray) -> np.ndarray:
    """Reference: i is dominated if some j is <= everywhere and < somewhere."""
    n = len(v)
    out = np.zeros(n, bool)
    for i, j in itertools.product(range(n), range(n)):
        if i != j and all(v[j] <= v[i]) and any(v[j] < v[i]):
            out[i] = True
    return out


@pytest.mark.parametrize("k", [1, 2, 3])
def test_pareto_mask_matches_the_pairwise_definition(k: int) -> None:
    rng = np.random.default_rng(k)
    v = rng.integers(0, 6, size=(40, k)).astype(float)  # ties on purpose
    v[3] = np.nan
    signs = np.where(rng.random(k) < 0.5, 1.0, -1.0)
    mask = pareto_mask(v, signs)
    fin = np.all(np.isfinite(v), axis=1)
    expect = np.zeros(40, bool)
    expect[fin] = ~_dominated_brute(v[fin] * signs)
    assert np.array_equal(mask, expect)
    assert not mask[3] and mask.any()


def test_annotate_best_so_far_in_finishing_order_and_the_front() -> None:
    g = Goals((Objective("t", "t", "minimize"),), (_c("over <= 2"),))
    rows = [  # in the order they finished
        _row("t00001-r0", trial=1, t=14.0, over=0.0),
        _row("t00000-r0", trial=0, t=12.0, over=5.0),  # faster but infeasible
        _row("t00003-r0", trial=3, status="failed", trial_=3),
        _row("t00002-r0", trial=2, t=11.0, over=1.0),
        _row("t00004-r0", trial=4, t=11.0, over=2.0),
    ]
    out = annotate(rows, g)
    assert [r["best_so_far"] for r in out] == [14.0, 14.0, 14.0, 11.0, 11.0]
    assert [r["feasible"] for r in out] == [True, False, False, True, True]
    assert [r["pareto"] for r in out] == [False, False, False, True, True]


def test_annotate_two_objectives_marks_the_front_only() -> None:
    g = Goals((Objective("a", "a", "minimize"), Objective("b", "b", "maximize")))
    rows = [_row("p0", trial=0, a=1.0, b=1.0), _row("p1", trial=1, a=2.0, b=3.0),
            _row("p2", trial=2, a=2.0, b=2.0), _row("p3", trial=3, a=0.5, b=0.5)]  # fmt: skip
    out = annotate(rows, g)
    assert [r["pareto"] for r in out] == [True, True, False, True]
    assert all(r["best_so_far"] is None for r in out)
