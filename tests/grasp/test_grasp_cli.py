"""``robotsim grasp``: summary.json (strict JSON, the fields the issue names), the PNG,
the run store; bad input exits 2 with one line."""

from __future__ import annotations

import json
import sqlite3

import pytest

from robotsim.cli import main


@pytest.mark.slow
def test_grasp_writes_its_files(panda_path, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "g"
    assert main(["grasp", str(panda_path), "--object", "box:0.05,0.03,0.06", "--trials", "1",
                 "--seed", "2", "--out", str(out), "--json"]) == 0  # fmt: skip
    printed = json.loads(capsys.readouterr().out)
    on_disk = json.loads((out / "summary.json").read_text(), parse_constant=lambda c: 1 / 0)
    for d in (printed, on_disk):
        for key in ("trials", "successes", "success_rate", "mean_plan_s", "results"):
            assert key in d
        row = d["results"][0]
        assert {"lifted_m", "slip_m", "success"} <= set(row)
        assert row["success"] or "reason" in row
    assert (out / "grasps.png").stat().st_size > 10_000
    with sqlite3.connect(out / "runs.sqlite") as db:
        kinds = {k for (k,) in db.execute("select type from events")}
    assert {"trial", "result"} <= kinds


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--object", "box:0.1"], "a box takes 3 number(s)"),
        (["--object", "box:0.05,0.03,0.06", "--hand", "claw"], "unknown hand 'claw'"),
        (["--object", "box:0.05,0.03,0.06", "--table", "1,2,3"], "--table: expected 6 numbers"),
        (["--object", "box:0.05,0.03,0.06", "--trials", "0"], "--trials"),
    ],
)
def test_bad_input_exits_2(panda_path, tmp_path, capsys, args, message) -> None:  # type: ignore[no-untyped-def]
    code = main(["grasp", str(panda_path), *args, "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
