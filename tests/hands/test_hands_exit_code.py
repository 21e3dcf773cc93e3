"""A hands run whose script does not complete exits 3 and names what is missing
(issue 17); cut short on purpose with --duration it exits 0 (test_hands_cli)."""

from __future__ import annotations

import json
from pathlib import Path

from robotsim.cli import main


def test_a_run_that_does_not_complete_exits_3(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    # the ball far from both hands: nothing is ever touched or grasped
    rc = main(["run", "hand_ball_transfer", "--mode", "kinematic", "--out", str(tmp_path),
               "--set", "ball.position=[1.5, -1.5, 0.5]"])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 3, err
    line = next(ln for ln in err.splitlines() if ln.startswith("error:"))
    assert "hand_ball_transfer: the run did not complete (missing events: " in line
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert not summary["completed"]
    assert {"grasp", "hold_both"} <= set(summary["missing_events"])
    for event in summary["missing_events"]:
        assert event in line
