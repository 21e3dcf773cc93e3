"""``robotsim sweep --cluster``: a real Dask scheduler and workers on 127.0.0.1."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import distributed  # noqa: F401  (the cluster extra; a missing install fails, not skips)
import pytest

from robotsim.cli import main
from robotsim.sweep import read_meta, read_rows, run_sweep
from tests.sweep.dask_procs import DaskProcs, free_port
from tests.sweep.tiny import write_sweep

# one test process for the module: its two cluster tests share one scheduler and workers
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("sweep-dask")]


@pytest.fixture(scope="module")
def _cluster_procs() -> Iterator[list[DaskProcs]]:
    held: list[DaskProcs] = []
    try:
        yield held
    finally:
        for procs in held:
            procs.stop()


@pytest.fixture
def cluster(_cluster_procs: list[DaskProcs]) -> DaskProcs:
    """A scheduler and two workers, started once for the module (three processes that
    import distributed and robotsim); a fresh one if a test left a worker dead (the
    killed-worker test does)."""
    if _cluster_procs and all(p.poll() is None for p in _cluster_procs[-1].workers):
        return _cluster_procs[-1]
    for procs in _cluster_procs:
        procs.stop()
    _cluster_procs.append(DaskProcs().start(2))
    return _cluster_procs[-1]


def _table(out: Path) -> list[dict[str, str]]:
    with (out / "results.csv").open() as fh:
        return list(csv.DictReader(fh))


def test_dask_gives_the_same_results_as_the_local_pool(
    cluster: DaskProcs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    params = {
        "kp": {"path": "robots.1.controller.gains.x.kp", "values": [1.0, 4.0]},
        "mu": {"path": "contact.mu", "random": {"low": 0.4, "high": 1.2, "count": 2}},
    }
    f = write_sweep(tmp_path, "same", parameters=params, set={"duration": 0.6}, seed=3)
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert main(["sweep", str(f), "--out", str(local), "--workers", "1", "--quiet"]) == 0
    assert main(["sweep", str(f), "--out", str(dask), "--cluster", cluster.address, "--json"]) == 0
    text = capsys.readouterr().out
    outcome = json.loads(text[text.index("{") :])  # after the local run's line
    assert outcome["executor"] == cluster.address and outcome["workers"] == 2
    a, b = _table(local), _table(dask)
    cols = ["run_key", "kp", "mu", "path_length", "x", "success", "status"]
    assert [[r[c] for c in cols] for r in a] == [[r[c] for c in cols] for r in b]
    assert len({r["worker"] for r in b}) == 2  # both workers ran some
    sweep_id = read_meta(dask)["id"]
    assert main(["runs", "list", "--db", str(dask), "--sweep", sweep_id, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["runs"]
    assert sorted(r["id"] for r in listed) == sorted(int(r["run_id"]) for r in b)


def test_a_worker_killed_mid_sweep_loses_and_duplicates_no_run(
    cluster: DaskProcs, tmp_path: Path
) -> None:
    from robotsim.recording import RunStore

    params = {
        "kd": {"path": "robots.1.controller.gains.x.kd", "values": [0.1 * i for i in range(6)]}
    }
    # runs long enough to be caught in progress by the 50 ms poll on a fast machine
    f = write_sweep(tmp_path, "kill", parameters=params, set={"duration": 6.0})
    out = tmp_path / "out"
    result: dict[str, object] = {}

    def sweep() -> None:
        try:
            result["outcome"] = run_sweep(f, out, cluster=cluster.address)
        except BaseException as exc:  # reported by the main thread
            result["error"] = exc

    th = threading.Thread(target=sweep)
    th.start()
    worker_pids = {p.pid for p in cluster.workers}
    killed = None
    t0 = time.monotonic()
    while killed is None and th.is_alive() and time.monotonic() - t0 < 180:
        try:  # read the store as it fills (plain sqlite3: no schema creation race)
            with sqlite3.connect(out / "runs.sqlite", timeout=5) as db:
                running = db.execute("SELECT id, pid FROM runs WHERE status = 'running'").fetchall()
        except sqlite3.OperationalError:  # not created yet
            running = []
        for rid, pid in running:
            if pid in worker_pids:  # a worker in the middle of a run
                os.kill(pid, signal.SIGKILL)
                next(p for p in cluster.workers if p.pid == pid).wait(timeout=30)  # reaped
                killed = (rid, pid)
                break
        time.sleep(0.05)
    th.join(timeout=300)
    assert "error" not in result, result.get("error")
    assert killed is not None, "no run was caught in progress"
    rows = read_rows(out)
    assert sorted(rows) == [f"p{i:05d}-r0" for i in range(6)]
    assert all(r["status"] == "ok" for r in rows.values())
    assert len((out / "runs.jsonl").read_text().splitlines()) == 6  # none twice
    assert len(_table(out)) == 6
    # the killed run was run again on the other worker
    rid, pid = killed
    with RunStore(out / "runs.sqlite") as store:
        key = store.tags(rid)["sweep_run"]
        assert store.run(rid).status.value == "interrupted"
    assert rows[key]["run_id"] != rid
    assert rows[key]["worker"].endswith(f":{next(p for p in worker_pids if p != pid)}")


def test_unreachable_cluster_and_bad_address_name_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = write_sweep(tmp_path)
    address = f"tcp://127.0.0.1:{free_port()}"
    assert main(["sweep", str(f), "--out", str(tmp_path / "o1"), "--cluster", address]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --cluster {address}: no Dask scheduler reachable")
    assert err.count("\n") == 1
    assert main(["sweep", str(f), "--out", str(tmp_path / "o2"), "--cluster", "127.0.0.1:1"]) == 2
    assert "expected tcp://HOST:PORT" in capsys.readouterr().err
    assert not (tmp_path / "o1" / "runs.jsonl").exists()


BLOCK = '''
import sys

class _NoRobotsim:
    """This worker's Python has no robotsim."""

    def find_spec(self, name, path=None, target=None):
        if name == "robotsim" or name.startswith("robotsim."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NoRobotsim())
'''


def test_workers_lacking_robotsim_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCK)
    procs = DaskProcs()
    try:
        procs.start(1, pythonpath=str(site))
        f = write_sweep(tmp_path)
        rc = main(["sweep", str(f), "--out", str(tmp_path / "out"), "--cluster", procs.address])
    finally:
        procs.stop()
    assert rc == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --cluster {procs.address}: worker tcp://127.0.0.1:")
    assert "cannot run robotsim (ModuleNotFoundError: No module named 'robotsim" in err
    assert err.count("\n") == 1
