"""Clearance outputs: ``distances.csv``, ``intervals.json`` and ``distance_curves.png``;
with the scene and trajectories also the paper's figures: ``contact_distances.csv``, the
contact-distance curves in ``distance_curves.png`` (Fig. 10) and ``paths.png`` (Fig. 9)."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from robotsim.clearance.contact import ContactCurve, contact_curves
from robotsim.clearance.monitor import ClearanceResult
from robotsim.clearance.scene import Scene
from robotsim.clearance.trajectory import Trajectory

__all__ = ["end_paths", "plot_distance_curves", "plot_paths", "volumes_json", "write_outputs"]


def _num(x: float) -> float | str | None:
    if math.isnan(x):
        return None
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def write_outputs(
    result: ClearanceResult,
    out_dir: str | Path,
    scene: Scene | None = None,
    trajectories: Mapping[str, Trajectory] | None = None,
) -> dict[str, Path]:
    """Write the files into ``out_dir`` (created); returns their paths. With ``scene``
    and ``trajectories`` the paper's contact-distance curves and robot paths too."""
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
    for n, row in result.to_json()["pairs"].items():  # type: ignore[attr-defined]
        if "link_pairs" in row:
            payload["pairs"][n]["link_pairs"] = row["link_pairs"]  # type: ignore[index]
    json_path.write_text(json.dumps(payload, indent=2) + "\n")
    png_path = out / "distance_curves.png"
    paths: dict[str, Path] = {"csv": csv_path, "json": json_path, "png": png_path}
    contact = None
    if scene is not None and trajectories is not None:
        contact = contact_curves(scene, trajectories, result.times)
        contact_path = out / "contact_distances.csv"
        with contact_path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["t", *[f"{n}:{k}" for n in contact for k in ("centre", "contact")]])
            for i, t in enumerate(result.times):
                row = [t] + [v for c in contact.values() for v in (c.centre[i], c.contact[i])]
                w.writerow([f"{v:.9g}" for v in row])
        paths["contact_csv"] = contact_path
        paths["paths_png"] = plot_paths(scene, trajectories, result.times, out / "paths.png")
        paths["volumes"] = out / "volumes.json"
        paths["volumes"].write_text(json.dumps(volumes_json(scene), indent=2) + "\n")
    plot_distance_curves(result, png_path, contact)
    return paths


def volumes_json(scene: Scene) -> dict[str, object]:
    """Every robot's volumes: label, link, type, sizes (m) and pose in the link frame."""
    out: dict[str, object] = {}
    for r in scene.robots:
        rows = []
        for k, v in enumerate(r.volumes):
            g = v.shape
            sizes = {f: list(map(float, np.atleast_1d(getattr(g, f))))
                     for f in ("radii", "radius", "length", "size") if hasattr(g, f)}  # fmt: skip
            pose = np.asarray(v.T_link_volume).round(9).tolist()
            rows.append({"label": r.volume_label(k), "link": v.link,
                         "type": type(g).__name__.lower(), **sizes,
                         "T_link_volume": pose})  # fmt: skip
        out[r.name] = rows
    return {"robots": out}


def end_paths(
    scene: Scene, trajectories: Mapping[str, Trajectory], times: np.ndarray
) -> dict[str, np.ndarray]:
    """World positions ``(T, 3)`` (m) of each robot's end frame (its model's default
    frame: the PUMA's wrist centre) at ``times``."""
    out = {}
    for r in scene.robots:
        T = r.model.fk(trajectories[r.name].q(np.asarray(times, dtype=float)))
        out[r.name] = (r.T_world_base @ T)[:, :3, 3]
    return out


def plot_paths(
    scene: Scene, trajectories: Mapping[str, Trajectory], times: np.ndarray, path: str | Path
) -> Path:
    """The paper's Fig. 9: every robot's end-frame path in 3D, labelled with the robot's
    name at its start, an arrow at its end (direction of motion), bases marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(7, 6), dpi=110)
    ax = fig.add_subplot(projection="3d")
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    ends = end_paths(scene, trajectories, times)
    for k, (name, p) in enumerate(ends.items()):
        c = colors[k % len(colors)]
        ax.plot(p[:, 0], p[:, 1], p[:, 2], color=c, lw=2.0, label=f"robot {name}")
        tail = max(0, len(p) - max(2, len(p) // 12))
        ax.quiver(*p[tail], *(p[-1] - p[tail]), color=c, arrow_length_ratio=0.5, lw=2.0)
        ax.text(*p[0], f" {name}", color=c, fontsize=12, weight="bold")
        base = scene.robot(name).T_world_base[:3, 3]
        ax.scatter(*base, color=c, marker="s", s=30)
        ax.plot([base[0], p[0, 0]], [base[1], p[0, 1]], [base[2], p[0, 2]], color=c, lw=0.6,
                ls=":")  # fmt: skip
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_zlabel("z (m)")
    ax.set_title("End-link paths (arrows: direction of motion; squares: bases)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return Path(path)


def plot_distance_curves(
    result: ClearanceResult,
    path: str | Path,
    contact: Mapping[str, ContactCurve] | None = None,
) -> None:
    """The signed distance of every robot pair with the contact threshold dashed and the
    collision intervals shaded; with ``contact`` above it the paper's Fig. 10: each
    pair's centre distance and, in green, its contact-distance curve (collision where
    the first falls to the second). Matplotlib, Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = 1 if contact is None else 2
    fig, axes = plt.subplots(rows, 1, figsize=(8, 4.5 * rows), dpi=110, squeeze=False,
                             sharex=True)  # fmt: skip
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    if contact is not None:
        ax = axes[0, 0]
        styles = ["--", "-.", ":", (0, (5, 1, 1, 1))]
        for k, (name, c) in enumerate(contact.items()):
            col = colors[k % len(colors)]
            ax.plot(result.times, c.centre, color=col, lw=1.6, label=f"{name} centre distance")
            ax.plot(result.times, c.contact, color="tab:green", lw=1.4,
                    ls=styles[k % len(styles)], label=f"{name} contact distance")  # fmt: skip
            for t0, t1 in result.pairs[name].collision_intervals:
                ax.axvspan(t0, t1, color=col, alpha=0.18, lw=0)
        ax.set_ylabel("distance between volume centres (m)")
        ax.set_title("Shortest distance vs contact distance (green): collision where they meet")
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize=7)
    ax = axes[-1, 0]
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
