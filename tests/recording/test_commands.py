"""The run store as a command channel (docs/commands.md): a simulation started with
``robotsim run ... --commands`` in its own process obeys rows that this process inserts
into ``commands`` (PostgreSQL: LISTEN/NOTIFY; SQLite: polling), refuses bad ones in the
table with the reason and goes on, and publishes ``run_status`` rows."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import insert

from robotsim.cli import main
from robotsim.errors import InputError
from robotsim.recording import RunStore
from robotsim.recording.commands import (
    CommandChannel,
    cli_args,
    commands,
    parse_args,
    read_status,
    send_command,
    wait_command,
)
from robotsim.recording.pgserver import TempPostgres
from tests.paths import REPO

SCENARIO = """\
format: robotsim-scenario/1
kind: mobile
name: one_omni
duration: 120
timestep: 0.002
control_rate: 50
record_rate: 10
field: {size: [10, 8], markings: none}
robots:
  - name: omni
    model: omni3
    start: [0, 0, 0]
    goal: [0, 0, 0]
"""


def start_sim(tmp_path: Path, db: str) -> subprocess.Popen:
    (tmp_path / "one.yaml").write_text(SCENARIO)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "MUJOCO_GL": "egl"}
    cmd = [sys.executable, "-m", "robotsim", "run", str(tmp_path / "one.yaml"), "--db", db,
           "--commands", "--json"]  # fmt: skip
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            text=True)  # fmt: skip


def wait_for(cond, what: str, timeout: float = 90.0):  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def status(store: RunStore, run_id: int) -> dict:
    rows = read_status(store.engine, run_id)
    return rows[0] if rows else {}


def drive_a_run(tmp_path: Path, db: str) -> None:
    """The whole conversation with a running simulation in another process."""
    proc = start_sim(tmp_path, db)
    try:
        store = RunStore(db)
        run_id = wait_for(lambda: store.runs() and store.runs()[-1].id, "the run")
        first = wait_for(lambda: status(store, run_id), "the first status row")
        assert first["state"] == "running" and first["robot"] == "omni"
        e = store.engine

        # bad commands, inserted as any program would: refused in the table, with the reason
        bad_rows = {
            "fly": {"kind": "fly"},
            "json": {"kind": "goal", "args": "{x: 1"},
            "off": {"kind": "goal", "args": '{"x": 30, "y": 0}'},
            "fast": {"kind": "velocity", "args": '{"vx": 9, "vy": 0}'},
            "arm": {"kind": "joints", "args": '{"elbow": 30}'},
            "who": {"kind": "goal", "robot": "ghost", "args": '{"x": 1, "y": 1}'},
        }
        with e.begin() as conn:
            bad = {
                k: conn.execute(insert(commands).values(run_id=run_id, **v))
                for k, v in bad_rows.items()
            }
        ids = {k: int(r.inserted_primary_key[0]) for k, r in bad.items()}
        rows = {k: wait_command(e, i, 60) for k, i in ids.items()}
        assert all(r["status"] == "failed" for r in rows.values()), rows
        assert "unknown command kind 'fly'" in rows["fly"]["reason"]
        assert "args: not valid JSON" in rows["json"]["reason"]
        assert "off the field (10 x 8 m" in rows["off"]["reason"]
        assert "exceeds the robot's max speed 1.5 m/s" in rows["fast"]["reason"]
        assert "no joint 'elbow'" in rows["arm"]["reason"]
        assert "no robot 'ghost'" in rows["who"]["reason"]

        # the run goes on: a goal is taken and reached
        cid = send_command(e, run_id, "goal", {"x": 2, "y": 1, "theta": 90})
        row = wait_command(e, cid, 60)
        assert row["status"] == "done" and row["reason"] is None and row["sim_time"] > 0
        # a status row written before the command was handled still says "reached" for
        # the scenario's own goal: wait for one that reports this command
        s = wait_for(
            lambda: (st := status(store, run_id)).get("last_command") == cid
            and st.get("reached") and st,
            "the goal", timeout=120,
        )  # fmt: skip
        assert s["x"] == pytest.approx(2, abs=0.05) and s["y"] == pytest.approx(1, abs=0.05)
        assert s["theta"] == pytest.approx(90, abs=3) and s["last_command"] == cid

        # pause holds the simulated time; resume and a held velocity move it on
        assert wait_command(e, send_command(e, run_id, "pause"), 60)["status"] == "done"
        t_paused = wait_for(lambda: (st := status(store, run_id))["state"] == "paused" and st,
                            "the paused status")["t"]  # fmt: skip
        time.sleep(0.5)
        s = status(store, run_id)
        assert s["state"] == "paused" and s["t"] == t_paused
        assert wait_command(e, send_command(e, run_id, "resume"), 60)["status"] == "done"
        vid = send_command(e, run_id, "velocity", {"vx": -0.5, "vy": 0, "w": 0})
        assert wait_command(e, vid, 60)["status"] == "done"
        s = wait_for(  # body x is world -y at heading 90 deg: away from the goal
            lambda: (st := status(store, run_id))["y"] < 0.8 and st, "moving back"
        )
        assert s["mode"] == "velocity" and s["t"] > t_paused

        # the CLI: a refused command exits 1 with the reason; stop ends the run
        assert main(["command", "last", "goal", "0", "99", "--db", db]) == 1
        assert main(["command", "last", "stop", "--db", db]) == 0
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        summary = json.loads(out)
        assert summary["sim_time"] < 120  # stopped early
        assert store.run(run_id).status.value == "completed"
        assert status(RunStore(db), run_id)["state"] == "finished"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_commands_through_postgresql(tmp_path: Path) -> None:
    with TempPostgres() as pg:
        drive_a_run(tmp_path, pg.url)


@pytest.mark.slow
def test_commands_through_sqlite(tmp_path: Path) -> None:
    drive_a_run(tmp_path, str(tmp_path / "runs.sqlite"))


def test_postgresql_wakes_the_run_only_on_notify() -> None:
    """The run's side reads the table only when PostgreSQL notified it: for its own run
    id, right after another connection's insert commits."""
    with TempPostgres() as pg:
        store = RunStore(pg.url)
        ch = CommandChannel(store.engine, 1)
        try:
            assert ch.poll() == []  # the first read at the start
            send_command(store.engine, 2, "pause")  # another run's command: no wake-up
            time.sleep(0.2)
            assert ch.poll() == []
            cid = send_command(store.engine, 1, "goal", {"x": 1, "y": 2})
            got = wait_for(lambda: ch.poll(), "the notification", timeout=10)
            assert [c.id for c in got] == [cid] and got[0].args == {"x": 1, "y": 2}
            ch.finish(got[0], 0.5)
            assert wait_command(store.engine, cid, 1)["status"] == "done"
            assert ch.poll() == []  # nothing new: no notification, no read
        finally:
            ch.close()


def test_command_syntax() -> None:
    assert cli_args("goal", ["2", "1"]) == {"x": 2.0, "y": 1.0}
    assert cli_args("velocity", ["-0.5", "0", "30"]) == {"vx": -0.5, "vy": 0.0, "w": 30.0}
    assert cli_args("joints", ["elbow=30", "wrist=-5"]) == {"elbow": 30.0, "wrist": -5.0}
    assert parse_args("pause", None) == {}
    for kind, args, msg in [
        ("goal", ["2"], "goal takes x y [theta]; got 1"),
        ("goal", ["2", "north"], "y must be a number, got 'north'"),
        ("joints", ["elbow"], "expected JOINT=target"),
        ("jump", [], "unknown command kind 'jump'"),
    ]:
        with pytest.raises(InputError, match=re.escape(msg)):
            cli_args(kind, args)
    with pytest.raises(InputError, match="unknown argument 'z'"):
        parse_args("goal", {"x": 1, "y": 2, "z": 3})
    with pytest.raises(InputError, match="x must be a finite number"):
        parse_args("goal", {"x": float("nan"), "y": 2})


def test_cli_refuses_before_sending(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "runs.sqlite")
    from robotsim.recording import Recorder

    with Recorder(db) as rec:
        rec.start_run("x", {})
    assert main(["command", "last", "goal", "1", "--db", db]) == 2
    assert "goal takes x y [theta]; got 1" in capsys.readouterr().err
    assert main(["command", "last", "pause", "--db", db]) == 2  # the run is over
    assert "is completed: it takes no commands" in capsys.readouterr().err
    assert main(["run", "x.yaml", "--commands"]) == 2
    assert "--commands needs a run store" in capsys.readouterr().err
    assert main(["run", "walk_forward_check", "--commands", "--db", db]) == 2
    assert "only mobile scenarios take commands" in capsys.readouterr().err
