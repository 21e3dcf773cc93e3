"""``robotsim bench io``: run store write speed and UDP remote-control throughput/latency.

- ``store_sqlite_rows_per_s``: signal rows (one value of one signal at one time) per
  second through :class:`~robotsim.recording.Recorder` into a SQLite file, from the
  first ``signal()`` call until ``finish()`` has committed everything (20 signals per
  call, the shape of a robot's state); ``..._per_cpu_s`` divides by this process's CPU
  time instead (what the code costs when the machine is shared: see ``load_average_1min``).
- ``store_postgres_rows_per_s``: the same into a throwaway local PostgreSQL server
  (started for the bench; needs the Debian ``postgresql`` package), or the server at
  ``$ROBOTSIM_BENCH_PG_URL``.
- ``udp_requests_per_s``, ``udp_p99_ms``: a client in this process sends ``state``
  requests one after the other (each waits for its reply) to ``robotsim serve`` running
  in another process with a physics world in real time (the shipped
  ``soccer_obstacles`` scenario); ``udp_sim_rtf`` is simulated
  time / wall time over the same window (1.0 = the world kept real time) and
  ``udp_overruns`` counts the times the server fell more than 0.25 s behind.
  ``udp_pipelined_requests_per_s``: the same with 8 requests in flight (an asynchronous
  client); the headline ``udp_requests_per_s`` is the one-at-a-time figure.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["run"]

NAMES = tuple(f"s{i}" for i in range(20))


def _store_rate(db: str, calls: int, repeats: int) -> tuple[float, float]:
    """Rows per wall second and per CPU second of this process (medians of repeats)."""
    from robotsim.recording import Recorder

    values = np.linspace(0.0, 1.0, len(NAMES))
    walls, cpus = [], []
    for _ in range(repeats):
        rec = Recorder(db)
        rec.start_run("bench-io")
        w0, c0 = time.perf_counter(), time.process_time()
        for k in range(calls):
            rec.signal("bot", k * 0.001, NAMES, values)
        rec.finish()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
        rec.close()
    rows = calls * len(NAMES)
    return rows / statistics.median(walls), rows / statistics.median(cpus)


def _postgres(calls: int, repeats: int) -> tuple[tuple[float, float] | None, str]:
    import importlib.util

    if importlib.util.find_spec("psycopg") is None:
        return None, "no PostgreSQL driver: pip install 'robotsim[io]'"
    url = os.environ.get("ROBOTSIM_BENCH_PG_URL")
    if url:
        return _store_rate(url, calls, repeats), "server from $ROBOTSIM_BENCH_PG_URL"
    from robotsim.recording import RecordingError
    from robotsim.recording.pgserver import TempPostgres

    try:
        with TempPostgres() as pg:
            return _store_rate(pg.url, calls, repeats), "throwaway local server (fsync off)"
    except RecordingError as exc:
        return None, f"no PostgreSQL: {exc}"


def _served_world() -> tuple[str, str]:
    """The shipped soccer scenario in MuJoCo."""
    return "soccer_obstacles", "soccer_obstacles scenario in MuJoCo, real time"


def _udp(requests: int) -> dict[str, Any]:
    from robotsim.remote import Client

    target, world = _served_world()
    cmd = [sys.executable, "-m", "robotsim", "serve", target, "--udp", "127.0.0.1:0",
           "--json", "--sender-rate", "1000000", "--global-rate", "1000000"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        hello = json.loads(proc.stdout.readline())
        with Client((hello["host"], hello["port"]), timeout=2.0) as c:
            for _ in range(200):  # warm up both sides
                c.state()
            before = c.stats()
            lat = np.empty(requests)
            t0 = time.perf_counter()
            for i in range(requests):
                a = time.perf_counter()
                c.state()
                lat[i] = time.perf_counter() - a
            wall = time.perf_counter() - t0
            after = c.stats()
        pipelined = _pipelined(hello["host"], hello["port"], requests, window=8)
        dt = float(hello["dt"])
        sim = (after["stats"]["steps"] - before["stats"]["steps"]) * dt
        sim_wall = after["wall_s"] - before["wall_s"]
        return {
            "udp_requests_per_s": requests / wall,
            "udp_p50_ms": float(np.percentile(lat, 50) * 1e3),
            "udp_p99_ms": float(np.percentile(lat, 99) * 1e3),
            "udp_sim_rtf": sim / sim_wall if sim_wall > 0 else None,
            "udp_overruns": after["stats"]["overruns"] - before["stats"]["overruns"],
            "udp_pipelined_requests_per_s": pipelined,
            "udp_world": world,
            "udp_op": "state (all robots), one request in flight",
        }
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _pipelined(host: str, port: int, requests: int, window: int) -> float:
    """Requests/s with ``window`` ``state`` requests in flight (an asynchronous client)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect((host, port))
        s.settimeout(2.0)
        # large replies go only to an address that proved it receives: echo the cookie
        s.send(b'{"id": -1, "op": "cookie"}')
        cookie = json.loads(s.recv(65536))["cookie"]
        sent = done = 0
        t0 = time.perf_counter()
        while done < requests:
            while sent < requests and sent - done < window:
                s.send(
                    json.dumps(
                        {"id": sent, "op": "state", "cookie": cookie}, allow_nan=False
                    ).encode()
                )
                sent += 1
            s.recv(65536)
            done += 1
        return requests / (time.perf_counter() - t0)


def run(quick: bool = False) -> dict[str, Any]:
    calls = 20_000 if quick else 50_000
    repeats = 3 if quick else 5
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="robotsim-bench-io-") as tmp:
        sqlite = _store_rate(str(Path(tmp) / "runs.sqlite"), calls, repeats)
    pg, pg_note = _postgres(calls, repeats)
    udp_runs = [_udp(2_000 if quick else 10_000) for _ in range(1 if quick else 3)]
    udp = dict(udp_runs[0])
    keys = (
        "udp_requests_per_s",
        "udp_p50_ms",
        "udp_p99_ms",
        "udp_sim_rtf",
        "udp_pipelined_requests_per_s",
    )
    for key in keys:
        vals = [r[key] for r in udp_runs if r[key] is not None]
        udp[key] = statistics.median(vals) if vals else None
    udp["udp_overruns"] = max(r["udp_overruns"] for r in udp_runs)
    return {
        "store_sqlite_rows_per_s": sqlite[0],
        "store_sqlite_rows_per_cpu_s": sqlite[1],
        "store_postgres_rows_per_s": None if pg is None else pg[0],
        "store_postgres_rows_per_cpu_s": None if pg is None else pg[1],
        "store_postgres_note": pg_note,
        "store_signals_per_call": len(NAMES),
        **udp,
        "load_average_1min": load,
        "cpus": os.cpu_count(),
    }
