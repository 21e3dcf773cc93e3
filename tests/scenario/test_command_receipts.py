"""Receipts of the runs commands make without a scenario file (``robotsim walk``, ...):
``robotsim runs verify`` re-runs them with the same arguments and says ``identical``;
a stored summary or a robot file changed since makes it say ``differs``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from robotsim.cli import main
from robotsim.model.loader import LIBRARY_DIR
from robotsim.recording import RunStore, read_receipt
from robotsim.scenario.receipt import file_digest

pytestmark = pytest.mark.slow  # short physics runs, each re-run


def _edit_receipt(db: Path, run_id: int, edit) -> None:  # type: ignore[no-untyped-def]
    with sqlite3.connect(db) as con:
        (text,) = con.execute(
            "select receipt from run_receipts where run_id = ?", (run_id,)
        ).fetchone()
        doc = json.loads(text)
        edit(doc)
        con.execute(
            "update run_receipts set receipt = ? where run_id = ?", (json.dumps(doc), run_id)
        )


def test_walk_receipt_verifies_identical_and_says_no_to_a_changed_summary_or_robot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    robot = tmp_path / "biped_copy.yaml"
    robot.write_text((LIBRARY_DIR / "humanoid17.yaml").read_text())
    out = tmp_path / "walk"
    db = tmp_path / "walks.sqlite"  # --db: another store than OUT/runs.sqlite
    args = ["walk", str(robot), "--distance", "0.1", "--out", str(out), "--db", str(db)]
    assert main([*args, "--no-strip"]) == 0
    assert not (out / "runs.sqlite").exists()
    with RunStore(db) as store:
        stored = read_receipt(store.engine, 1)
    assert stored is not None
    doc = stored.receipt
    assert doc["kind"] == "command walk" and doc["command"]["name"] == "walk"
    assert doc["command"]["args"]["robot"] == str(robot.resolve())
    assert doc["files"][str(robot.resolve())] == file_digest(robot)
    assert len(doc["models"]) == 1 and len(stored.checkpoints) >= 2
    assert "recording" not in doc["summary"] and doc["summary"]["distance_m"] > 0.05
    capsys.readouterr()
    code = main(["runs", "verify", "last", "--db", str(db), "--json"])
    v = json.loads(capsys.readouterr().out)
    assert code == 0, json.dumps(v)
    assert v["verdict"] == "identical" and v["compared"] == len(stored.checkpoints)
    assert not v["files_changed"] and not v["summary_differences"]

    def farther(d):  # type: ignore[no-untyped-def]
        d["summary"]["distance_m"] += 0.01

    _edit_receipt(db, 1, farther)  # the receipt says it walked 1 cm farther
    assert main(["runs", "verify", "last", "--db", str(db)]) == 1
    assert capsys.readouterr().out.startswith("run 1: differs: summary distance_m: ")
    text = robot.read_text()
    assert text.count("inertial: {mass: 0.75,") == 1
    robot.write_text(text.replace("inertial: {mass: 0.75,", "inertial: {mass: 0.8,"))
    assert main(["runs", "verify", "last", "--db", str(db)]) == 1
    said = capsys.readouterr().out
    assert said.startswith("run 1: differs: checkpoint 0 at t=")
    assert f"file changed since the run: {robot.resolve()}" in said


SQUAT = (
    "format: robotsim-program/1\nname: squat\nrobot: humanoid17\nunits: deg\nmotions:\n"
    "- name: squat\n  keyframes:\n"
    "  - {name: down, targets: {left_knee: 20, right_knee: -20}, speed: 5, hold: 1.0}\n"
)


def test_motion_check_receipt_verifies_identical_and_a_moved_checkpoint_says_no(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import numpy as np

    from robotsim.physics.checkpoint import state_digest

    prog = tmp_path / "squat.yaml"
    prog.write_text(SQUAT)
    db = tmp_path / "check.sqlite"
    assert main(["motion", "check", str(prog), "--physics", "--db", str(db)]) == 0
    with RunStore(db) as store:
        stored = read_receipt(store.engine, 1)
    assert stored is not None and stored.receipt["kind"] == "command motion check"
    assert stored.receipt["command"]["args"]["file"] == str(prog.resolve())
    assert stored.receipt["files"][str(prog.resolve())] == file_digest(prog)
    assert stored.receipt["summary"]["verdict"] == "stands" and len(stored.checkpoints) >= 2
    capsys.readouterr()
    assert main(["runs", "verify", "last", "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith("run 1: identical (")
    # the stored first checkpoint says the robot stood 1 mm further along x
    state = np.frombuffer(stored.checkpoints[0].state, dtype=np.float64).copy()
    state[1] += 1e-3  # after the time: the free root's x
    with sqlite3.connect(db) as con:
        con.execute(
            "update run_checkpoints set state = ?, digest = ? where run_id = 1 and seq = 0",
            (state.tobytes(), state_digest(state.tobytes())),
        )
    assert main(["runs", "verify", "last", "--db", str(db), "--json"]) == 1
    d = json.loads(capsys.readouterr().out)["first_difference"]
    assert d["seq"] == 0 and d["max_abs"] == pytest.approx(1e-3, rel=1e-6)
    assert d["bodies"][0]["qpos_max_abs"] == pytest.approx(1e-3, rel=1e-6)


def test_motion_play_receipt_verifies_its_summary_and_a_changed_value_says_no(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prog = tmp_path / "squat.yaml"
    prog.write_text(SQUAT)
    out = tmp_path / "play"
    assert main(["motion", "play", str(prog), "--out", str(out), "--no-strip"]) == 0
    db = out / "runs.sqlite"
    capsys.readouterr()
    assert main(["runs", "verify", "last", "--db", str(db)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("run 1: identical (no physics state to checkpoint: its summary")

    def more_ticks(d):  # type: ignore[no-untyped-def]
        assert d["kind"] == "command motion play" and "trajectory" not in d["summary"]
        d["summary"]["ticks"] += 1

    _edit_receipt(db, 1, more_ticks)
    assert main(["runs", "verify", "last", "--db", str(db)]) == 1
    assert capsys.readouterr().out.startswith("run 1: differs: summary ticks: ")


def test_clearance_receipt_compares_the_commands_own_summary_and_says_no(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The re-run is the command's own study (the same summary shape as printed, not
    the sweep runner's), compared value by value."""
    out = tmp_path / "cl"
    args = ["clearance", "three_puma_clearance", "--dt", "0.05", "--certified", "--out"]
    assert main([*args, str(out), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    db = out / "runs.sqlite"
    with RunStore(db) as store:
        stored = read_receipt(store.engine, 1)
    assert stored is not None and stored.receipt["kind"] == "command clearance"
    assert stored.receipt["summary"] == printed  # like with like
    assert main(["runs", "verify", "last", "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith("run 1: identical (no physics state")

    def closer(d):  # type: ignore[no-untyped-def]
        d["summary"]["pairs"]["A-B"]["min_distance"] -= 1e-6

    _edit_receipt(db, 1, closer)
    assert main(["runs", "verify", "last", "--db", str(db)]) == 1
    assert capsys.readouterr().out.startswith("run 1: differs: summary pairs.A-B.min_distance: ")


def test_plan_receipt_replans_identical_and_a_changed_verdict_says_no(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plan"
    assert main(["plan", "three_puma_clearance", "--out", str(out), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    db = out / "runs.sqlite"
    with RunStore(db) as store:
        stored = read_receipt(store.engine, 1)
    assert stored is not None and stored.receipt["kind"] == "command plan"
    kept = stored.receipt["summary"]
    assert kept["collision_free"] is True and "plan_time_s" not in kept and "scenario" not in kept
    assert kept["min_distance_m"] == printed["min_distance_m"]
    assert main(["runs", "verify", "last", "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith("run 1: identical (")

    def not_free(d):  # type: ignore[no-untyped-def]
        d["summary"]["collision_free"] = False

    _edit_receipt(db, 1, not_free)
    assert main(["runs", "verify", "last", "--db", str(db)]) == 1
    said = capsys.readouterr().out
    assert said.startswith("run 1: differs: summary collision_free: False then, True now")


def test_a_served_run_stores_what_ran_and_verify_refuses_to_replay_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``serve --db``: the receipt records the files, the model and the checkpoints, and
    says honestly that the network's commands cannot be replayed: verify is a one-line
    error (exit 2), not a re-run of something else called identical."""
    db = tmp_path / "served.sqlite"
    args = ["serve", "diffdrive", "--udp", "127.0.0.1:0", "--duration", "0.3", "--rate", "4"]
    assert main([*args, "--db", str(db)]) == 0
    with RunStore(db) as store:
        stored = read_receipt(store.engine, 1)
    assert stored is not None
    doc = stored.receipt
    assert doc["kind"] == "command serve" and doc["command"]["replayable"] is False
    t = doc["summary"]["t"]  # 0.3 s of wall time at 4x
    assert doc["summary"]["status"] == "completed" and t == pytest.approx(1.2, abs=0.1)
    assert len(doc["models"]) == 1 and stored.checkpoints[-1].t == pytest.approx(t)
    assert any(f.endswith("diffdrive.yaml") for f in doc["files"])
    capsys.readouterr()
    assert main(["runs", "verify", "last", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: run 1 was served live (robotsim serve)") and err.count("\n") == 1


def test_a_serve_that_cannot_start_leaves_no_receipt_block_behind(tmp_path: Path) -> None:
    from robotsim.physics.checkpoint import current_log

    db = tmp_path / "served.sqlite"
    assert main(["serve", "no_such_robot", "--udp", "127.0.0.1:0", "--db", str(db)]) == 2
    assert current_log() is None  # the next run of this process is not checkpointed into it
    (tmp_path / "a_file").write_text("")
    bad = tmp_path / "a_file" / "runs.sqlite"  # the store fails after the target is built
    assert main(["serve", "diffdrive", "--udp", "127.0.0.1:0", "--db", str(bad)]) != 0
    assert current_log() is None
