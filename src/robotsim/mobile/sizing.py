"""Sizing a mobile run before it steps: the memory it holds and the disk it writes.

The poses of every tick are held only up to a bound (:mod:`robotsim.mobile.poselog`),
so a run's memory no longer grows with its duration, except for a formation's summary
series (2 Hz) and map snapshots (every 2 s). :func:`check_run_budget` refuses a run
whose held memory would exceed the budget (:mod:`robotsim.budget`) and a duration that
is not finite; :func:`check_run_disk` refuses a recorded run whose signals would not
fit the free space of the run store's folder (SQLite; a lower estimate).
"""

from __future__ import annotations

import math
from typing import Any

from robotsim.mobile.poselog import PoseLog
from robotsim.run_io import STORE_VALUE_BYTES, store_folder

__all__ = ["STORE_VALUE_BYTES", "check_run_budget", "check_run_disk", "held_bytes", "store_folder"]

# a formation's error-over-time rows (t, mean, max; 2 Hz) and snapshots (every 2 s)
_FORMATION_BYTES_PER_S = 2 * (3 * 8 + 8)
_SNAPSHOT_BYTES = 112 + 8


def held_bytes(duration: float, robots: int, formation: bool = False) -> float:
    """The most a run of ``duration`` s with ``robots`` robots holds of its samples
    (bytes): the bounded pose log, plus a formation's series and snapshots."""
    out = float(PoseLog.held_bytes(robots))
    if formation:
        out += PoseLog.held_bytes(robots)  # the errors' log (fewer columns: an upper bound)
        out += duration * (_FORMATION_BYTES_PER_S + (_SNAPSHOT_BYTES + 16 * robots) / 2.0)
    return out


def check_run_budget(duration: float, tick: float, robots: int, formation: bool = False) -> None:
    """Refuse a run whose held samples would not fit the memory budget
    (:mod:`robotsim.budget`), or whose duration is not finite, before stepping:
    ``duration`` and ``tick`` in s."""
    from robotsim import budget

    ticks = duration / tick
    what = (
        f"a mobile run of {duration:g} s ({ticks:.3g} control ticks of {tick:g} s, "
        f"{robots} robot{'s' if robots != 1 else ''}{', in formation' if formation else ''})"
    )
    est = held_bytes(duration, robots, formation) if math.isfinite(ticks) else math.inf
    budget.check(what, est, "give a shorter duration (duration: in the file, or --duration)")


def check_run_disk(
    duration: float,
    record_period: float,
    robots: int,
    signals: int,
    recorder: Any,
    sensor_bytes_per_s: float = 0.0,
) -> None:
    """Refuse a recorded run whose signals (``signals`` per robot every
    ``record_period`` s) and sensor readings (``sensor_bytes_per_s`` of simulated time,
    uncompressed: an upper bound) would not fit the free space of its SQLite run store's
    folder, naming the bytes needed and free; nothing to check without one."""
    from robotsim.budget import check_free_space, format_bytes

    folder = store_folder(recorder)
    if folder is None:
        return
    records = math.floor(duration / record_period) + 1
    need = float(records) * robots * signals * STORE_VALUE_BYTES
    sensed = float(duration) * sensor_bytes_per_s
    what = f" and {format_bytes(sensed)} of sensor readings" if sensed else ""
    check_free_space(
        folder,
        need + sensed,
        f"a mobile run of {duration:g} s records {records:.3g} samples of {signals} "
        f"signals per robot ({robots}){what} into {{folder}}: about {{need}}, more than "
        "the {free} free there; give a shorter duration (--duration), a lower "
        "record_rate or lower sensor rates",
    )
