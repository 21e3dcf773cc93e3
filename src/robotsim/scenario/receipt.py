"""A run's receipt: everything needed to re-run it and check the result.

Wrap a scenario runner's call in :class:`Receipting`; afterwards :meth:`Receipting.write`
stores, with every run the runner recorded (:func:`robotsim.recording.receipts.capturing_runs`),
a receipt document:

- ``kind``, ``source`` (the scenario file as given) and ``source_path`` (resolved, from
  which its relative files are found), ``scenario`` (the mapping after ``--set``
  overrides: what runs) and ``scenario_digest`` (SHA-256 of it as canonical JSON);
- ``options``: ``seed``, ``mode``, ``duration``;
- ``files``: SHA-256 of every file the run read (robot files, meshes, profiles, motion
  programs: what :mod:`robotsim.file_scope` saw); ``models``: SHA-256 of each compiled
  physics model (MuJoCo's binary form, before the run);
- ``versions`` (robotsim, Python, MuJoCo, NumPy; ``robotsim_source``: a digest of
  robotsim's own source files) and ``platform`` (system, machine, processor);
- ``checkpoint_interval_s`` and the checkpoints themselves (:mod:`robotsim.physics.checkpoint`:
  the physics state every N simulated seconds and at the end);
- ``status`` (``ok``/``failed``), ``error`` and the run's ``summary``;
- for a run a command made without a scenario file (``robotsim walk``, ...):
  ``command`` (its name and arguments, :mod:`robotsim.scenario.commands`), ``kind``
  ``command NAME`` and an empty ``scenario``.

:mod:`robotsim.scenario.verify` re-runs a receipt and compares.
"""

from __future__ import annotations

import hashlib
import os
import platform
import stat
import time
from contextlib import ExitStack
from functools import lru_cache
from pathlib import Path
from types import TracebackType
from typing import Any

from robotsim.jsonable import dumps as json_dumps
from robotsim.run_io import RunOptions

__all__ = ["RECEIPT_FORMAT", "VOLATILE_KEYS", "Receipting", "canonical_digest", "file_digest"]

RECEIPT_FORMAT = "robotsim-receipt/1"
#: Summary keys that differ between two runs of the same physics (wall-clock time, where
#: the files went, which store row): left out when summaries are compared.
VOLATILE_KEYS = frozenset(
    {"wall_time_s", "real_time_factor", "rtf", "cpu_rtf", "wall_seconds", "elapsed_s",
     "outputs", "file", "run_id"}
)  # fmt: skip


def canonical_digest(doc: Any) -> str:
    """SHA-256 of a JSON value written canonically (sorted keys, no spaces)."""

    text = json_dumps(doc, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@lru_cache(maxsize=256)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_digest(path: str | Path) -> str | None:
    """SHA-256 of a file (cached per path, modification time and size); ``None`` when
    it cannot be read or is not a regular file (a FIFO or a device would block or never
    end: a command refuses them, and its failure's receipt must not wait on them)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        return _file_digest(str(path), st.st_mtime_ns, st.st_size)
    except OSError:
        return None


@lru_cache(maxsize=1)
def source_digest() -> str:
    """A digest of robotsim's own ``.py`` files (names and contents): two installs that
    say the same version but differ in code differ here."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(str(p.relative_to(root)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


@lru_cache(maxsize=1)
def _versions() -> tuple[tuple[str, str], ...]:
    from robotsim.recording.recorder import default_versions

    return tuple({**default_versions(), "robotsim_source": source_digest()}.items())


def versions() -> dict[str, str]:
    """The software that ran: robotsim (version and source digest), Python, MuJoCo,
    NumPy (looked up once per process)."""
    return dict(_versions())


@lru_cache(maxsize=1)
def _platform() -> tuple[tuple[str, str], ...]:
    return tuple(
        {
            "system": platform.system(),
            "release": platform.release(),
            "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(),
            "python_build": " ".join(platform.python_build()),
        }.items()
    )


def platform_info() -> dict[str, str]:
    """The machine: system, release, machine, processor, Python build (once per
    process: ``platform.processor()`` may start a program)."""
    return dict(_platform())


def _resolved(source: str) -> str:
    p = Path(source)
    if p.is_file():
        return str(p.resolve())
    from robotsim.shipped import find_shipped

    found = find_shipped(source, "scenario")
    return str(found) if found is not None else source


class Receipting:
    """Collect a run's receipt while its runner runs (module doc)::

    rc = Receipting(data, source, options)
    with rc:
        summary = runner(data, source, options)
    rc.write(summary)
    """

    def __init__(
        self,
        data: dict[str, Any],
        source: str,
        options: RunOptions,
        interval: float | None = None,
        keep_models: bool = False,
        command: dict[str, Any] | None = None,
    ) -> None:
        from robotsim.physics.checkpoint import DEFAULT_INTERVAL

        self.data = data
        self.source = str(source)
        self.options = options
        self.interval = float(interval if interval is not None else DEFAULT_INTERVAL)
        self.keep_models = keep_models  # the worlds' models kept (a re-run compares)
        self.command = command  # {name, args}: a command's run (scenario.commands)
        self.status = "ok"
        self.error: str | None = None
        self.files: dict[str, str | None] = {}
        self.models: list[str] = []
        self.model_objects: list[Any] = []
        self.checkpoints: list[Any] = []
        self.runs: list[tuple[str, int]] = []
        self.cost_s = 0.0  # wall time the receipt took: collecting, digesting, writing
        self._stack: ExitStack | None = None

    def __enter__(self) -> Receipting:
        from robotsim.file_scope import tracking_reads
        from robotsim.physics.checkpoint import checkpointing
        from robotsim.recording.receipts import capturing_runs

        t0 = time.perf_counter()
        stack = ExitStack()
        self._reads = stack.enter_context(tracking_reads())
        self.runs = stack.enter_context(capturing_runs())
        self._log = stack.enter_context(checkpointing(self.interval, self.keep_models))
        self._stack = stack
        self.cost_s += time.perf_counter() - t0
        return self

    def __exit__(
        self,
        et: type[BaseException] | None,
        ev: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._stack is not None
        t0 = time.perf_counter()
        self._stack.close()  # the checkpoint log takes each world's final state
        self.checkpoints = list(self._log.checkpoints)
        self.models = list(self._log.models)
        self.model_objects = list(self._log.model_objects)
        reads = set(self._reads)
        src = Path(_resolved(self.source))
        if src.is_file():  # the scenario file itself (read before the block)
            reads.add(src)
        self.files = {str(p): file_digest(p) for p in sorted(reads)}
        self.cost_s += time.perf_counter() - t0 + self._log.cost_s
        if ev is not None:
            self.status = "failed"
            text = str(ev).strip().splitlines()
            self.error = f"{type(ev).__name__}: {text[0] if text else ''}".rstrip(": ")

    def document(self, summary: dict[str, Any] | None) -> dict[str, Any]:
        """The receipt document (strict JSON once written)."""
        from robotsim.scenario.kinds import kind_of

        if self.command is not None:
            kind = f"command {self.command['name']}"
        else:
            try:
                kind = kind_of(self.data, self.source).name
            except Exception:  # a bad file: the receipt of its failure still says so
                kind = str(self.data.get("kind"))
        o = self.options
        extra = {} if self.command is None else {"command": self.command}
        return {
            "format": RECEIPT_FORMAT,
            "kind": kind,
            "source": self.source,
            "source_path": _resolved(self.source),
            "scenario": self.data,
            "scenario_digest": canonical_digest(self.data),
            "options": {"seed": o.seed, "mode": o.mode, "duration": o.duration},
            "files": self.files,
            "models": self.models,
            "versions": versions(),
            "platform": platform_info(),
            "checkpoint_interval_s": self.interval,
            "checkpoints": len(self.checkpoints),
            "status": self.status,
            "error": self.error,
            "summary": summary,
            **extra,
        }

    def write(self, summary: dict[str, Any] | None, keep_open: bool = False) -> list[int]:
        """Store the receipt with every run recorded inside the block; returns their
        ids (none when the run recorded nothing). ``keep_open``: leave the store's
        connection open for the next run's receipt (a sweep worker); else it is closed
        (on SQLite that checkpoints the write-ahead log: the command's folder is left
        with the database file alone)."""
        if not self.runs:
            return []
        from robotsim.recording.receipts import write_receipt

        t0 = time.perf_counter()
        doc = self.document(summary)
        for url, run_id in self.runs:
            write_receipt(url, run_id, doc, self.checkpoints, keep_open=keep_open)
        self.cost_s += time.perf_counter() - t0
        return [rid for _, rid in self.runs]
