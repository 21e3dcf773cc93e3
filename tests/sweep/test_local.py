"""``robotsim sweep`` on the local process pool: table, run store, report, failures,
bad files, Ctrl-C and --resume."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from robotsim.cli import main
from robotsim.shipped import shipped_dir
from robotsim.sweep import read_meta, read_rows
from tests.sweep.tiny import TINY, write_sweep

pytestmark = pytest.mark.slow  # spawned workers import robotsim (a few seconds)


def _rows(out: Path) -> list[dict[str, str]]:
    with (out / "results.csv").open() as fh:
        return list(csv.DictReader(fh))


def test_sweep_writes_table_run_store_and_report(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow.parquet as pa  # the cluster extra, installed by scripts/setup.sh

    out = tmp_path / "out"
    assert main(["sweep", str(tiny_sweep), "--out", str(out), "--workers", "1", "--quiet"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("sweep tiny-") and "4 ok, 0 failed of 4 runs" in line
    rows = _rows(out)
    assert list(rows[0]) == [
        "run_key",
        "point",
        "repeat",
        "kp",
        "kd",
        "path_length",
        "x",
        "success",
        "status",
        "error",
        "run_id",
        "wall_time_s",
        "worker",
    ]
    assert [(float(r["kp"]), float(r["kd"])) for r in rows] == [(1, 0), (1, 0.4), (3, 0), (3, 0.4)]
    assert all(r["status"] == "ok" and float(r["path_length"]) > 0 for r in rows)
    # each row is the summary of `robotsim run` with the same --set overrides
    from robotsim.scenario import RunOptions, run_file

    ref = run_file(
        shipped_dir("scenario") / "pid_p_vs_pd.yaml",
        RunOptions(),
        [
            "duration=0.4",
            "robots.1.controller.gains.x.kp=3.0",
            "robots.1.controller.gains.y.kp=3.0",
            "robots.1.controller.gains.x.kd=0.4",
        ],
    )
    assert float(rows[3]["path_length"]) == ref["robots"]["PD"]["path_length"]
    assert float(rows[3]["x"]) == ref["robots"]["PD"]["final_pose"][0]
    table = pa.read_table(out / "results.parquet").to_pylist()
    assert [t["run_key"] for t in table] == [r["run_key"] for r in rows]
    assert [t["path_length"] for t in table] == [float(r["path_length"]) for r in rows]

    sweep_id = read_meta(out)["id"]
    assert main(["runs", "list", "--db", str(out), "--sweep", sweep_id, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["runs"]
    assert sorted(r["id"] for r in listed) == sorted(int(r["run_id"]) for r in rows)
    assert main(["runs", "list", "--db", str(out), "--sweep", "other-sweep", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == []
    run_id = rows[1]["run_id"]
    assert main(["export", run_id, "--db", str(out), "--out", str(tmp_path / "exp"), "--json"]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert any(f.endswith(".csv") and "signals" in f for f in files)
    from robotsim.recording import RunStore

    with RunStore(out / "runs.sqlite") as store:
        assert store.tags(int(run_id)) == {"sweep": sweep_id, "sweep_run": rows[1]["run_key"]}

    assert main(["sweep", "report", str(out), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    names = {Path(f).name for f in rep["figures"]}
    assert {"path_length_vs_kp.png", "path_length_heatmap.png", "success_vs_kd.png"} <= names
    assert all(Path(f).stat().st_size > 5000 for f in rep["figures"])
    assert rep["ok"] == 4 and rep["success_rate"] == 0.0  # 0.4 s is too short to arrive

    # the same folder again without --resume is refused, with nothing lost
    assert main(["sweep", str(tiny_sweep), "--out", str(out), "--workers", "1"]) == 2
    assert "pass --resume" in capsys.readouterr().err
    assert len(read_rows(out)) == 4


def test_a_failing_run_is_recorded_and_the_sweep_goes_on(tmp_path: Path) -> None:
    params = {
        "kd": {"path": "robots.1.controller.gains.x.kd", "values": [0.0, -1.0, 0.2]},
    }
    f = write_sweep(tmp_path, "fails", parameters=params)
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--out", str(out), "--workers", "1", "--quiet"]) == 0
    rows = _rows(out)
    assert [r["status"] for r in rows] == ["ok", "failed", "ok"]
    err = rows[1]["error"]
    assert "ScenarioError" in err and "gains.x.kd" in err and "greater than or equal to 0" in err
    assert rows[1]["path_length"] == "" and float(rows[2]["path_length"]) > 0


def test_a_metric_missing_from_the_summary_fails_the_run_naming_it(tmp_path: Path, capsys) -> None:
    # a path below a part of the summary whose keys are only known when it runs
    # (robotsim.sweep.shapes: OPEN): the run fails naming the keys that are there
    f = write_sweep(
        tmp_path,
        "metric",
        parameters={"kd": {"path": "robots.1.controller.gains.x.kd", "values": [0.0]}},
        metrics={"bad": "reference.time_to_goal.PD.no_such_key"},
    )
    out = tmp_path / "out"
    # every run failed: exit 1 with the first error (a sweep file mistake, most likely)
    assert main(["sweep", str(f), "--out", str(out), "--workers", "1", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: all 1 runs failed; the first: ")
    assert "metrics.bad: no 'reference.time_to_goal.PD.no_such_key'" in err
    assert "results.csv" in err
    [row] = _rows(out)
    assert row["status"] == "failed"
    assert "metrics.bad: no 'reference.time_to_goal.PD.no_such_key'" in row["error"]
    assert "ours_s, paper_s" in row["error"]  # the keys that are there


def test_a_metric_path_the_summary_never_has_is_refused_before_running(
    tmp_path: Path, capsys
) -> None:
    f = write_sweep(tmp_path, "metric", metrics={"bad": "robots.PD.no_such_key"})
    assert main(["sweep", str(f), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "metrics.bad: 'robots.PD.no_such_key' is not in the " in err
    assert "time_to_goal" in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"parameters": {"kp": {"path": "robots.1.controller.gains.x.kpp", "values": [1]}}},
            "parameters.kp.path: 'robots.1.controller.gains.x.kpp' does not fit",
        ),
        (
            {"parameters": {"kp": {"path": "robots.5.controller.gains.x.kp", "values": [1]}}},
            "parameters.kp.path: 'robots.5.controller.gains.x.kp' does not fit",
        ),
        (
            {"parameters": {"kp": {"path": "x", "range": {"start": 2, "stop": 1, "step": 1}}}},
            "parameters.kp.range: Value error, empty range",
        ),
        ({"base": "no_such_scenario"}, "base: 'no_such_scenario' is neither"),
        ({"set": {"duration": -1}}, "set: "),
        ({"kind": "mobile"}, "kind: 'mobile' is not allowed"),
    ],
)
def test_bad_sweep_files_give_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: dict, expected: str
) -> None:
    f = write_sweep(tmp_path, "bad", **changes)
    assert main(["sweep", str(f), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"error: {f}: ") and expected in err
    assert not (tmp_path / "out").exists()  # nothing started


def _wait_for(pred, timeout: float) -> None:  # type: ignore[no-untyped-def]
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout:
            raise AssertionError("timed out")
        time.sleep(0.1)


def test_ctrl_c_stops_cleanly_and_resume_finishes(tmp_path: Path) -> None:
    import psutil  # comes with dask distributed (the cluster extra)

    params = {
        "kd": {"path": "robots.1.controller.gains.x.kd", "values": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]}
    }
    f = write_sweep(tmp_path, "stop", parameters=params, set={"duration": 1.0})
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "robotsim", "sweep", str(f), "--out", str(out), "--workers", "1"]

    def default_sigint() -> None:  # a background job may inherit SIGINT ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        _wait_for(lambda: len(read_rows(out)) >= 1, 120)
        children = psutil.Process(proc.pid).children(recursive=True)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted:" in err and "--resume" in err and "Traceback" not in err
    done = read_rows(out)
    assert 1 <= len(done) < 6
    _wait_for(lambda: not any(c.is_running() and c.status() != "zombie" for c in children), 10)
    assert len(_rows(out)) == len(done)  # the table was written for what finished

    assert main(["sweep", str(f), "--out", str(out), "--workers", "1", "--resume", "--json"]) == 0
    rows = read_rows(out)
    assert sorted(rows) == [f"p{i:05d}-r0" for i in range(6)]
    assert all(r["status"] == "ok" for r in rows.values())
    assert all(rows[k]["run_id"] == done[k]["run_id"] for k in done)  # not run again
    lines = (out / "runs.jsonl").read_text().splitlines()
    assert len(lines) == 6  # each run logged once


def test_base_scenario_by_file_and_every_kind_validates(tmp_path: Path) -> None:
    from robotsim.sweep import load_sweep

    repo = Path(__file__).resolve().parents[2]
    pid = shipped_dir("scenario") / "pid_p_vs_pd.yaml"
    by_file = write_sweep(tmp_path, "byfile", base=str(pid))
    assert load_sweep(by_file).base_path == pid.resolve()
    for f in sorted((repo / "sweeps").glob("*.yaml")):
        sw = load_sweep(f)
        assert (sw.tasks or sw.spec.design == "optimize") and sw.spec.name == f.stem
    assert len(load_sweep(repo / "sweeps" / "soccer_random_layouts.yaml").tasks) >= 200
    assert TINY["base"] == "pid_p_vs_pd"


def test_the_folder_copy_keeps_a_usable_base(tmp_path: Path, monkeypatch) -> None:
    """The output folder's ``sweep.yaml`` names its base scenario so that it resolves
    from the folder, wherever the command runs: a file as an absolute path, a shipped
    scenario by its name; the folder then re-opens and resumes from anywhere."""
    from robotsim.sweep import load_sweep, run_sweep

    scen = tmp_path / "mine" / "scenarios"
    scen.mkdir(parents=True)
    base = scen / "pd.yaml"
    base.write_text((shipped_dir("scenario") / "pid_p_vs_pd.yaml").read_text())
    sweeps = tmp_path / "mine" / "sweeps"
    sweeps.mkdir()
    params = {"kd": {"path": "robots.1.controller.gains.x.kd", "values": [0.2]}}
    f = write_sweep(sweeps, "rel", base="../scenarios/pd.yaml", parameters=params,
                    set={"duration": 0.2})  # fmt: skip
    out = tmp_path / "results" / "rel"
    assert run_sweep(f, out, workers=1).ok == 1
    copy = (out / "sweep.yaml").read_text()
    assert "# as written: ../scenarios/pd.yaml" in copy and copy.count("\nbase:") == 1
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_sweep(out / "sweep.yaml").base_path == base.resolve()
    again = run_sweep(out / "sweep.yaml", out, resume=True)
    assert (again.skipped, again.ok, again.failed) == (1, 0, 0)

    shipped = write_sweep(sweeps, "named", parameters=params, set={"duration": 0.2})
    from robotsim.sweep.engine import _write_sweep_copy

    _write_sweep_copy(load_sweep(shipped), tmp_path / "named.yaml")
    assert (tmp_path / "named.yaml").read_text() == shipped.read_text()  # a name stays
