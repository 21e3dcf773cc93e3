"""``robotsim bench commands``: how fast a running simulation takes a command from its
run store (docs/commands.md).

A mobile run (one omni robot on an empty field, 50 Hz control, paced to real time) is
started with ``robotsim run ... --commands`` in another process; this process inserts
``goal`` commands one after the other (each after the previous one was handled, 50 ms
apart) and reads back when the run handled each.

- ``commands_sqlite_pickup_ms_p50`` / ``_p95``: wall time from the insert (``created_at``)
  to the run's mark (``picked_at``) with a SQLite store (the run polls every tick);
- ``commands_postgres_pickup_ms_p50`` / ``_p95``: the same with a throwaway local
  PostgreSQL server (LISTEN/NOTIFY), or the server at ``$ROBOTSIM_BENCH_PG_URL``;
- ``commands_tick_ms``: the run's control period: a command waits at most this long
  for the next tick, plus the database's round trips.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["run"]

_SCENARIO = """\
kind: mobile
name: bench_commands
duration: 600
timestep: 0.002
control_rate: 50
record_rate: 10
field: {size: [10, 8], markings: none}
robots:
  - {name: omni, model: omni3, start: [0, 0, 0], goal: [0, 0, 0]}
"""


def _pickup(db: str, folder: Path, n: int) -> np.ndarray:
    """Pick-up times (s) of ``n`` goal commands sent to a ``--commands`` run on ``db``."""
    from robotsim.recording import RunStore
    from robotsim.recording.commands import read_status, send_command, wait_command

    scenario = folder / "bench_commands.yaml"
    scenario.write_text(_SCENARIO)
    cmd = [sys.executable, "-m", "robotsim", "run", str(scenario), "--db", db, "--commands"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        store = RunStore(db)
        end = time.monotonic() + 120
        while True:
            runs = store.runs()
            if runs and read_status(store.engine, runs[0].id):
                break
            if time.monotonic() > end or proc.poll() is not None:
                raise RuntimeError("the --commands run did not start")
            time.sleep(0.1)
        run_id = runs[0].id
        out = np.empty(n)
        for k in range(n):
            cid = send_command(store.engine, run_id, "goal", {"x": 0.1 * (k % 2), "y": 0.0})
            row = wait_command(store.engine, cid, 10.0)
            if row["status"] != "done":
                raise RuntimeError(f"command {cid}: {row['status']} {row['reason']}")
            out[k] = row["picked_at"] - row["created_at"]
            time.sleep(0.05)
        send_command(store.engine, run_id, "stop")
        proc.wait(timeout=60)
        return out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _figures(prefix: str, t: np.ndarray) -> dict[str, float]:
    return {
        f"{prefix}_p50": float(np.percentile(t, 50) * 1e3),
        f"{prefix}_p95": float(np.percentile(t, 95) * 1e3),
    }


def run(quick: bool = False) -> dict[str, Any]:
    n = 10 if quick else 40
    res: dict[str, Any] = {"commands_tick_ms": 20.0, "commands_sent": n}
    with tempfile.TemporaryDirectory(prefix="robotsim-bench-cmd-") as tmp:
        folder = Path(tmp)
        res.update(_figures("commands_sqlite_pickup_ms", _pickup(str(folder / "r.sqlite"),
                                                                 folder, n)))  # fmt: skip
        url = os.environ.get("ROBOTSIM_BENCH_PG_URL")
        if url:
            res.update(_figures("commands_postgres_pickup_ms", _pickup(url, folder, n)))
            res["commands_postgres"] = "server from $ROBOTSIM_BENCH_PG_URL"
        else:
            from robotsim.recording import RecordingError
            from robotsim.recording.pgserver import TempPostgres

            try:
                with TempPostgres() as pg:
                    res.update(_figures("commands_postgres_pickup_ms", _pickup(pg.url, folder, n)))
                res["commands_postgres"] = "throwaway local server"
            except RecordingError as exc:
                res["commands_postgres"] = f"no PostgreSQL: {exc}"
    res["load_average_1min"] = os.getloadavg()[0]
    return res
