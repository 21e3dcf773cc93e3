"""Clearance outputs: ``distances.csv``, ``intervals.json`` and ``distance_curves.png``;
with the scene and trajectories also the paper's figures: ``contact_distances.csv``, the
contact-distance curves in ``distance_curves.png`` (Fig. 10) and ``paths.png`` (Fig. 9).

:func:`write_outputs` writes a :class:`~robotsim.clearance.ClearanceResult` held in
memory; :func:`stream_outputs` (what ``robotsim clearance`` uses) computes the run in
chunks (:class:`~robotsim.clearance.stream.ClearanceStream`) and appends every chunk to
the CSV files as it comes, so a long run needs the memory of one chunk. The files are
the same; the plots show every sample up to :data:`PLOT_FULL` samples, and beyond that
each series' minimum and maximum per bucket of samples (an envelope: no dip is lost)."""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.clearance.contact import ContactCurve, contact_curves
from robotsim.clearance.monitor import ClearanceResult, PairClearance
from robotsim.clearance.scene import Scene
from robotsim.clearance.stream import ClearanceStream, ClearanceSummary
from robotsim.clearance.trajectory import Trajectory
from robotsim.jsonable import dumps as json_dumps

__all__ = [
    "PLOT_FULL",
    "arrow_tail",
    "end_paths",
    "plot_distance_curves",
    "plot_paths",
    "stream_outputs",
    "volumes_json",
    "write_outputs",
]

#: Samples the plots show one by one; a longer run is drawn as a min/max envelope.
PLOT_FULL = 200_000


def _num(x: float) -> float:
    """A number for the JSON files (written by ``jsonable.dumps``: a NaN or an infinity,
    such as the distance of a pair that never came close, becomes ``null`` with its
    reason in ``null_reasons``; never a string)."""
    return float(x)


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
    payload = _intervals_json(result)
    json_path.write_text(json_dumps(payload, indent=2) + "\n")
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
        paths["volumes"].write_text(json_dumps(volumes_json(scene), indent=2) + "\n")
    plot_distance_curves(result, png_path, contact)
    return paths


def _intervals_json(summary: ClearanceSummary | ClearanceResult) -> dict[str, object]:
    payload: dict[str, object] = {
        "contact_threshold": summary.contact_threshold,
        "time_tolerance": summary.time_tol,
        "pairs": {
            n: {
                "min_distance": _num(p.min_distance),
                "t_min": _num(p.t_min),
                "closest": list(p.closest),
                "collision_intervals": [list(iv) for iv in p.collision_intervals],
            }
            for n, p in summary.pairs.items()
        },
    }
    for n, row in summary.to_json()["pairs"].items():  # type: ignore[attr-defined]
        if "link_pairs" in row:
            payload["pairs"][n]["link_pairs"] = row["link_pairs"]  # type: ignore[index]
    return payload


class _PlotSeries:
    """What the plots keep of a run: every sample up to :data:`PLOT_FULL`, else per
    bucket of ``bucket`` samples the first and last time and, for each series, its
    minimum and maximum in time order (two points per bucket)."""

    def __init__(self, total: int) -> None:
        self.bucket = 1 if total <= PLOT_FULL else math.ceil(total / (PLOT_FULL // 2))
        self.times: list[np.ndarray] = []
        self.values: dict[str, list[np.ndarray]] = {}
        self._pending_t = np.zeros(0)
        self._pending: dict[str, np.ndarray] = {}

    def add(self, times: np.ndarray, series: Mapping[str, np.ndarray], final: bool) -> None:
        if self.bucket == 1:
            self.times.append(np.asarray(times))
            for k, v in series.items():
                self.values.setdefault(k, []).append(np.asarray(v))
            return
        t = np.concatenate([self._pending_t, times])
        vals = {
            k: np.concatenate([self._pending.get(k, np.zeros(0)), v]) for k, v in series.items()
        }
        b = self.bucket
        full = len(t) if final else (len(t) // b) * b
        nb = math.ceil(full / b)
        if nb:
            pad = nb * b - full  # the last, partial bucket of the run
            tt = np.concatenate([t[:full], np.full(pad, t[full - 1])]).reshape(nb, b)
            self.times.append(np.column_stack([tt[:, 0], tt[:, -1]]).ravel())
            for k, v in vals.items():
                vv = np.concatenate([v[:full], np.full(pad, v[full - 1])]).reshape(nb, b)
                with np.errstate(invalid="ignore"):
                    lo, hi = np.argmin(vv, axis=1), np.argmax(vv, axis=1)
                rows = np.arange(nb)
                vmin, vmax = vv[rows, lo], vv[rows, hi]
                first = np.where(lo <= hi, vmin, vmax)
                second = np.where(lo <= hi, vmax, vmin)
                self.values.setdefault(k, []).append(np.column_stack([first, second]).ravel())
        self._pending_t = t[full:]
        self._pending = {k: v[full:] for k, v in vals.items()}

    def arrays(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        t = np.concatenate(self.times) if self.times else np.zeros(0)
        return t, {k: np.concatenate(v) for k, v in self.values.items()}


#: Bytes a CSV value takes at least (``f"{v:.9g}"`` and a comma): the size estimate.
_CSV_VALUE_BYTES = 10


def _check_disk(stream: ClearanceStream, out: Path, link_pairs: bool) -> None:
    """Refuse a run whose CSV files would not fit the free space of ``out`` (a lower
    estimate: ``dt: 1e-9`` over seconds is refused before anything is written)."""
    from robotsim.budget import check_free_space

    vols = [max(1, len(m.kinds)) for m in stream.movers]
    pairs = sum(a * b for i, a in enumerate(vols) for b in vols[i + 1 :])
    robot_pairs = len(vols) * (len(vols) - 1) // 2
    values = (1 + robot_pairs) + (1 + 2 * robot_pairs) + ((1 + pairs) if link_pairs else 0)
    need = float(stream.samples) * values * _CSV_VALUE_BYTES
    check_free_space(
        out,
        need,
        f"clearance: {stream.samples:.3g} samples of {stream.dt:g} s would write about "
        "{need} of CSV files, more than the {free} free in {folder}; "
        "use a larger dt or a shorter run",
    )


def stream_outputs(
    scene: Scene,
    trajectories: Mapping[str, Trajectory],
    dt: float,
    out_dir: str | Path,
    *,
    t_end: float | None = None,
    cutoff: float = math.inf,
    link_pairs: bool = False,
    method: str = "exact",
    chunk: int | None = None,
    plots: bool = True,
    recorder: Any = None,
) -> tuple[ClearanceSummary, dict[str, Path]]:
    """Compute the clearance of ``scene`` chunk by chunk and write the files of
    :func:`write_outputs` (with the paper's figures; with ``link_pairs`` also
    ``link_distances.csv``) into ``out_dir`` as the chunks come: memory stays that of
    one chunk (``chunk`` samples, see :class:`~robotsim.clearance.stream.ClearanceStream`)
    plus the plots' :data:`PLOT_FULL` samples. ``plots=False``: the CSV and JSON files
    only (no ``distance_curves.png``, ``paths.png``). With ``recorder`` (a started run
    of the run store) the study is recorded too, chunk by chunk, so that it replays in
    3D (:class:`~robotsim.clearance.record.ClearanceRecording`). Returns the summary and
    the paths."""
    stream = ClearanceStream(
        scene, trajectories, dt, t_end=t_end, cutoff=cutoff, link_pairs=link_pairs,
        method="paper" if method == "paper" else "exact", chunk=chunk,
    )  # fmt: skip
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _check_disk(stream, out, link_pairs)
    recording = None
    if recorder is not None:
        from robotsim.clearance.record import ClearanceRecording

        recording = ClearanceRecording(recorder, scene, trajectories)
        recording.check_space(stream.samples, stream.dt)
    paths: dict[str, Path] = {
        "csv": out / "distances.csv",
        "json": out / "intervals.json",
        "png": out / "distance_curves.png",
        "contact_csv": out / "contact_distances.csv",
    }
    if not plots:
        del paths["png"]
    if link_pairs:
        paths["link_csv"] = out / "link_distances.csv"
    plot = _PlotSeries(stream.samples)
    path_times: list[np.ndarray] = []
    with ExitStack() as files:
        handles = {k: files.enter_context(paths[k].open("w", newline=""))
                   for k in ("csv", "contact_csv", "link_csv") if k in paths}  # fmt: skip
        writers = {k: csv.writer(h) for k, h in handles.items()}
        link_cols: list[tuple[str, str]] | None = None
        contact_names: list[str] = []
        for ch in stream.chunks():
            names = list(ch.distance)
            if recording is not None:
                recording.chunk(ch.times, ch.distance)
            contact = contact_curves(scene, trajectories, ch.times)
            if ch.start == 0:
                writers["csv"].writerow(["t", *names])
                contact_names = list(contact)
                writers["contact_csv"].writerow(
                    ["t", *[f"{n}:{k}" for n in contact_names for k in ("centre", "contact")]]
                )
                if link_pairs:
                    link_cols = [(n, k) for n in names for k in ch.links[n]]
                    writers["link_csv"].writerow(["t", *[f"{n}:{k}" for n, k in link_cols]])
            cols = np.column_stack([ch.times] + [ch.distance[n] for n in names])
            writers["csv"].writerows([f"{v:.9g}" for v in row] for row in cols)
            crow = [ch.times] + [getattr(contact[n], f) for n in contact_names
                                 for f in ("centre", "contact")]  # fmt: skip
            writers["contact_csv"].writerows(
                [f"{v:.9g}" for v in row] for row in np.column_stack(crow)
            )
            if link_cols is not None:
                lcols = np.column_stack([ch.times] + [ch.links[n][k] for n, k in link_cols])
                writers["link_csv"].writerows([f"{v:.9g}" for v in row] for row in lcols)
            if not plots:
                continue
            final = ch.start + len(ch.times) >= stream.samples
            series = {f"d:{n}": ch.distance[n] for n in names}
            for n in contact_names:
                series[f"centre:{n}"] = contact[n].centre
                series[f"contact:{n}"] = contact[n].contact
            plot.add(ch.times, series, final)
            b = plot.bucket
            keep = ((ch.start + np.arange(len(ch.times))) % b == 0) | (
                ch.start + np.arange(len(ch.times)) == stream.samples - 1)  # fmt: skip
            path_times.append(ch.times[keep])
    summary = stream.summary()
    if recording is not None:
        recording.finish(summary)
    paths["json"].write_text(json_dumps(_intervals_json(summary), indent=2) + "\n")
    paths["volumes"] = out / "volumes.json"
    paths["volumes"].write_text(json_dumps(volumes_json(scene), indent=2) + "\n")
    if not plots:
        return summary, paths
    t_plot, series = plot.arrays()
    shown = ClearanceResult(
        t_plot,
        {n: PairClearance(n, series[f"d:{n}"], p.min_distance, p.t_min, p.closest,
                          p.collision_intervals) for n, p in summary.pairs.items()},
        summary.contact_threshold,
        summary.time_tol,
    )  # fmt: skip
    curves = {
        n: ContactCurve(n, series[f"centre:{n}"], series[f"contact:{n}"], np.zeros((0, 2)))
        for n in contact_names
    }
    t_paths = np.concatenate(path_times) if path_times else np.zeros(0)
    paths["paths_png"] = plot_paths(scene, trajectories, t_paths, out / "paths.png")
    plot_distance_curves(shown, paths["png"], curves)
    return summary, paths


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


def arrow_tail(p: np.ndarray, length: float) -> int:
    """Index in path ``p`` ``(n, 3)`` where the direction arrow starts: the last point
    at least ``length`` (m, along the path) before its end, or the start of a shorter
    path. Counting samples instead drew no visible arrow: a quintic move barely moves
    in its last samples."""
    step = np.linalg.norm(np.diff(p, axis=0), axis=1)
    if len(p) < 2:
        return 0
    from_end = np.concatenate([np.cumsum(step[::-1])[::-1], [0.0]])  # length to the end
    far = np.nonzero(from_end >= length)[0]
    return int(far[-1]) if len(far) else 0


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
    # arrows a tenth of the drawing's size (of a path, if shorter): seen at any scale
    pts = np.concatenate(
        [*ends.values(), *(scene.robot(n).T_world_base[None, :3, 3] for n in ends)]
    )
    arrow = 0.1 * float(np.max(np.ptp(pts, axis=0))) if len(pts) else 0.0
    for k, (name, p) in enumerate(ends.items()):
        c = colors[k % len(colors)]
        ax.plot(p[:, 0], p[:, 1], p[:, 2], color=c, lw=2.0, label=f"robot {name}")
        tail = arrow_tail(p, arrow)
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
