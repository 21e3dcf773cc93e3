"""``robotsim warm``: the shipped workloads run in separate processes, lane by lane;
a failing one is reported with its error and makes the command exit 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robotsim.cli import main
from robotsim.cli.warm import LANES, warm

IK = ("ik", "puma560", "--target", "0.5,-0.15,0.8")


@pytest.mark.slow
def test_warm_runs_each_lane_in_order_and_reports_failures(tmp_path: Path) -> None:
    seen = []
    lanes = ((IK, ("fk", "no_such_robot")), (("scenarios", "--out", "{out}/x"),))
    results = warm(lanes, parallel=2, report=seen.append)
    assert [r.command for r in results] == [
        "ik puma560 --target 0.5,-0.15,0.8",
        "fk no_such_robot",
        "scenarios --out x",
    ]
    assert sorted(r.command for r in seen) == sorted(r.command for r in results)
    ok, bad, usage = results
    assert ok.error is None and ok.seconds > 0
    assert bad.error is not None and bad.error.startswith("exit 2: error: unknown robot")
    assert usage.error == "exit 2: error: No such option '--out'. (see 'robotsim scenarios --help')"


def test_the_shipped_lanes_name_shipped_workloads_and_write_only_to_the_temporary_folder() -> None:
    from robotsim.shipped import catalogue

    names = {e.name for e in catalogue()}
    for lane in LANES:
        for task in lane:
            if task[0] in ("clearance", "run") or task[:2] == ("motion", "play"):
                assert task[2 if task[0] == "motion" else 1] in names
                assert task[task.index("--out") + 1].startswith("{out}/")


def test_warm_command_json(capsys, monkeypatch) -> None:
    import robotsim.cli.warm as mod

    monkeypatch.setattr(mod, "LANES", ((IK,),))
    assert main(["warm", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["failed"] == 0 and [w["command"] for w in out["workloads"]] == [" ".join(IK)]
