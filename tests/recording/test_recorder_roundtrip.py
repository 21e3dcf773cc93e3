"""Recorder -> RunStore round trips on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import insert, text

from robotsim.errors import InputError, UnknownNameError
from robotsim.recording import Recorder, RecordingError, RunStatus, RunStore, schema


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "runs.sqlite")
    return request.getfixturevalue("pg_url")


NAMES = ("x", "y", "yaw")


def test_signals_events_and_status_round_trip(db: str) -> None:
    rng = np.random.default_rng(1)
    poses = rng.normal(size=(300, 3))
    poses[7, 1] = np.nan
    with Recorder(db, flush_interval=0.05) as rec:
        rid = rec.start_run(
            "soccer.yaml", {"duration": 3.0, "gains": np.array([1.0, 2.0])}, seed=42
        )
        for k in range(300):
            rec.signal("omni", k * 0.01, NAMES, poses[k])
        rec.signal("arm", 0.5, ["q1"], [0.25])
        rec.event(1.5, "goal_reached", robot="omni", data={"error_m": np.float64(0.02)})
        rec.event(0.2, "collision", data={"bodies": ["omni", "obstacle_3"]})
    assert rec.writer_cpu > 0  # the writer thread's own CPU time, kept when it ends
    with RunStore(db) as store:
        info = store.run(rid)
        assert info.status is RunStatus.COMPLETED
        assert info.parameters == {"duration": 3.0, "gains": [1.0, 2.0]}
        assert info.seed == 42 and info.scenario == "soccer.yaml"
        assert info.ended_at is not None and info.ended_at >= info.started_at
        assert "robotsim" in info.versions
        assert store.robots(rid) == ["omni", "arm"]
        tab = store.signals(rid, "omni")
        assert tab.names == NAMES
        np.testing.assert_allclose(tab.t, np.arange(300) * 0.01)
        np.testing.assert_array_equal(tab.values, poses)  # NaN round-trips as NaN
        np.testing.assert_array_equal(tab.column("yaw"), poses[:, 2])
        assert store.signal_count(rid) == 901
        assert [e["type"] for e in store.events(rid)] == ["collision", "goal_reached"]
        assert store.events(rid, type="goal_reached")[0]["data"] == {"error_m": 0.02}
        assert store.resolve("last") >= rid


def test_block_signals_match_single_calls(db: str) -> None:
    t = np.linspace(0, 1, 50)
    vals = np.column_stack([np.sin(t), np.cos(t)])
    with Recorder(db) as rec:
        rid = rec.start_run("block")
        rec.signals("r", t, ("s", "c"), vals)
    with RunStore(db) as store:
        tab = store.signals(rid, "r", names=["c", "s"])
        np.testing.assert_array_equal(tab.values, vals[:, ::-1])


def test_flush_makes_data_visible_while_running(db: str) -> None:
    rec = Recorder(db, flush_interval=30.0)  # long interval: only flush() can commit
    rid = rec.start_run("live")
    rec.signal("r", 0.0, ("a",), [1.0])
    rec.flush()
    with RunStore(db) as store:
        assert store.signal_count(rid) == 1
        assert store.run(rid).status is RunStatus.RUNNING
    rec.close()
    with RunStore(db) as store:
        assert store.run(rid).status is RunStatus.INTERRUPTED


def test_exceptions_mark_failed_and_ctrl_c_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with pytest.raises(ZeroDivisionError), Recorder(db) as rec:
        failed = rec.start_run("f")
        rec.signal("r", 0.0, ("a",), [1.0])
        _ = 1 / 0
    with pytest.raises(KeyboardInterrupt), Recorder(db) as rec:
        stopped = rec.start_run("i")
        rec.signal("r", 0.0, ("a",), [1.0])
        raise KeyboardInterrupt
    with RunStore(db) as store:
        f, i = store.run(failed), store.run(stopped)
        assert f.status is RunStatus.FAILED and "ZeroDivisionError" in (f.message or "")
        assert i.status is RunStatus.INTERRUPTED
        assert store.signal_count(failed) == 1 and store.signal_count(stopped) == 1


def test_bad_calls_give_clear_errors(tmp_path: Path) -> None:
    rec = Recorder(tmp_path / "r.sqlite")
    with pytest.raises(RecordingError, match="start_run"):
        rec.signal("r", 0.0, ("a",), [1.0])
    rec.start_run("bad")
    with pytest.raises(InputError, match="2 names but 3 values"):
        rec.signal("r", 0.0, ("a", "b"), [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match=r"shape \(2, 1\)"):
        rec.signals("r", [0.0, 1.0], ("a",), [1.0, 2.0, 3.0])
    rec.signal("r", 0.0, ("a",), [1.0])  # the bad calls above recorded nothing
    rec.finish()
    with pytest.raises(RecordingError, match="finished"):
        rec.event(0.0, "late")
    with pytest.raises(InputError, match="flush_interval"):
        Recorder(tmp_path / "r.sqlite", flush_interval=0)
    store = RunStore(tmp_path / "r.sqlite")
    with pytest.raises(UnknownNameError, match="unknown run '99'"):
        store.run(99)
    with pytest.raises(UnknownNameError, match="unknown robot 'nobody'; valid: r"):
        store.signals(rec.run_id or 0, "nobody")
    with pytest.raises(RecordingError, match="run id or 'last'"):
        store.run("first")


def test_unreachable_database_is_a_recording_error() -> None:
    with pytest.raises(RecordingError, match="cannot open run store"):
        RunStore("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")


def test_stale_running_run_is_marked_interrupted_on_open(db: str) -> None:
    # a minute between the inserts and the check before a live run would look stale
    store = RunStore(db, stale_after=60.0)
    now = time.time()
    base = {
        "scenario": "s",
        "parameters": "{}",
        "versions": "{}",
        "started_at": now - 900,
        "status": "running",
        "host": socket.gethostname(),
        "flush_interval": 0.5,
    }
    with store.engine.begin() as conn:
        stale = conn.execute(
            insert(schema.runs).values(**base, heartbeat=now - 600, pid=os.getpid())
        ).inserted_primary_key[0]
        alive = conn.execute(
            insert(schema.runs).values(**base, heartbeat=now, pid=os.getpid())
        ).inserted_primary_key[0]
        other_host = conn.execute(
            insert(schema.runs).values(**{**base, "host": "elsewhere"}, heartbeat=now, pid=1)
        ).inserted_primary_key[0]
    assert store.recover_stale() == [stale]
    assert store.run(stale).status is RunStatus.INTERRUPTED
    assert store.run(alive).status is RunStatus.RUNNING
    assert store.run(other_host).status is RunStatus.RUNNING
    with store.engine.begin() as conn:  # leave the shared server clean for other tests
        conn.execute(text("UPDATE runs SET status = 'completed' WHERE status = 'running'"))
    store.close()


def test_a_starved_writer_alive_on_this_host_is_not_marked_interrupted(db: str) -> None:
    # Its heartbeat is a minute old (a badly loaded machine), but its process lives.
    from robotsim.recording.store import LIVE_WRITER_GRACE

    store = RunStore(db, stale_after=5.0)
    now = time.time()
    base = {"scenario": "s", "parameters": "{}", "versions": "{}", "started_at": now - 900,
            "status": "running", "host": socket.gethostname(), "flush_interval": 0.5}  # fmt: skip
    with store.engine.begin() as conn:
        starved = conn.execute(
            insert(schema.runs).values(**base, heartbeat=now - 60, pid=os.getpid())
        ).inserted_primary_key[0]
        silent = conn.execute(
            insert(schema.runs).values(
                **base, heartbeat=now - LIVE_WRITER_GRACE - 60, pid=os.getpid()
            )
        ).inserted_primary_key[0]
        remote = conn.execute(
            insert(schema.runs).values(**{**base, "host": "elsewhere"}, heartbeat=now - 60, pid=1)
        ).inserted_primary_key[0]
    assert sorted(store.recover_stale()) == sorted([silent, remote])
    assert store.run(starved).status is RunStatus.RUNNING
    with store.engine.begin() as conn:  # leave the shared server clean for other tests
        conn.execute(text("UPDATE runs SET status = 'completed' WHERE status = 'running'"))
    store.close()


def test_a_killed_unreaped_writer_counts_as_gone() -> None:
    import signal
    import subprocess
    import sys

    from robotsim.recording.store import _pid_alive

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert _pid_alive(child.pid)
        os.kill(child.pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while _pid_alive(child.pid):  # a zombie until wait() below reaps it
            assert time.monotonic() < deadline, "a killed child still counts as alive"
            time.sleep(0.01)
    finally:
        child.wait()
    assert not _pid_alive(child.pid)
