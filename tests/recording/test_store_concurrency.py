"""Many processes creating and writing one new run store at the same moment.

Real processes, a real SQLite file and a real PostgreSQL server: schema creation is
atomic and idempotent (no ``table runs already exists``), and no writer loses a run
or a row.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy

from robotsim.recording import RunStatus, RunStore
from robotsim.shipped import shipped_dir

REPO = Path(__file__).resolve().parents[2]

WRITER = """
import sys, time
from robotsim.recording import Recorder
from robotsim.shipped import shipped_dir

db, start_at, n, k = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
while time.time() < start_at:  # every writer opens the new store at the same moment
    time.sleep(0.0005)
with Recorder(db, flush_interval=0.05) as rec:
    rid = rec.start_run("concurrent", {"writer": k})
    for i in range(n):
        rec.signal("bot", i * 0.01, ("i", "k"), [i, k])
print(rid, flush=True)
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _writers(db: str, tmp_path: Path, count: int, rows: int) -> list[int]:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    start_at = time.time() + 4.0  # after every interpreter has imported robotsim
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), db, str(start_at), str(rows), str(k)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for k in range(count)
    ]
    ids = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, f"writer failed: {err.strip().splitlines()[-1:]}"
        ids.append(int(out.split()[0]))
    return ids


def _check(db: str, ids: list[int], rows: int) -> None:
    assert len(set(ids)) == len(ids), f"two writers got the same run id: {ids}"
    with RunStore(db) as store:
        for rid in ids:
            info = store.run(rid)
            assert info.status is RunStatus.COMPLETED
            tab = store.signals(rid, "bot")
            k = int(info.parameters["writer"])
            assert tab.t.size == rows
            assert (tab.column("k") == k).all()
            np.testing.assert_array_equal(tab.column("i"), np.arange(rows))


@pytest.mark.slow
def test_sqlite_new_store_many_writers_at_once(tmp_path: Path) -> None:
    for round_ in range(2):
        db = str(tmp_path / f"new{round_}" / "runs.sqlite")
        ids = _writers(db, tmp_path, count=6, rows=300)
        _check(db, ids, 300)


@pytest.mark.slow
def test_postgres_new_store_many_writers_at_once(tmp_path: Path, pg_url: str) -> None:
    # a fresh database per round, so the schema really is created concurrently
    name = "conc_" + uuid.uuid4().hex[:8]
    admin = sqlalchemy.create_engine(pg_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    admin.dispose()
    db = pg_url.rsplit("/", 1)[0] + "/" + name
    ids = _writers(db, tmp_path, count=6, rows=300)
    _check(db, ids, 300)


@pytest.mark.slow
def test_two_cli_runs_on_a_new_store_both_recorded(tmp_path: Path) -> None:
    """The reported case: two ``robotsim run --db NEWFILE`` started together."""
    db = tmp_path / "fresh" / "runs.sqlite"
    scenario = shipped_dir("scenario") / "pid_p_vs_pd.yaml"
    cmd = [sys.executable, "-m", "robotsim", "run", str(scenario), "--duration", "0.2"]
    procs = [
        subprocess.Popen(
            [*cmd, "--db", str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for _ in range(3)
    ]
    for p in procs:
        _, err = p.communicate(timeout=180)
        assert p.returncode == 0, err.strip().splitlines()[-1:]
    with RunStore(db) as store:
        runs = store.runs()
        assert len(runs) == 3
        assert all(r.status is RunStatus.COMPLETED for r in runs)
        assert all(store.signal_count(r.id) > 0 for r in runs)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_schema_creation_is_idempotent(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    db = str(tmp_path / "runs.sqlite") if backend == "sqlite" else request.getfixturevalue("pg_url")
    for _ in range(3):
        with RunStore(db) as store:
            store.runs()
