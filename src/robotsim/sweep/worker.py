"""What runs on a worker: one base scenario with one run's overrides -> one result row.

:func:`run_one` never raises for a failing run (a bad parameter value, diverged
physics): the row says ``status: failed`` with the error's first line, and the sweep goes
on. It is a plain module-level function of picklable arguments, so the local process pool
and Dask workers call the very same code.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from robotsim.sweep.design import RunTask

__all__ = ["SweepJob", "lookup", "prepare", "run_one"]

_MISSING = object()


@dataclass(frozen=True)
class SweepJob:
    """What every run of one sweep shares (sent with each task; small)."""

    sweep_id: str
    base_data: dict[str, Any]
    base_source: str
    metrics: dict[str, str]
    success: str | None = None
    mode: str | None = None
    db: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # RunOptions.extra of every run


def lookup(summary: Any, path: str) -> Any:
    """``"robots.PD.time_to_goal"`` -> the value in the summary (``_MISSING`` if absent);
    list items by index (``pairs.A-B.collision_intervals.0``)."""
    node = summary
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif (
            isinstance(node, list)
            and part.lstrip("-").isdigit()
            and -len(node) <= int(part) < len(node)
        ):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def _keys_at(summary: Any, path: str) -> str:
    node = summary
    parts = path.split(".")
    for part in parts[:-1]:
        nxt = lookup(node, part)
        if nxt is _MISSING:
            break
        node = nxt
    return ", ".join(map(str, node)) if isinstance(node, dict) else type(node).__name__


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


@lru_cache(maxsize=4)
def _store(db: str) -> Any:
    from robotsim.recording import RunStore

    return RunStore(db)


def _run_id(db: str | None, sweep_id: str, key: str) -> int | None:
    if db is None:
        return None
    try:
        runs = _store(db).runs(limit=1, tags={"sweep": sweep_id, "sweep_run": key})
    except Exception:  # the store is the runner's business; the row still counts
        return None
    return runs[0].id if runs else None


def prepare() -> str:
    """Import what :func:`run_one` needs, once per worker process (a Dask cluster calls
    it when the sweep joins, so the first task pays nothing extra); returns the robotsim
    version."""
    from importlib.metadata import version

    import robotsim.recording
    import robotsim.scenario.kinds
    import robotsim.scenario_yaml
    import robotsim.sweep.targets  # noqa: F401
    from robotsim.scenario.receipt import source_digest

    source_digest()  # computed once per process, for every run's receipt

    try:
        return version("robotsim")
    except Exception:  # a source tree that is not installed
        return "unknown"


def run_one(job: SweepJob, task: RunTask) -> dict[str, Any]:
    """Run ``task``; returns the result row (parameters, metrics, status, error, run id,
    wall time, worker) plus the run's whole ``summary`` (``None`` when it failed)."""
    from robotsim.scenario.kinds import RunOptions
    from robotsim.scenario.runner import run_receipted
    from robotsim.scenario_yaml import apply_overrides
    from robotsim.sweep.targets import run_base

    t0 = time.perf_counter()
    row: dict[str, Any] = {
        "run_key": task.key,
        "point": task.point,
        "repeat": task.repeat,
        **task.params,
    }
    summary = None
    error = None
    metrics: dict[str, Any] = {m: None for m in job.metrics}
    try:
        data = apply_overrides(job.base_data, list(task.overrides), job.base_source)
        opts = RunOptions(
            seed=task.seed,
            mode=job.mode,
            db=job.db,
            extra={"tags": {"sweep": job.sweep_id, "sweep_run": task.key}, **job.extra},
        )
        summary = run_receipted(run_base, data, job.base_source, opts, keep_open=True)
        for name, path in job.metrics.items():
            value = lookup(summary, path)
            if value is _MISSING:
                raise KeyError(
                    f"metrics.{name}: no {path!r} in the run's summary "
                    f"(keys there: {_keys_at(summary, path)})"
                )
            metrics[name] = value
    except Exception as exc:  # one failing run must not stop the sweep
        error = _one_line(exc) if not isinstance(exc, KeyError) else str(exc.args[0])
    success = None
    if job.success is not None and error is None:
        value = lookup(summary, job.success)
        success = bool(value) if value is not _MISSING else None
    row.update(metrics)
    if job.success is not None:
        row["success"] = success
    row.update(
        status="failed" if error else "ok",
        error=error,
        run_id=_run_id(job.db, job.sweep_id, task.key),
        wall_time_s=time.perf_counter() - t0,
        worker=f"{socket.gethostname()}:{os.getpid()}",
        summary=summary if error is None else None,
    )
    return row
