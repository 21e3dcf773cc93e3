"""Clearance outputs: ``distances.csv``, ``intervals.json`` and ``distance_curves.png``."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np

from robotsim.clearance.monitor import ClearanceResult

__all__ = ["plot_distance_curves", "write_outputs"]


def _num(x: float) -> float | str | None:
    if math.isnan(x):
        return None
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def write_outputs(result: ClearanceResult, out_dir: str | Path) -> dict[str, Path]:
    """Write the three files into ``out_dir`` (created); returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names = list(result.pairs)
    csv_path = out / "distances.csv"
    with csv_path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["t", *names])
        cols = np.column_stack([result.times] + [result.pairs[n].distance for n in names])
        for row in cols:
            w.writerow([f"{v:.9g}" for v in row])
    json_path = out / "intervals.json"
    payload = {
        "contact_threshold": result.contact_threshold,
        "time_tolerance": result.time_tol,
        "pairs": {
            n: {
                "min_distance": _num(p.min_distance),
                "t_min": _num(p.t_min),
                "closest": list(p.closest),
                "collision_intervals": [list(iv) for iv in p.collision_intervals],
            }
            for n, p in result.pairs.items()
        },
    }
    json_path.write_text(json.dumps(payload, indent=2) + "\n")
    png_path = out / "distance_curves.png"
    plot_distance_curves(result, png_path)
    return {"csv": csv_path, "json": json_path, "png": png_path}


def plot_distance_curves(result: ClearanceResult, path: str | Path) -> None:
    """One curve per robot pair, the contact threshold as a black dashed line, collision
    intervals shaded in the pair's colour (matplotlib, Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (name, p) in enumerate(result.pairs.items()):
        c = colors[k % len(colors)]
        d = np.where(np.isfinite(p.distance), p.distance, np.nan)
        ax.plot(result.times, d, color=c, lw=1.6, label=f"{name} (min {p.min_distance:.3f} m)")
        for t0, t1 in p.collision_intervals:
            ax.axvspan(t0, t1, color=c, alpha=0.18, lw=0)
    ax.axhline(result.contact_threshold, color="black", ls="--", lw=1.2, label="contact threshold")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("signed distance (m)")
    ax.set_title("Minimum distance between robots (shaded: collision intervals)")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
