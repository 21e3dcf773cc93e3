"""The optimiser's loop (``design: optimize``): asynchronous ask/tell over an executor.

Up to ``workers + 1`` runs are kept submitted (one queued behind the running ones, so a
worker that finishes starts its next run while the driver tells the finished trial and
asks for another). A trial (``repeats`` runs of one point) is told when its last run
comes back; the next trial is asked at once. New trials stop when the budget's
``runs`` are all submitted or its ``time`` has passed (runs under way then are
finished and told). A run that fails is a row with ``status: failed``, and its trial is
infeasible (:mod:`robotsim.sweep.goals`), never a crash of the sweep.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from robotsim.sweep.design import RunTask, overrides_for
from robotsim.sweep.schema import SweepSpec
from robotsim.sweep.study import Optimizer
from robotsim.sweep.worker import SweepJob, run_one

__all__ = ["Spent", "drive", "trial_task"]


def trial_task(spec: SweepSpec, number: int, repeat: int, params: dict[str, Any]) -> RunTask:
    """Run ``repeat`` of trial ``number`` (key ``t00012-r0``; seed ``repeat`` when the
    file asks for repeats)."""
    seed = repeat if spec.repeats > 1 else None
    return RunTask(
        f"t{number:05d}-r{repeat}",
        number,
        repeat,
        dict(params),
        overrides_for(spec, params),
        seed,
    )


@dataclass
class Spent:
    """What a session of the loop ran: ``ok``/``failed`` runs, ``runs_time_s`` (the
    runs' own wall time), ``driver_s`` (the optimiser's ask/tell and the row log),
    ``trials`` told."""

    ok: int = 0
    failed: int = 0
    runs_time_s: float = 0.0
    driver_s: float = 0.0
    trials: int = 0


def drive(
    optimizer: Optimizer,
    executor: Any,
    job: SweepJob,
    spec: SweepSpec,
    *,
    runs_left: int | None,
    deadline: float | None,
    on_row: Callable[[dict[str, Any]], None],
    spent: Spent,
) -> Spent:
    """Run trials until the budget is spent or the optimiser has nothing more to ask.
    ``runs_left``: runs that may still be started (``None``: no run budget);
    ``deadline``: ``time.monotonic()`` after which no trial starts; ``on_row`` gets each
    finished row (logged by the caller). ``spent`` is updated as runs finish (so a
    Ctrl-C leaves it right)."""
    repeats = spec.repeats
    capacity = max(getattr(executor, "workers", 1), 1) + 1
    open_trials: dict[int, list[dict[str, Any]]] = {}
    started = 0
    exhausted = False

    def may_start() -> bool:
        if runs_left is not None and started + repeats > runs_left:
            return False
        return deadline is None or time.monotonic() < deadline

    while True:
        t0 = time.perf_counter()
        while (
            not exhausted
            and may_start()
            and (executor.in_flight == 0 or executor.in_flight + repeats <= capacity)
        ):
            got = optimizer.ask(running=len(open_trials))
            if got is None:
                exhausted = not open_trials  # grid refinement: converged, or waiting
                break
            number, params = got
            open_trials[number] = []
            for r in range(repeats):
                executor.submit(run_one, job, trial_task(spec, number, r, params))
                started += 1
        spent.driver_s += time.perf_counter() - t0
        if executor.in_flight == 0:
            break
        row = executor.next_done()
        t1 = time.perf_counter()
        number = int(row["point"])
        row["trial"] = number
        on_row(row)
        spent.runs_time_s += float(row["wall_time_s"])
        if row["status"] == "ok":
            spent.ok += 1
        else:
            spent.failed += 1
        rows = open_trials.setdefault(number, [])
        rows.append(row)
        if len(rows) >= repeats:
            optimizer.tell(number, rows)
            del open_trials[number]
            spent.trials += 1
        spent.driver_s += time.perf_counter() - t1
    return spent
