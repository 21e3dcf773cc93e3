"""``robotsim sweep report DIR``: figures of a finished (or partial) sweep (PNG).

- ``METRIC_vs_PARAM.png``: each run as a dot, the mean per value as a line;
- ``METRIC_heatmap.png``: the mean over the first two parameters of a grid design;
- ``METRIC_hist.png``: the distribution over all successful runs;
- ``success_vs_PARAM.png``: the success rate per value (random designs: per bin);
- with an objective: ``convergence.png``, ``importance.png``, ``pareto_front.png`` and
  ``slice_PARAM.png`` (:mod:`robotsim.sweep.report_goals`).

Failed runs are left out of the metric figures and counted in the titles.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from robotsim.sweep.report_goals import draw_goal_figures, goal_numbers
from robotsim.sweep.results import read_meta, table_rows

__all__ = ["write_report"]


def _num(v: Any) -> float:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    return float("nan")


def _numeric(values: list[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _groups(xs: list[Any], ys: np.ndarray, bins: int | None) -> tuple[list[Any], np.ndarray]:
    """Mean of ys per distinct x (or per bin of numeric x when ``bins``)."""
    if bins:
        x = np.array(xs, float)
        edges = np.linspace(np.nanmin(x), np.nanmax(x), bins + 1)
        idx = np.clip(np.digitize(x, edges) - 1, 0, bins - 1)
        centres = (edges[:-1] + edges[1:]) / 2
        means = np.array(
            [np.nanmean(ys[idx == i]) if np.any(idx == i) else np.nan for i in range(bins)]
        )
        return list(centres), means
    keys = sorted(set(xs), key=lambda v: (str(type(v)), v))
    means = np.array([np.nanmean(ys[[x == k for x in xs]]) for k in keys])
    return keys, means


def write_report(sweep_dir: str | Path, out_dir: str | Path | None = None) -> dict[str, Any]:
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sweep_dir = Path(sweep_dir)
    meta = read_meta(sweep_dir)
    rows = table_rows(sweep_dir, meta)  # in the order the runs finished
    out = Path(out_dir) if out_dir is not None else sweep_dir / "report"
    out.mkdir(parents=True, exist_ok=True)
    ok = [r for r in rows if r["status"] == "ok"]
    params: list[str] = meta["parameters"]
    metrics: list[str] = [
        m for m in meta["metrics"] if any(_num(r.get(m)) == _num(r.get(m)) for r in ok)
    ]
    random_design = meta.get("design") == "random"
    figures: list[str] = []
    title = f"{meta['name']}: {len(ok)} ok, {len(rows) - len(ok)} failed"

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        figures.append(str(out / name))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanmean of empty bins
        for m in metrics:
            ys = np.array([_num(r.get(m)) for r in ok])
            for p in params:
                xs = [r.get(p) for r in ok]
                numeric = _numeric(xs)
                many = random_design and numeric and len(set(xs)) > 12
                fig, ax = plt.subplots(figsize=(6, 4))
                xplot = np.array(xs, float) if numeric else np.array([str(x) for x in xs])
                ax.plot(xplot, ys, "o", ms=3, alpha=0.45, label="runs")
                keys, means = _groups(xs, ys, 12 if many else None)
                kplot = np.array(keys, float) if numeric else np.array([str(k) for k in keys])
                ax.plot(kplot, means, "-", lw=2, color="C3", label="mean")
                ax.set_xlabel(p)
                ax.set_ylabel(m)
                ax.set_title(f"{title}\n{m} vs {p}", fontsize=9)
                ax.legend(fontsize=8)
                ax.grid(alpha=0.3)
                save(fig, f"{m}_vs_{p}.png")
            if meta.get("design") == "grid" and len(params) >= 2:
                a, b = params[0], params[1]
                av = sorted({r.get(a) for r in ok}, key=str)
                bv = sorted({r.get(b) for r in ok}, key=str)
                if _numeric(av):
                    av = sorted(av)
                if _numeric(bv):
                    bv = sorted(bv)
                grid = np.full((len(bv), len(av)), np.nan)
                for i, yb in enumerate(bv):
                    for j, xa in enumerate(av):
                        sel = [_num(r.get(m)) for r in ok if r.get(a) == xa and r.get(b) == yb]
                        if sel:
                            grid[i, j] = np.nanmean(sel)
                fig, ax = plt.subplots(figsize=(6, 4.5))
                im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
                ax.set_xticks(
                    range(len(av)), [f"{v:g}" if isinstance(v, float) else str(v) for v in av]
                )
                ax.set_yticks(
                    range(len(bv)), [f"{v:g}" if isinstance(v, float) else str(v) for v in bv]
                )
                for i in range(len(bv)):
                    for j in range(len(av)):
                        if np.isfinite(grid[i, j]):
                            ax.text(
                                j,
                                i,
                                f"{grid[i, j]:.3g}",
                                ha="center",
                                va="center",
                                fontsize=7,
                                color="w",
                            )
                ax.set_xlabel(a)
                ax.set_ylabel(b)
                fig.colorbar(im, ax=ax, label=m)
                ax.set_title(f"{title}\n{m}: mean over {a} x {b} (blank: no value)", fontsize=9)
                save(fig, f"{m}_heatmap.png")
            finite = ys[np.isfinite(ys)]
            if finite.size:
                fig, ax = plt.subplots(figsize=(6, 4))
                ax.hist(finite, bins=min(30, max(5, finite.size // 5)), color="C0", alpha=0.8)
                ax.set_xlabel(m)
                ax.set_ylabel("runs")
                ax.set_title(
                    f"{title}\n{m}: median {np.median(finite):.3g}, "
                    f"{finite.size} runs with a value",
                    fontsize=9,
                )
                save(fig, f"{m}_hist.png")
        numbers = None
        if meta.get("objectives"):
            numbers = goal_numbers(rows, meta)
            draw_goal_figures(rows, meta, save, title, numbers)
        rate = None
        if meta.get("success"):
            s = [r for r in rows if r.get("success") is not None or r["status"] != "ok"]
            succ = np.array([1.0 if r.get("success") else 0.0 for r in s])
            rate = float(succ.mean()) if succ.size else None
            for p in params:
                xs = [r.get(p) for r in s]
                numeric = _numeric(xs)
                many = numeric and len(set(xs)) > 12
                keys, means = _groups(xs, succ, 12 if many else None)
                fig, ax = plt.subplots(figsize=(6, 4))
                kplot = np.array(keys, float) if numeric else np.array([str(k) for k in keys])
                if numeric:
                    ax.plot(kplot, means * 100, "o-")
                else:
                    ax.bar(kplot, means * 100)
                ax.set_ylim(-5, 105)
                ax.set_xlabel(p + (" (binned)" if many else ""))
                ax.set_ylabel("success rate (%)")
                shown = "-" if rate is None else f"{rate * 100:.1f} %"
                ax.set_title(f"{title}\nsuccess ({meta['success']}) overall {shown}", fontsize=9)
                ax.grid(alpha=0.3)
                save(fig, f"success_vs_{p}.png")
    return {
        "sweep": meta["id"],
        "runs": len(rows),
        "ok": len(ok),
        "failed": len(rows) - len(ok),
        "success_rate": rate,
        "figures": figures,
        **({"goals": numbers} if numbers is not None else {}),
    }
