"""The Sweep tab: pick any run of a sweep and replay it; follow an optimiser live.

A sweep opens in the studio as one of its runs (:mod:`robotsim.studio.sweep.opener`);
this tab then lists every run of that sweep, each with its parameters, its status and
its first metric when the sweep folder holds its result, and "Replay run" opens the
chosen one (the base scenario with that run's parameters and seed, through the base
kind's own opener; press play to run it). A sweep folder (``robotsim sweep --out DIR``)
or a sweep file can also be typed in and loaded here.

A sweep with an objective also shows its best run (or Pareto front), the number of
feasible trials and the plots of ``robotsim sweep report`` (convergence, parameter
importance, Pareto front, slices: :func:`robotsim.sweep.report_goals.draw_goal_figures`),
one at a time as chosen in "Plot";
"Open best run" replays the best one. While a sweep runs, the tab follows its folder:
the run log is looked at every second and the list, the best run and the plot are
redrawn (in a thread of their own, one at a time) when it has grown.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.errors import InputError
from robotsim.studio.coalesce import Coalesced

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["GoalView", "RunChoice", "SweepPanel", "goal_view", "run_choices"]

_PLACEHOLDER = np.full((8, 8, 3), 248, np.uint8)
POLL_S = 1.0  # seconds between looks at a listed sweep folder's run log

_IDLE = "_open a sweep (a sweep folder's `sweep.yaml`, Open tab) or load one below_"


@dataclass(frozen=True)
class RunChoice:
    """One run of a sweep as the picker shows it: its ``key`` (``p00012-r0``), the
    dropdown ``label`` and a markdown ``detail`` (parameters, status, metrics)."""

    key: str
    label: str
    detail: str
    status: str  # ok, failed or not run


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


@dataclass(frozen=True)
class GoalView:
    """What the tab shows of a sweep with an objective: ``text`` (markdown: the best
    run or the front, feasible trials), ``best`` (run keys, best first) and ``images``
    (the figures of ``robotsim sweep report``, by name: ``convergence``, ``importance``
    with 4 or more feasible trials, ``pareto_front`` with several objectives,
    ``slice_PARAM``; RGB ``(H, W, 3)`` uint8)."""

    text: str
    best: tuple[str, ...]
    images: dict[str, np.ndarray]

    @property
    def image(self) -> np.ndarray:
        """The convergence plot."""
        return self.images["convergence"]


def goal_view(folder: Path, width_px: int = 480) -> GoalView | None:
    """The goal view of a sweep folder (``None``: no objective, or nothing run yet)."""
    import warnings

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from robotsim.sweep.goals import goals_from_meta
    from robotsim.sweep.report_goals import draw_goal_figures, trials_of
    from robotsim.sweep.results import read_meta, table_rows

    meta = read_meta(folder)
    goals = goals_from_meta(meta)
    if not goals.active:
        return None
    rows = table_rows(folder, meta)
    trials = trials_of(rows)
    if not trials:
        return None
    best = [r for r in trials if r.get("pareto")]
    col = goals.objectives[0].column
    if len(goals.objectives) == 1:
        best.sort(key=lambda r: goals.objectives[0].sign * float(r[col]))
    feasible = sum(bool(r.get("feasible")) for r in trials)
    lines = [f"{feasible} of {len(trials)} trials feasible"]
    what = "best" if len(goals.objectives) == 1 else f"Pareto front ({len(best)})"
    for r in best[:3]:
        params = ", ".join(f"{p}={_fmt(r.get(p))}" for p in meta["parameters"])
        vals = ", ".join(f"{o.column}={_fmt(r.get(o.column))}" for o in goals.objectives)
        lines.append(f"**{what}** {r['run_key']}: {params} · {vals}")
    images: dict[str, np.ndarray] = {}

    def keep(fig: Any, name: str) -> None:
        fig.set_dpi(width_px / fig.get_figwidth())
        fig.tight_layout(pad=0.4)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        images[name.removesuffix(".png")] = np.asarray(canvas.buffer_rgba())[..., :3].copy()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        draw_goal_figures(rows, meta, keep, str(meta.get("name", folder.name)))
    return GoalView("\n\n".join(lines), tuple(str(r["run_key"]) for r in best), images)


def run_choices(sweep: Path) -> tuple[Path, list[RunChoice]]:
    """``(sweep file, runs)`` of a sweep folder or a sweep file: every run of its design
    in order, with the result of those the folder holds (a sweep file outside a folder
    lists its runs without results)."""
    from robotsim.sweep import load_sweep, read_rows
    from robotsim.sweep.engine import known_tasks

    sweep = Path(sweep)
    file = sweep / "sweep.yaml" if sweep.is_dir() else sweep
    if not file.is_file():
        raise InputError(f"{sweep}: neither a sweep folder nor a sweep file")
    sw = load_sweep(file)
    rows = read_rows(file.parent)
    metrics = list(sw.spec.metric_columns())
    out = []
    for t in known_tasks(sw, rows):
        params = ", ".join(f"{k}={_fmt(v)}" for k, v in t.params.items())
        row = rows.get(t.key)
        if row is None:
            status, shown = "not run", ""
        elif row.get("status") != "ok":
            status, shown = "failed", ""
        else:
            status = "ok"
            shown = f" · {metrics[0]}={_fmt(row.get(metrics[0]))}" if metrics else ""
        label = f"{t.key} · {params} · {status}{shown}"
        lines = [f"**{t.key}**: {params}", f"status: {status}"]
        if row is not None:
            lines += [f"{m}: {_fmt(row.get(m))}" for m in metrics]
            if "success" in row:
                lines.append(f"success: {row['success']}")
            if row.get("error"):
                lines.append(f"error: {row['error']}")
        out.append(RunChoice(t.key, label, "\n\n".join(lines), status))
    return file, out


class SweepPanel:
    """The run picker (module docs). ``show(sweep)`` lists a sweep's runs; ``replay(key)``
    opens one."""

    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        gui = studio.gui
        self.header = gui.add_markdown(_IDLE)
        hint = "A sweep folder (robotsim sweep --out DIR) or a sweep file"
        self.path = gui.add_text("Sweep", initial_value="", hint=hint)
        self.load = gui.add_button("Load runs", icon="list")  # type: ignore[arg-type]
        self.run = gui.add_dropdown("Run", ("",), initial_value="")
        self.replay_button = gui.add_button("Replay run", icon="player-play")  # type: ignore[arg-type]
        self.detail = gui.add_markdown("")
        self.goals = gui.add_markdown("")
        self.best_button = gui.add_button("Open best run", icon="trophy", visible=False)  # type: ignore[arg-type]
        self.figure = gui.add_dropdown("Plot", ("convergence",), initial_value="convergence",
                                       visible=False)  # fmt: skip
        self.plot = gui.add_image(_PLACEHOLDER, label="Plot", format="png", visible=False)
        self.images: dict[str, np.ndarray] = {}
        self.file: Path | None = None
        self.choices: dict[str, RunChoice] = {}
        self.best: tuple[str, ...] = ()
        self._seen: Path | None = None  # the studio's source last looked at
        self._log_stat: tuple[int, int] | None = None  # (size, mtime) of the run log shown
        self._next_poll = 0.0
        self._live = Coalesced(lambda _force: self._refresh_if_grown())

        @self.load.on_click
        @studio.guarded("load sweep")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.load_path(self.path.value)

        @self.run.on_update
        def _(_) -> None:  # type: ignore[no-untyped-def]
            choice = self.choices.get(self.run.value)
            self.detail.content = choice.detail if choice is not None else ""

        @self.replay_button.on_click
        @studio.guarded("replay run")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            choice = self.choices.get(self.run.value)
            if choice is None:
                raise InputError("no run chosen: open or load a sweep first")
            self.replay(choice.key)

        @self.figure.on_update
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.plot.image = self.images.get(self.figure.value, _PLACEHOLDER)

        @self.best_button.on_click
        @studio.guarded("open best run")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.open_best()

        studio.on("driver", self._follow_open)
        studio.on("clock", self._poll)

    def _follow_open(self) -> None:
        """A sweep opened from the Open tab (or the command line): list its runs."""
        src = self.studio.source
        if src == self._seen:
            return  # not a new file (e.g. this tab replaying a run)
        self._seen = src
        if src is None or src.suffix not in (".yaml", ".yml"):
            return
        from robotsim.sweep.schema import load_sweep_data

        try:
            is_sweep = load_sweep_data(src).get("kind") == "sweep"
        except Exception:
            return
        if is_sweep:
            self.show(src)

    def load_path(self, text: str) -> list[RunChoice]:
        """:meth:`show` the sweep folder or file typed in the page (inside the
        studio's workspace: :class:`robotsim.studio.workspace.WorkspaceError` if not)."""
        return self.show(self.studio.workspace.resolve(text))

    def show(self, sweep: Path) -> list[RunChoice]:
        """List the runs of a sweep folder or file (the run chosen before kept, else the
        first finished one), and its goals when it has an objective."""
        file, choices = run_choices(sweep)
        same = self.file == file.resolve()
        chosen = self.choices.get(self.run.value) if same else None
        self.file = file.resolve()
        self._log_stat = self._stat()
        self.choices = {c.label: c for c in choices}
        labels = tuple(self.choices) or ("",)
        self.run.options = labels
        done = [c.label for c in choices if c.status == "ok"]
        keep = [c.label for c in choices if chosen is not None and c.key == chosen.key]
        self.run.value = keep[0] if keep else done[0] if done else labels[0]
        folder = file.name == "sweep.yaml" and file.parent.joinpath("sweep.json").is_file()
        self.path.value = str(file.parent if folder else file)
        finished = sum(c.status != "not run" for c in choices)
        name = file.parent.name if folder else file.stem
        self.header.content = f"**{name}**: {len(choices)} runs, {finished} finished"
        choice = self.choices.get(self.run.value)
        self.detail.content = choice.detail if choice is not None else ""
        self.show_goals()
        return choices

    def _folder(self) -> Path | None:
        f = self.file
        if f is None or f.name != "sweep.yaml" or not f.parent.joinpath("sweep.json").is_file():
            return None
        return f.parent

    def _poll(self) -> None:
        """The studio's clock (4 Hz): once a second, redraw in a thread if the listed
        folder's run log has grown."""
        now = time.monotonic()
        if now < self._next_poll or self._folder() is None or self._live.running:
            return
        self._next_poll = now + POLL_S
        threading.Thread(target=self._live, name="sweep-live", daemon=True).start()

    def _stat(self) -> tuple[int, int] | None:
        folder = self._folder()
        try:
            st = (folder / "runs.jsonl").stat() if folder is not None else None
        except OSError:
            return None
        return None if st is None else (st.st_size, st.st_mtime_ns)

    def _refresh_if_grown(self) -> None:
        if self.file is not None and self._stat() != self._log_stat:
            self.show(self.file)

    def show_goals(self) -> GoalView | None:
        """Redraw the best run and the plots (convergence, importance, Pareto front,
        slices: the one chosen in "Plot" is shown) of the listed sweep folder."""
        folder = self._folder()
        view = goal_view(folder) if folder is not None else None
        self.best = view.best if view is not None else ()
        self.goals.content = view.text if view is not None else ""
        self.best_button.visible = bool(self.best)
        self.images = dict(view.images) if view is not None else {}
        names = tuple(self.images) or ("convergence",)
        chosen = self.figure.value if self.figure.value in self.images else names[0]
        self.figure.options = names
        self.figure.value = chosen
        self.figure.visible = self.plot.visible = view is not None
        self.plot.image = self.images.get(chosen, _PLACEHOLDER)
        return view

    def open_best(self) -> str:
        """Replay the best run of the listed sweep (the first of its Pareto front)."""
        if not self.best:
            raise InputError("no best run: the listed sweep has no objective or no feasible run")
        return self.replay(self.best[0])

    def replay(self, key: str) -> str:
        """Open run ``key`` of the listed sweep in the studio (press play to run it)."""
        from robotsim.studio.sweep.opener import open_sweep_run

        if self.file is None:
            raise InputError("no sweep listed: open or load a sweep first")
        shown = open_sweep_run(self.studio, self.file, key)
        for label, c in self.choices.items():
            if c.key == key:
                self.run.value = label
        self.header.content = shown
        return shown
