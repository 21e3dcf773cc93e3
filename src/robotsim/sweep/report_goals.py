"""The figures and numbers of a sweep with an objective (``robotsim sweep report``).

- ``convergence.png``: every trial's objective in the order the trials finished
  (feasible: dots coloured by trial; infeasible: grey crosses) and the best feasible
  value so far (one objective; with several, one panel per objective);
- ``importance.png``: how much of the objective's variation each parameter explains
  among the feasible trials, by PED-ANOVA (Watanabe, Bansal, Hutter: "PED-ANOVA:
  Efficiently quantifying hyperparameter importance in arbitrary subspaces", IJCAI
  2023), as Optuna's ``PedAnovaImportanceEvaluator`` computes it (fANOVA would need
  scikit-learn); needs 4 or more feasible trials;
- ``pareto_front.png`` (two or more objectives): the first two objectives of every
  feasible trial, the front marked and joined;
- ``slice_PARAM.png``: the objective against each parameter, coloured by trial.

:func:`goal_numbers` gives the same facts as JSON (the best trials, the importances).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from robotsim.extras import require
from robotsim.sweep.goals import Goals, goals_from_meta

__all__ = ["draw_goal_figures", "goal_numbers", "importances", "plot_convergence", "trials_of"]

MIN_TRIALS_FOR_IMPORTANCE = 4


def trials_of(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per trial (the first of its runs), in finishing order."""
    seen: dict[Any, dict[str, Any]] = {}
    for r in rows:
        seen.setdefault(r.get("trial", r.get("point")), r)
    return list(seen.values())


def _value(r: dict[str, Any], col: str) -> float:
    v = r.get(col)
    if isinstance(v, bool):
        return float(v)
    return float(v) if isinstance(v, (int, float)) and math.isfinite(float(v)) else math.nan


def importances(
    rows: Sequence[dict[str, Any]], params: Sequence[str], goals: Goals
) -> dict[str, dict[str, float]] | None:
    """Per objective column, each parameter's PED-ANOVA importance (summing to 1) over
    the feasible trials; ``None`` with fewer than 4 of them. Parameters that never
    varied are left out."""
    import warnings

    optuna = require("optuna", "the importance of a sweep's parameters")
    from optuna.distributions import CategoricalDistribution, FloatDistribution
    from optuna.importance import PedAnovaImportanceEvaluator, get_param_importances

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    trials = [r for r in trials_of(rows) if r.get("feasible")]
    if len(trials) < MIN_TRIALS_FOR_IMPORTANCE:
        return None
    dists: dict[str, Any] = {}
    for p in params:
        vals = [t.get(p) for t in trials]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            lo, hi = float(min(vals)), float(max(vals))  # type: ignore[type-var]
            if hi > lo:
                dists[p] = FloatDistribution(lo, hi)
        elif len({str(v) for v in vals}) > 1:
            dists[p] = CategoricalDistribution(sorted({str(v) for v in vals}))
    if not dists:
        return None
    out: dict[str, dict[str, float]] = {}
    for o in goals.objectives:
        study = optuna.create_study(direction=o.goal)
        for t in trials:
            value = _value(t, o.column)
            if not math.isfinite(value):
                continue
            params_t = {
                p: float(t[p]) if isinstance(d, FloatDistribution) else str(t[p])
                for p, d in dists.items()
            }
            study.add_trial(optuna.trial.create_trial(params=params_t, distributions=dists,
                                                      value=value))  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            imp = get_param_importances(study, evaluator=PedAnovaImportanceEvaluator())
        out[o.column] = {k: float(v) for k, v in imp.items()}
    return out


def goal_numbers(rows: Sequence[dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
    """The best feasible trials (or the front), the counts and the importances."""
    goals = goals_from_meta(meta)
    trials = trials_of(rows)
    keep = ["run_key", "trial", *meta["parameters"], *meta["metrics"], "run_id"]
    best = [{k: r.get(k) for k in keep} for r in trials if r.get("pareto")]
    return {
        "objectives": [o.column for o in goals.objectives],
        "trials": len(trials),
        "feasible": sum(bool(r.get("feasible")) for r in trials),
        "best": best,
        "importance": importances(rows, meta["parameters"], goals),
    }


def plot_convergence(ax: Any, trials: Sequence[dict[str, Any]], goals: Goals, k: int = 0) -> None:
    """Objective ``k`` of each trial in finishing order on ``ax``: feasible dots coloured
    by trial, infeasible grey crosses, the best so far as a step line (one objective)."""
    o = goals.objectives[k]
    n = len(trials)
    order = np.arange(1, n + 1)
    feas = np.array([bool(r.get("feasible")) for r in trials], bool)
    y = np.array([_value(r, o.column) for r in trials])
    if feas.any():
        ax.scatter(order[feas], y[feas], c=order[feas], cmap="viridis", s=22, label="feasible")
    bad = ~feas & np.isfinite(y)
    if bad.any():
        ax.scatter(order[bad], y[bad], marker="x", color="0.6", s=22, label="infeasible")
    if len(goals.objectives) == 1:
        b = np.array([math.nan if r.get("best_so_far") is None else float(r["best_so_far"])
                      for r in trials])  # fmt: skip
        if np.isfinite(b).any():
            ax.step(order, b, where="post", color="C3", lw=2, label="best so far")
    ax.set_xlabel("trial (in the order they finished)")
    ax.set_ylabel(f"{o.column} ({o.goal})")
    ax.grid(alpha=0.3)
    if feas.any() or bad.any():
        ax.legend(fontsize=8)


def _subplots(nrows: int = 1, ncols: int = 1, **kw: Any) -> tuple[Any, Any]:
    """``pyplot.subplots`` without pyplot's global state (an Agg-drawable figure)."""
    from matplotlib.figure import Figure

    squeeze = kw.pop("squeeze", True)
    fig = Figure(**kw)
    return fig, fig.subplots(nrows, ncols, squeeze=squeeze)


def draw_goal_figures(
    rows: Sequence[dict[str, Any]],
    meta: dict[str, Any],
    save: Callable[[Any, str], None],
    title: str,
    numbers: dict[str, Any] | None = None,
) -> None:
    """The module's figures, handed to ``save(fig, name)`` (matplotlib figures made
    without pyplot, so a studio thread may draw them too)."""
    goals = goals_from_meta(meta)
    trials = trials_of(rows)
    n = len(trials)
    if not n:
        return
    order = np.arange(1, n + 1)
    feas = np.array([bool(r.get("feasible")) for r in trials])
    objs = goals.objectives
    fig, axes = _subplots(len(objs), 1, figsize=(7, 3.2 * len(objs)), squeeze=False)
    for k, ax in enumerate(axes[:, 0]):
        plot_convergence(ax, trials, goals, k)
    axes[0, 0].set_title(f"{title}\nconvergence: {int(feas.sum())} of {n} trials feasible",
                         fontsize=9)  # fmt: skip
    save(fig, "convergence.png")

    imp = (
        (numbers or {}).get("importance")
        if numbers
        else importances(rows, meta["parameters"], goals)
    )
    if imp:
        fig, axes = _subplots(1, len(imp), figsize=(5 * len(imp), 3.5), squeeze=False)
        for ax, (col, vals) in zip(axes[0], imp.items()):
            names = list(vals)[::-1]
            ax.barh(names, [vals[k] for k in names], color="C0")
            ax.set_xlim(0, 1)
            ax.set_xlabel("importance (PED-ANOVA, sums to 1)")
            ax.set_title(f"{col}", fontsize=9)
        fig.suptitle(f"{title}: parameter importance over {int(feas.sum())} feasible trials",
                     fontsize=9)  # fmt: skip
        save(fig, "importance.png")

    if len(objs) >= 2:
        a, b = objs[0], objs[1]
        xa = np.array([_value(r, a.column) for r in trials])
        xb = np.array([_value(r, b.column) for r in trials])
        front = np.array([bool(r.get("pareto")) for r in trials])
        fig, ax = _subplots(figsize=(6, 4.5))
        ax.scatter(xa[feas & ~front], xb[feas & ~front], color="C0", s=18, label="feasible")
        if (~feas).any():
            ax.scatter(xa[~feas], xb[~feas], marker="x", color="0.6", s=18, label="infeasible")
        idx = np.flatnonzero(front)
        idx = idx[np.argsort(xa[idx])]
        ax.plot(xa[idx], xb[idx], "o-", color="C3", label=f"Pareto front ({idx.size})")
        ax.set_xlabel(f"{a.column} ({a.goal})")
        ax.set_ylabel(f"{b.column} ({b.goal})")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_title(f"{title}\nPareto front", fontsize=9)
        save(fig, "pareto_front.png")

    o = objs[0]
    y = np.array([_value(r, o.column) for r in trials])
    for p in meta["parameters"]:
        xs = [r.get(p) for r in trials]
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs)
        x = np.array(xs, float) if numeric else np.array([str(v) for v in xs])
        fig, ax = _subplots(figsize=(6, 4))
        sc = ax.scatter(x[feas], y[feas], c=order[feas], cmap="viridis", s=22)
        if (~feas).any():
            ax.scatter(x[~feas], y[~feas], marker="x", color="0.6", s=22, label="infeasible")
            ax.legend(fontsize=8)
        fig.colorbar(sc, ax=ax, label="trial (finishing order)")
        ax.set_xlabel(p)
        ax.set_ylabel(f"{o.column} ({o.goal})")
        ax.grid(alpha=0.3)
        ax.set_title(f"{title}\nslice: {o.column} vs {p}", fontsize=9)
        save(fig, f"slice_{p}.png")
