"""What every scenario runner receives and where it writes: :class:`RunOptions` (what
``robotsim run`` passes) and a small recorder interface. It sits below the capabilities
so that a capability's runner needs nothing from :mod:`robotsim.scenario`.

The runner only calls the methods of :class:`RunRecorder` (the same calls as
:class:`robotsim.recording.Recorder`, the run store), so any object with them can be
passed in. :class:`CsvRecorder` is the file-based default: ``recording.csv`` (one row per
robot and sample: ``robot, t, <signal names...>``) and ``events.csv`` (``t, type, robot,
data``), written as the run goes (flushed every ``flush_interval`` seconds of wall time,
or every ``max_rows`` rows, whichever comes first: a fast headless loop holds at most
``max_rows`` rows in memory).
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError
from robotsim.jsonable import dumps as json_dumps

#: Bytes a recorded signal value takes in an SQLite run store, at least (a 30 s run of
#: one robot with 10 signals at 50 Hz measured 39 B per value).
STORE_VALUE_BYTES = 32

__all__ = [
    "STORE_VALUE_BYTES",
    "CsvRecorder",
    "NullRecorder",
    "RunOptions",
    "RunRecorder",
    "open_recorder",
    "opened_recorder",
    "recorded_run",
    "store_folder",
]


@dataclass(frozen=True)
class RunOptions:
    """What ``robotsim run`` passes to every runner. ``mode`` (kinematic/physics) and
    ``db`` are for kinds and recorders that support them; others ignore them."""

    out_dir: Path | None = None
    duration: float | None = None
    seed: int | None = None
    mode: str | None = None
    db: str | None = None
    progress: Callable[[int, int], None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class RunRecorder(Protocol):
    def start_run(
        self, scenario: str, parameters: Mapping[str, Any] | None = None, seed: int | None = None
    ) -> Any: ...

    def signal(self, robot: str, t: float, names: Sequence[str], values: ArrayLike) -> None: ...

    def event(
        self, t: float, type: str, robot: str | None = None, data: Mapping[str, Any] | None = None
    ) -> None: ...

    def finish(self, status: Any = "completed", message: str | None = None) -> None: ...


class NullRecorder:
    """Records nothing (benchmarks of the bare loop)."""

    def start_run(
        self, scenario: str, parameters: Mapping[str, Any] | None = None, seed: int | None = None
    ) -> None:
        return None

    def signal(self, robot: str, t: float, names: Sequence[str], values: ArrayLike) -> None:
        return None

    def event(
        self, t: float, type: str, robot: str | None = None, data: Mapping[str, Any] | None = None
    ) -> None:
        return None

    def finish(self, status: Any = "completed", message: str | None = None) -> None:
        return None


class CsvRecorder:
    """CSV files in ``out_dir`` (see the module docstring)."""

    def __init__(
        self, out_dir: str | Path, flush_interval: float = 0.5, max_rows: int = 4096
    ) -> None:
        self.out_dir = Path(out_dir)
        self.flush_interval = flush_interval
        self.max_rows = max(1, int(max_rows))
        self.signals_path = self.out_dir / "recording.csv"
        self.events_path = self.out_dir / "events.csv"
        self._names: tuple[str, ...] | None = None
        self._rows: list[list[Any]] = []
        self._last_flush = time.monotonic()
        self.status: str | None = None
        self.rows_written = 0

    def start_run(
        self, scenario: str, parameters: Mapping[str, Any] | None = None, seed: int | None = None
    ) -> None:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._sig_file = self.signals_path.open("w", newline="", encoding="utf-8")
        self._sig = csv.writer(self._sig_file)
        self._ev_file = self.events_path.open("w", newline="", encoding="utf-8")
        self._ev = csv.writer(self._ev_file)
        self._ev.writerow(["t", "type", "robot", "data"])
        meta = {"scenario": scenario, "seed": seed, "parameters": dict(parameters or {})}
        (self.out_dir / "run.json").write_text(json_dumps(meta, indent=2, default=str))
        self.status = "running"

    def signal(self, robot: str, t: float, names: Sequence[str], values: ArrayLike) -> None:
        names = tuple(names)
        if self._names is None:
            self._names = names
            self._sig.writerow(["robot", "t", *names])
        elif names != self._names:
            raise InputError(
                f"CsvRecorder: robot {robot!r} records {names}, but the file's "
                f"columns are {self._names}"
            )
        vals = np.asarray(values, dtype=np.float64).reshape(-1)
        self._rows.append([robot, f"{t:.6f}", *(f"{v:.9g}" for v in vals)])
        if (
            len(self._rows) >= self.max_rows
            or time.monotonic() - self._last_flush > self.flush_interval
        ):
            self._flush()

    def event(
        self, t: float, type: str, robot: str | None = None, data: Mapping[str, Any] | None = None
    ) -> None:
        self._ev.writerow([f"{t:.6f}", type, robot or "", json_dumps(dict(data or {}))])

    def _flush(self) -> None:
        self._sig.writerows(self._rows)
        self.rows_written += len(self._rows)
        self._rows.clear()
        self._sig_file.flush()
        self._ev_file.flush()
        self._last_flush = time.monotonic()

    def finish(self, status: Any = "completed", message: str | None = None) -> None:
        if self.status != "running":
            return
        self._flush()
        self._sig_file.close()
        self._ev_file.close()
        self.status = str(getattr(status, "value", status))


def open_recorder(options: RunOptions) -> RunRecorder:
    """The run store: ``--db`` if given, else ``runs.sqlite`` in the output folder
    (``robotsim export RUN --format csv`` gives CSV); nothing without an output folder.
    Close it with ``close()`` when it has one. ``options.extra["tags"]`` labels the
    run (a sweep's id and run key: ``runs list --sweep ID``)."""
    if options.db or options.out_dir is not None:
        from robotsim.recording import Recorder
        from robotsim.recording.engine import DEFAULT_DB_NAME

        # the output folder is a folder even when its name has a dot (runs/v1.0)
        db = options.db or Path(options.out_dir) / DEFAULT_DB_NAME  # type: ignore[arg-type]
        return Recorder(db, tags=options.extra.get("tags"))
    return NullRecorder()


@contextmanager
def opened_recorder(options: RunOptions) -> Iterator[RunRecorder]:
    """:func:`open_recorder`, closed on leaving the block (when it has ``close()``)."""
    recorder = open_recorder(options)
    try:
        yield recorder
    finally:
        close = getattr(recorder, "close", None)
        if close is not None:
            close()


@contextmanager
def recorded_run(options: RunOptions, name: str, meta: Mapping[str, Any]) -> Iterator[RunRecorder]:
    """One recorded run: the recorder of ``options`` with run ``name`` started; on leaving
    the block the run finishes ``completed`` (or ``failed`` when the block raised) and
    the recorder closes."""
    with opened_recorder(options) as recorder:
        recorder.start_run(name, dict(meta))
        status = "failed"
        try:
            yield recorder
            status = "completed"
        finally:
            recorder.finish(status)


def store_folder(recorder: Any) -> Path | None:
    """The folder of the recorder's SQLite run store, or None (no store, or a server)."""
    engine = getattr(recorder, "engine", None)
    url = getattr(engine, "url", None)
    if url is None or url.get_backend_name() != "sqlite" or not url.database:
        return None
    if url.database == ":memory:":
        return None
    return Path(url.database).resolve().parent
