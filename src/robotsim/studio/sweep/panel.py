"""The Sweep tab: pick any run of a sweep and replay it.

A sweep opens in the studio as one of its runs (:mod:`robotsim.studio.sweep.opener`);
this tab then lists every run of that sweep, each with its parameters, its status and
its first metric when the sweep folder holds its result, and "Replay run" opens the
chosen one (the base scenario with that run's parameters and seed, through the base
kind's own opener; press play to run it). A sweep folder (``robotsim sweep --out DIR``)
or a sweep file can also be typed in and loaded here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from robotsim.errors import InputError

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["RunChoice", "SweepPanel", "run_choices"]

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
        self.file: Path | None = None
        self.choices: dict[str, RunChoice] = {}
        self._seen: Path | None = None  # the studio's source last looked at

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

        studio.on("driver", self._follow_open)

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
        """List the runs of a sweep folder or file (the first finished one chosen)."""
        file, choices = run_choices(sweep)
        self.file = file.resolve()
        self.choices = {c.label: c for c in choices}
        labels = tuple(self.choices) or ("",)
        self.run.options = labels
        done = [c.label for c in choices if c.status == "ok"]
        self.run.value = done[0] if done else labels[0]
        folder = file.name == "sweep.yaml" and file.parent.joinpath("sweep.json").is_file()
        self.path.value = str(file.parent if folder else file)
        finished = sum(c.status != "not run" for c in choices)
        name = file.parent.name if folder else file.stem
        self.header.content = f"**{name}**: {len(choices)} runs, {finished} finished"
        choice = self.choices.get(self.run.value)
        self.detail.content = choice.detail if choice is not None else ""
        return choices

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
