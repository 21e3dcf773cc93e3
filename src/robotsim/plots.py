"""Pictures people would rather look at (matplotlib, Agg backend, files only).

- :func:`save_map`: the 2D top-down map of a mobile run (the paper's fig. 4): field and
  markings, obstacles, each robot's start, goal (with its tolerance) and trajectory.
- :func:`save_responses`: normalised (x, y, theta) step responses of several robots on
  shared axes (the paper's fig. 5), with the time each reached its goal.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["save_map", "save_responses"]

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
    "#ff7f0e",
)


def _figure(figsize: tuple[float, float]) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=110)
    return fig, fig.add_subplot(1, 1, 1)


def _soccer_markings(ax: Any, sx: float, sy: float) -> None:
    from matplotlib.patches import Circle, Rectangle

    kw = {"fill": False, "color": "white", "lw": 1.2, "alpha": 0.9}
    ax.add_patch(Rectangle((-sx / 2, -sy / 2), sx, sy, **kw))
    ax.plot([0, 0], [-sy / 2, sy / 2], color="white", lw=1.2, alpha=0.9)
    ax.add_patch(Circle((0, 0), min(sx, sy) * 0.13, **kw))
    box_w, box_h = sx * 0.1, sy * 0.45
    for side in (-1, 1):
        x = side * sx / 2 - (box_w if side > 0 else 0)
        ax.add_patch(Rectangle((x, -box_h / 2), box_w, box_h, **kw))


def save_map(
    path: str | Path,
    field_size: Sequence[float],
    obstacles: np.ndarray,
    trajectories: Sequence[dict[str, Any]],
    title: str = "",
    markings: str = "soccer",
    objects: Sequence[dict[str, Any]] = (),
) -> Path:
    """Write the top-down map. ``obstacles`` ``(N, 3)`` [x, y, radius]; each trajectory
    is a mapping with ``name``, ``xy`` ``(K, 2)``, ``start``/``goal`` ``(3,)`` (x, y,
    theta), optional ``radius`` (footprint), ``tolerance`` and ``color``; ``objects``
    are other bodies drawn grey and labelled: mappings with ``name``, ``xy`` and either
    ``radius`` (m) or ``size`` (2,) m and ``yaw`` (rad) for a box."""
    from matplotlib.patches import Circle, Rectangle

    sx, sy = float(field_size[0]), float(field_size[1])
    fig, ax = _figure((8.0, 8.0 * sy / sx + 0.6))
    margin = 0.5
    ax.add_patch(
        Rectangle(
            (-sx / 2 - margin, -sy / 2 - margin),
            sx + 2 * margin,
            sy + 2 * margin,
            color="#3f7f3f",
            zorder=0,
        )
    )
    if markings == "soccer":
        _soccer_markings(ax, sx, sy)
    for x, y, r in np.asarray(obstacles).reshape(-1, 3):
        ax.add_patch(Circle((x, y), r, color="#e07020", ec="black", lw=0.6, zorder=3))
    for ob in objects:
        x, y = ob["xy"]
        if "size" in ob:
            sx_, sy_ = ob["size"]
            yaw = float(ob.get("yaw", 0.0))
            c, s_ = np.cos(yaw), np.sin(yaw)
            corner = (x - (c * sx_ - s_ * sy_) / 2, y - (s_ * sx_ + c * sy_) / 2)
            ax.add_patch(
                Rectangle(
                    corner,
                    sx_,
                    sy_,
                    angle=float(np.degrees(yaw)),
                    color="#9a9a9a",
                    ec="black",
                    lw=0.6,
                    zorder=3,
                )
            )
            top = 0.5 * float(np.hypot(sx_, sy_))
        else:
            top = float(ob["radius"])
            ax.add_patch(Circle((x, y), top, color="#9a9a9a", ec="black", lw=0.6, zorder=3))
        ax.text(x, y + top + 0.1, ob["name"], ha="center", fontsize=7, color="white", zorder=7)
    for i, tr in enumerate(trajectories):
        color = tr.get("color") or PALETTE[i % len(PALETTE)]
        xy = np.asarray(tr["xy"]).reshape(-1, 2)
        s, g = np.asarray(tr["start"]), np.asarray(tr["goal"])
        ax.plot(xy[:, 0], xy[:, 1], color=color, lw=1.8, zorder=4, label=tr["name"])
        rad = float(tr.get("radius") or 0.0)
        if rad > 0 and len(xy):
            ax.add_patch(Circle(tuple(xy[-1]), rad, fill=False, color=color, lw=1.0, zorder=5))
        ax.plot(*s[:2], marker="o", color=color, mec="black", ms=8, zorder=6)
        ax.arrow(
            s[0], s[1], 0.5 * np.cos(s[2]), 0.5 * np.sin(s[2]), color=color, width=0.03, zorder=6
        )
        ax.plot(*g[:2], marker="*", color="gold", mec="black", ms=14, zorder=6)
        tol = float(tr.get("tolerance") or 0.0)
        if tol > 0:
            ax.add_patch(Circle(tuple(g[:2]), tol, fill=False, color="gold", lw=1, zorder=6))
    ax.set_xlim(-sx / 2 - margin, sx / 2 + margin)
    ax.set_ylim(-sy / 2 - margin, sy / 2 + margin)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    if title:
        ax.set_title(title)
    if trajectories:
        ax.legend(loc="upper left", fontsize=8, framealpha=0.8)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    return out


def save_responses(path: str | Path, responses: Sequence[dict[str, Any]]) -> Path:
    """One panel per robot: normalised x, y, theta over time (start 0, goal 1). Each
    response is a mapping with ``name``, ``t`` ``(K,)``, ``response`` ``(K, 3)`` and
    optional ``time_to_goal`` (s, marked with a vertical line)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    n = max(1, len(responses))
    fig = Figure(figsize=(8.0, 2.8 * n), dpi=110)
    axes = [fig.add_subplot(n, 1, i + 1) for i in range(n)]
    for ax, r in zip(axes, responses):
        t, y = np.asarray(r["t"]), np.asarray(r["response"])
        for a, (label, color) in enumerate(
            (("x", "#1f77b4"), ("y", "#d62728"), ("theta", "#2ca02c"))
        ):
            ax.plot(t, y[:, a], color=color, lw=1.6, label=label)
        ax.axhline(1.0, color="black", lw=0.8, ls="--")
        if r.get("time_to_goal") is not None:
            tg = float(r["time_to_goal"])
            ax.axvline(tg, color="gray", lw=0.8)
            ax.text(tg, 0.05, f" {tg:.2f} s", color="gray", fontsize=8)
        ax.set_title(f"{r['name']}: normalised pose (start 0, goal 1)", fontsize=10)
        ax.set_ylabel("normalised")
        ax.legend(loc="lower right", fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    return out
