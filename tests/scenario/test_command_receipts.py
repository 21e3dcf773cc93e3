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
    assert main(["walk", str(robot), "--distance", "0.1", "--out", str(out), "--no-strip"]) == 0
    db = out / "runs.sqlite"
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
