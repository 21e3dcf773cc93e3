"""Pictures people would rather look at (matplotlib, Agg backend, files only).

- :func:`save_map`: the 2D top-down map of a mobile run (the paper's fig. 4): field and
  markings, obstacles, each robot's start, goal (with its tolerance) and trajectory.
- :func:`save_responses`: normalised (x, y, theta) step responses of several robots on
  shared axes (the paper's fig. 5), with the time each reached its goal.
- :func:`save_signals`: a run's recorded signals against time, one panel per signal,
  events as vertical lines (``robotsim runs plot``).
- :func:`save_com_path`: a motion's centre of mass over its footprints, kinematic and
  physics, and the support margin over time (``robotsim motion check --out``).
- :func:`save_grasps`: grasp trials, one 3D panel each: the object where it came to
  rest on the table, the planned contacts and approach, held or not (``robotsim grasp``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "save_com_path",
    "save_grasps",
    "save_map",
    "save_responses",
    "save_signals",
    "soccer_markings",
]

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


def soccer_markings(sx: float, sy: float, arc_segments: int = 48) -> np.ndarray:
    """The soccer markings of a field ``sx`` x ``sy`` m centred on the origin, as line
    segments ``(N, 2, 2)`` (m): the outline, the halfway line, the centre circle (radius
    13 % of the shorter side, ``arc_segments`` chords) and the two penalty boxes (10 %
    of the length deep, 45 % of the width wide). The 2D map and the studio's 3D field
    draw these same lines."""
    hx, hy = sx / 2, sy / 2
    corners = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    segs = [np.stack([corners[i], corners[(i + 1) % 4]]) for i in range(4)]
    segs.append(np.array([[0.0, -hy], [0.0, hy]]))
    r = min(sx, sy) * 0.13
    a = np.linspace(0.0, 2 * np.pi, arc_segments + 1)
    ring = np.column_stack([r * np.cos(a), r * np.sin(a)])
    segs += [ring[i : i + 2] for i in range(arc_segments)]
    bw, bh = sx * 0.1, sy * 0.45
    for side in (-1.0, 1.0):
        x0, x1 = side * hx, side * (hx - bw)
        box = np.array([[x0, -bh / 2], [x1, -bh / 2], [x1, bh / 2], [x0, bh / 2]])
        segs += [box[i : i + 2] for i in range(3)]
    return np.array(segs, dtype=float)


def _soccer_markings(ax: Any, sx: float, sy: float) -> None:
    from matplotlib.collections import LineCollection

    ax.add_collection(
        LineCollection(soccer_markings(sx, sy), colors="white", linewidths=1.2, alpha=0.9)
    )


def save_map(
    path: str | Path,
    field_size: Sequence[float],
    obstacles: np.ndarray,
    trajectories: Sequence[dict[str, Any]],
    title: str = "",
    markings: str = "soccer",
    objects: Sequence[dict[str, Any]] = (),
    overlay: Any = None,
    width: float = 8.0,
) -> Path:
    """Write the top-down map, ``width`` inches wide (at 110 dpi; ``overlay(ax)``, if
    given, draws more on it). ``obstacles`` ``(N, 3)`` [x, y, radius]; each trajectory
    is a mapping with ``name``, ``xy`` ``(K, 2)``, ``start``/``goal`` ``(3,)`` (x, y,
    theta), optional ``radius`` (footprint), ``tolerance`` and ``color``; ``objects``
    are other bodies drawn grey and labelled: mappings with ``name``, ``xy`` and either
    ``radius`` (m) or ``size`` (2,) m and ``yaw`` (rad) for a box."""
    from matplotlib.patches import Circle, Rectangle

    sx, sy = float(field_size[0]), float(field_size[1])
    fig, ax = _figure((width, width * sy / sx + 0.6))
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
    if overlay is not None:
        overlay(ax)
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


def save_com_path(path: str | Path, chk: Any, res: Any) -> Path:
    """Top: the CoM path (kinematic playback ``res`` dashed, physics ``chk`` solid) over
    each new stance's sole polygon (m). Bottom: support margin and the body's divergence
    from the kinematic playback over time (m, s). ``res`` is a
    :class:`robotsim.motion.PlaybackResult`, ``chk`` a ``PhysicsCheck``."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 6), dpi=100)
    a, b = fig.add_subplot(2, 1, 1), fig.add_subplot(2, 1, 2)
    for i in np.flatnonzero(np.diff(res.support, prepend=-1) != 0):  # each new stance
        f = int(res.support[i])
        c = res.soles[f].corners()
        S = res.sole_poses_between(f, int(i), int(i) + 1)[0]
        P = (S[:3, :3] @ c.T).T + S[:3, 3]
        a.fill(P[:, 0], P[:, 1], alpha=0.25, color=f"C{f}")
    a.plot(res.com[:, 0], res.com[:, 1], "k--", lw=0.8, label="CoM, kinematic")
    a.plot(chk.com[:, 0], chk.com[:, 1], "r-", lw=1, label="CoM, physics")
    a.set_aspect("equal")
    a.set_xlabel("x (m)")
    a.set_ylabel("y (m)")
    a.legend(fontsize=7)
    a.set_title(f"CoM over the footprints: {chk.verdict}")
    b.plot(chk.t, chk.support_margin, label="support margin (m)")
    b.plot(chk.t, chk.divergence_m, label="|body sim - kinematic| (m)")
    b.axhline(0, color="0.5", lw=0.5)
    b.set_xlabel("t (s)")
    b.legend(fontsize=7)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    return out


def save_signals(
    path: str | Path, table: Any, event_times: Sequence[float], title: str, most: int = 12
) -> Path:
    """One panel per signal (the first ``most`` columns of ``table``, a
    :class:`robotsim.recording.SignalTable`) against time (s); NaN samples (not
    recorded at that time) are skipped; a dashed line at each of ``event_times``."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    cols = list(table.names[:most])
    fig = Figure(figsize=(8, 1.6 * len(cols) + 0.6), dpi=110)
    axes = fig.subplots(len(cols), 1, sharex=True, squeeze=False)
    for ax, col in zip(axes[:, 0], cols):
        v = table.column(col)
        ok = ~np.isnan(v)
        ax.plot(table.t[ok], v[ok], lw=1.2)
        ax.set_ylabel(col, rotation=0, ha="right", va="center", fontsize=8)
        ax.grid(alpha=0.3)
        for t in event_times:
            ax.axvline(t, color="0.5", lw=0.8, ls="--")
    axes[-1, 0].set_xlabel("t (s)")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0.0, 0.0, 1.0, 1.0 - 0.35 / fig.get_figheight()))
    out = Path(path)
    fig.savefig(out, dpi=110)
    return out


def save_grasps(
    path: str | Path,
    surface: tuple[np.ndarray, np.ndarray],
    panels: Sequence[dict[str, Any]],
    table: Any,
    title: str,
    max_faces: int = 1500,
) -> Path:
    """One 3D panel per trial (at most 12, four to a row): the object's ``surface``
    ``(vertices (n, 3), faces (m, 3))`` (object frame, m) placed at each panel's ``T``
    ``(4, 4)``, the table's top, the planned ``contacts`` ``(k, 3)`` (red) and
    ``approach`` direction ``(3,)`` (an arrow coming in), titled ``label`` in green
    (``success``) or red."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    v, f = np.asarray(surface[0], float), np.asarray(surface[1], int)
    if len(f) > max_faces:  # a spread-out subset of the faces is enough to see the shape
        f = f[np.linspace(0, len(f) - 1, max_faces).astype(int)]
    panels = list(panels)[:12]
    cols = min(4, max(1, len(panels)))
    rows = max(1, -(-len(panels) // cols))
    fig = Figure(figsize=(3.2 * cols, 3.2 * rows + 0.5), dpi=100)
    size = float(np.max(np.ptp(v, axis=0))) if len(v) else 0.1
    half = 0.75 * size + 0.02
    for i, p in enumerate(panels):
        ax = fig.add_subplot(rows, cols, i + 1, projection="3d")
        T = np.asarray(p["T"], float)
        w = v @ T[:3, :3].T + T[:3, 3]
        c = w.mean(axis=0)
        ax.add_collection3d(Poly3DCollection(w[f], facecolor="#d9a05b", edgecolor="#8a5a2b",
                                             linewidths=0.1, alpha=0.55))  # fmt: skip
        top = float(table.top)
        # the table top's outline, cut to the panel's box (3D axes do not clip)
        x0, x1 = (
            max(table.center[0] - table.size[0] / 2, c[0] - half),
            min(table.center[0] + table.size[0] / 2, c[0] + half),
        )
        y0, y1 = (
            max(table.center[1] - table.size[1] / 2, c[1] - half),
            min(table.center[1] + table.size[1] / 2, c[1] + half),
        )
        if x0 < x1 and y0 < y1:
            ax.plot([x0, x1, x1, x0, x0], [y0, y0, y1, y1, y0], [top] * 5, color="0.4", lw=0.8)
        pts = p.get("contacts")
        if pts is not None and len(pts):
            pts = np.asarray(pts, float)
            ax.scatter(pts[:, 0], pts[:, 1], pts[:, 2], color="#d62728", s=18, depthshade=False)
            a = p.get("approach")
            if a is not None:
                a = np.asarray(a, float)
                g = pts.mean(axis=0)
                start = g - 0.8 * half * a
                ax.quiver(start[0], start[1], start[2], *(0.6 * half * a), color="#1f77b4",
                          arrow_length_ratio=0.3, lw=1.2)  # fmt: skip
        ax.set_xlim(c[0] - half, c[0] + half)
        ax.set_ylim(c[1] - half, c[1] + half)
        ax.set_zlim(top - 0.1 * half, top + 1.9 * half)
        ax.set_box_aspect((1, 1, 1))
        ax.tick_params(labelsize=5)
        ax.set_title(str(p.get("label", "")), fontsize=7,
                     color="#2ca02c" if p.get("success") else "#d62728")  # fmt: skip
    fig.suptitle(title, fontsize=9)
    out = Path(path)
    fig.savefig(out, dpi=100)
    return out
