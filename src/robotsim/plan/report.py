"""What ``robotsim plan`` writes: the planned scenario (a ``kind: clearance`` file that
``robotsim clearance`` reads), the distance curves before and after, and
``summary.json``.

The verdict is taken from the file as written: the planned scenario is loaded back
and certified at the margin, so ``collision_free`` is about the trajectories the file
describes (joint values round-trip through the file's units), not only about the
planner's copy in memory.
"""

from __future__ import annotations

import copy
import csv
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.atomic import write_text_atomic
from robotsim.clearance.certified import CertifiedResult, certified_run
from robotsim.clearance.scenario import load_scenario
from robotsim.clearance.trajectory import Hold, JointQuintic, JointSpline, Trajectory
from robotsim.jsonable import dumps as json_dumps
from robotsim.model.robot import RobotModel
from robotsim.plan.solve import PlanResult

__all__ = ["planned_doc", "plot_before_after", "write_plan"]


def _value(model: RobotModel, j: int, x: float, deg: bool) -> float:
    prismatic = model.joint(model.joint_names[j]).type.value == "prismatic"
    return float(math.degrees(x)) if deg and not prismatic else float(x)


def _segments(model: RobotModel, traj: Trajectory, deg: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for seg in traj.segments:
        if isinstance(seg, Hold):
            out.append({"type": "hold", "duration": float(seg.duration)})
        elif isinstance(seg, JointQuintic):
            to = {n: _value(model, j, seg.q1[j], deg) for j, n in enumerate(model.joint_names)}
            out.append({"type": "quintic", "to": to, "duration": float(seg.duration)})
        elif isinstance(seg, JointSpline):
            cols = list(model.joint_names)
            out.append(
                {
                    "type": "spline",
                    "joints": cols,
                    "t": seg.times.tolist(),
                    "q": [[_value(model, j, v, deg) for j, v in enumerate(r)] for r in seg.q],
                    "qd": [[_value(model, j, v, deg) for j, v in enumerate(r)] for r in seg.qd],
                }
            )
        else:  # the planner writes only the kinds above
            raise TypeError(f"cannot write a {type(seg).__name__} segment")
    return out


def planned_doc(
    doc: Mapping[str, Any], result: PlanResult, models: Mapping[str, RobotModel]
) -> dict[str, Any]:
    """The scenario mapping ``doc`` with the plan's changes: a ``delay``, a
    ``time_warp`` or new ``segments`` for each changed robot."""
    out = copy.deepcopy(dict(doc))
    deg = out.get("units", {}).get("angle", "deg") == "deg"
    rows = {r["name"]: r for r in out["robots"]}
    for c in result.changes:
        row = rows[c.robot]
        traj = c.trajectory
        if c.method == "replan":
            m = models[c.robot]
            q0 = traj.segments[0].at(np.zeros(1))[0]
            row["start"] = {n: _value(m, j, q0[j], deg) for j, n in enumerate(m.joint_names)}
            row["segments"] = _segments(m, traj, deg)
            row.pop("time_warp", None)
        if traj.start:
            row["delay"] = float(traj.start)
        else:
            row.pop("delay", None)
        if traj.warp is not None:
            row["time_warp"] = traj.warp.to_dict()
    methods = ", ".join(f"{c.robot}: {c.method}" for c in result.changes) or "no change"
    out["description"] = f"{out.get('description', '')} (planned: {methods})".strip()
    return out


def _curves_csv(res: CertifiedResult, path: Path) -> None:
    names = list(res.distance)
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["t", *names])
        for row in np.column_stack([res.times] + [res.distance[n] for n in names]):
            w.writerow([f"{v:.9g}" for v in row])


def plot_before_after(
    before: CertifiedResult, after: CertifiedResult, margin: float, path: Path
) -> Path:
    """Every pair's distance before (dashed) and after (solid) the plan, the margin and
    the contact level, and each pair's certified lower bound after (dotted)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, name in enumerate(after.distance):
        c = colors[k % len(colors)]
        if name in before.distance:
            ax.plot(
                before.times,
                before.distance[name],
                color=c,
                lw=1.2,
                ls="--",
                alpha=0.7,
                label=f"{name} before (min {before.pairs[name].min_distance:.3f} m)",
            )
        p = after.pairs[name]
        ax.plot(
            after.times,
            after.distance[name],
            color=c,
            lw=1.8,
            label=f"{name} after (>= {p.min_distance_lower_bound:.3f} m)",
        )
    ax.axhline(margin, color="black", ls="--", lw=1.0, label=f"margin {margin:g} m")
    ax.axhline(0.0, color="tab:red", ls=":", lw=1.0, label="contact")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("signed distance (m)")
    ax.set_title("Distance between robots before (dashed) and after (solid) the plan")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def write_plan(
    result: PlanResult,
    doc: Mapping[str, Any],
    out_dir: str | Path,
    dt: float,
    *,
    plots: bool = True,
) -> tuple[dict[str, Any], dict[str, Path]]:
    """Write ``scenario.yaml``, ``distances_before.csv``, ``distances_after.csv``,
    ``distance_curves.png`` and ``summary.json`` into ``out_dir``; returns the summary
    (the verdict from the written file, certified again) and the paths."""
    import yaml

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    new_doc = planned_doc(doc, result, result.models)
    paths = {"scenario": out / "scenario.yaml"}
    header = (
        "# Planned by 'robotsim plan' (method " + result.method + "); "
        "'robotsim clearance scenario.yaml --certified' checks it.\n"
    )
    write_text_atomic(
        paths["scenario"],
        header + yaml.safe_dump(new_doc, sort_keys=False, default_flow_style=None),
    )
    written = load_scenario(paths["scenario"])
    verified = certified_run(
        written.scene, written.trajectories, dt, level=result.margin, time_tol=1e-4
    )
    summary = result.summary(after=verified)
    summary["scenario"] = str(paths["scenario"])
    paths["before_csv"] = out / "distances_before.csv"
    paths["after_csv"] = out / "distances_after.csv"
    _curves_csv(result.before, paths["before_csv"])
    _curves_csv(verified, paths["after_csv"])
    if plots:
        paths["png"] = plot_before_after(
            result.before, verified, result.margin, out / "distance_curves.png"
        )
    paths["summary"] = out / "summary.json"
    write_text_atomic(paths["summary"], json_dumps(summary, indent=2) + "\n")
    return summary, paths
