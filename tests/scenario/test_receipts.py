"""Receipts of recorded runs and `robotsim runs verify`: identical, or the first
checkpoint that differs (a robot file changed after the run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from robotsim.cli import main
from robotsim.model.loader import LIBRARY_DIR
from robotsim.recording import RunStore, read_receipt
from robotsim.scenario.receipt import canonical_digest, file_digest
from robotsim.shipped import resolve

pytestmark = pytest.mark.slow  # two or three short physics runs


def _scenario(tmp_path: Path) -> Path:
    """The P vs PD scenario for 1.5 s with its PD robot read from a file of ours."""
    robot = tmp_path / "omni_copy.yaml"
    robot.write_text((LIBRARY_DIR / "omni3.yaml").read_text())
    data = yaml.safe_load(resolve("pid_p_vs_pd", "scenario").read_text())
    data["duration"] = 1.5
    data["robots"][1]["model"] = "omni_copy.yaml"
    f = tmp_path / "pid.yaml"
    f.write_text(yaml.safe_dump(data, sort_keys=False))
    return f


def test_a_recorded_run_carries_its_receipt_and_verifies_identical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _scenario(tmp_path)
    db = tmp_path / "runs.sqlite"
    assert main(["run", str(f), "--db", str(db), "--seed", "3", "--set", "duration=1.2"]) == 0
    capsys.readouterr()
    with RunStore(db) as store:
        stored = read_receipt(store.engine, 1)
    assert stored is not None
    doc = stored.receipt
    assert doc["kind"] == "mobile" and doc["options"]["seed"] == 3
    assert doc["scenario"]["duration"] == 1.2  # after the override
    assert doc["scenario_digest"] == canonical_digest(doc["scenario"])
    robot = str((tmp_path / "omni_copy.yaml").resolve())
    assert doc["files"][robot] == file_digest(robot)
    assert doc["files"][str(f.resolve())] == file_digest(f)
    for k in ("robotsim", "mujoco", "numpy", "python", "robotsim_source"):
        assert doc["versions"][k]
    assert doc["platform"]["machine"] and len(doc["models"]) == 1
    # every second of simulated time and the end: t = 1.0 and 1.2
    assert [round(c.t, 6) for c in stored.checkpoints] == [1.0, 1.2]
    assert doc["summary"]["robots"]["PD"]["path_length"] > 0
    assert main(["runs", "verify", "1", "--db", str(db), "--json"]) == 0
    v = json.loads(capsys.readouterr().out)
    assert v["verdict"] == "identical" and v["compared"] == 2 and not v["files_changed"]


def test_verify_says_which_checkpoint_and_bodies_differ_after_a_file_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _scenario(tmp_path)
    db = tmp_path / "runs.sqlite"
    assert main(["run", str(f), "--db", str(db)]) == 0
    robot = tmp_path / "omni_copy.yaml"
    text = robot.read_text()
    assert text.count("inertial: {mass: 6,") == 1
    robot.write_text(text.replace("inertial: {mass: 6,", "inertial: {mass: 6.6,"))  # +10 %
    capsys.readouterr()
    assert main(["runs", "verify", "last", "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("run 1: differs: checkpoint 0 at t=1 s (world 0) differs by up to ")
    assert "PD" in out.splitlines()[0]  # a body of the PD robot, named
    assert f"file changed since the run: {robot.resolve()}" in out
    assert main(["runs", "verify", "last", "--db", str(db), "--json"]) == 1
    v = json.loads(capsys.readouterr().out)
    d = v["first_difference"]
    assert v["verdict"] == "differs" and d["seq"] == 0 and d["t"] == pytest.approx(1.0)
    assert d["max_abs"] > 0 and d["bodies"] and d["bodies"][0]["body"].startswith("PD")
    assert v["models_differ"] == [0]


def test_a_run_without_receipt_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from robotsim.recording import Recorder

    with Recorder(tmp_path / "runs.sqlite") as rec:
        rec.start_run("by hand")
    assert main(["runs", "verify", "1", "--db", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: run 1 has no receipt") and err.count("\n") == 1


def test_a_kinematic_run_verifies_by_its_summary_and_a_changed_value_says_no(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No physics state to checkpoint (the hands' kinematic mode): the verdict says the
    summary is what was compared, and a summary value that differs is found."""
    import sqlite3

    db = tmp_path / "runs.sqlite"
    assert main(["run", "hand_ball_transfer", "--duration", "0.3", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["runs", "verify", "last", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("run 1: identical (no physics state to checkpoint: its summary")
    with sqlite3.connect(db) as con:  # the receipt says the ball was elsewhere
        (text,) = con.execute("select receipt from run_receipts where run_id = 1").fetchone()
        doc = json.loads(text)
        assert doc["summary"]["mode"] == "kinematic" and not doc["checkpoints"]
        doc["summary"]["duration"] = 0.31
        con.execute("update run_receipts set receipt = ? where run_id = 1", (json.dumps(doc),))
    assert main(["runs", "verify", "last", "--db", str(db)]) == 1
    assert capsys.readouterr().out.startswith("run 1: differs: summary duration: 0.31 then")
