"""design: optimize: real runs of the P vs PD scenario (a fraction of a second each) in
this process, an Optuna study beside the results, infeasible runs, --resume."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from robotsim.cli import main
from robotsim.sweep import read_rows, run_sweep
from robotsim.sweep.study import STUDY_FILE, SweepJournal
from tests.sweep.tiny import write_sweep

pytestmark = pytest.mark.slow  # a few dozen short physics runs

KP = ["robots.1.controller.gains.x.kp", "robots.1.controller.gains.y.kp"]
OPT = {
    "set": {"duration": 0.3},
    "design": "optimize",
    "parameters": {
        "kp": {"path": KP, "range": {"start": 0.5, "stop": 6.0}},
        "kd": {"path": "robots.1.controller.gains.x.kd", "range": {"start": 0.0, "stop": 1.6}},
    },
    "metrics": {"path_length": "robots.PD.path_length"},
    "success": None,
    "objective": {"metric": "path_length", "goal": "maximize"},
    "constraints": ["robots.PD.final_pose.0 <= -8.9"],
    "budget": {"runs": 5},
}


def _study(out: Path):  # type: ignore[no-untyped-def]
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    storage = JournalStorage(JournalFileBackend(str(out / STUDY_FILE)))  # Optuna's own reader
    return optuna.load_study(study_name="sweep", storage=storage)


def _table(out: Path) -> list[dict[str, str]]:
    with (out / "results.csv").open() as fh:
        return list(csv.DictReader(fh))


def test_tpe_spends_its_budget_and_the_table_carries_the_verdicts(tmp_path: Path) -> None:
    f = write_sweep(tmp_path, "opt", **OPT)
    out = tmp_path / "out"
    o = run_sweep(f, out, cluster="inline")
    assert (o.ok, o.failed, o.total) == (5, 0, 5)
    study = _study(out)
    assert [t.state.name for t in study.trials] == ["COMPLETE"] * 5
    table = _table(out)
    assert list(table[0])[:4] == ["run_key", "point", "repeat", "trial"]
    for c in ("feasible", "best_so_far", "pareto", "robots.PD.final_pose.0"):
        assert c in table[0]
    rows = list(read_rows(out).values())  # finishing order
    for r, t in zip(sorted(rows, key=lambda r: r["run_key"]), study.trials):
        assert r["kp"] == t.params["kp"] and r["kd"] == t.params["kd"]
        feasible = r["robots.PD.final_pose.0"] <= -8.9
        assert t.constraints["robots.PD.final_pose.0 <= -8.9"] == pytest.approx(
            max(0.0, r["robots.PD.final_pose.0"] + 8.9)
        )
        assert t.user_attrs["feasible"] is feasible
        assert t.values[0] == r["path_length"]
    feas = [r for r in table if r["feasible"] == "True"]
    best = max(float(r["path_length"]) for r in feas)
    assert [r["pareto"] for r in table].count("True") >= 1
    assert all(float(r["path_length"]) == best for r in table if r["pareto"] == "True")
    assert max(float(r["best_so_far"]) for r in table if r["best_so_far"]) == best


def test_failed_runs_are_infeasible_trials_not_a_crash(tmp_path: Path) -> None:
    params = {"duration": {"path": "duration", "values": [0.2, -0.2]},
              "kp": OPT["parameters"]["kp"]}  # fmt: skip
    f = write_sweep(tmp_path, "fail", **{**OPT, "parameters": params, "set": {},
                                          "sampler": "random", "budget": {"runs": 6}})  # fmt: skip
    out = tmp_path / "out"
    o = run_sweep(f, out, cluster="inline")
    assert o.ok + o.failed == 6 and o.failed >= 1 and o.ok >= 1
    study = _study(out)
    for t in study.trials:
        failed = t.params["duration"] < 0
        assert t.state.name == "COMPLETE"
        assert t.constraints["runs_ok"] == (1.0 if failed else 0.0)
        assert t.user_attrs["feasible"] is (not failed and t.user_attrs["feasible"])
        if failed:
            assert "failed" in t.user_attrs["reason"]
    assert all(r["feasible"] == "False" for r in _table(out) if r["status"] == "failed")


@pytest.mark.parametrize("sampler", ["grid-refine", "cmaes"])
def test_grid_refine_and_cmaes_run_within_their_budget(tmp_path: Path, sampler: str) -> None:
    opt = {**OPT, "sampler": sampler, "budget": {"runs": 7}}
    if sampler == "grid-refine":
        opt["parameters"] = {k: {**v, "range": {**v["range"], "num": 2}}
                             for k, v in OPT["parameters"].items()}  # fmt: skip
    f = write_sweep(tmp_path, "s", **opt)
    out = tmp_path / "out"
    o = run_sweep(f, out, cluster="inline")
    assert o.ok + o.failed == 7
    params = [(t.params["kp"], t.params["kd"]) for t in _study(out).trials]
    assert len(set(params)) == len(params)  # no point twice
    if sampler == "grid-refine":
        assert set(params[:4]) == {(0.5, 0.0), (0.5, 1.6), (6.0, 0.0), (6.0, 1.6)}


def test_two_objectives_with_nsga2_mark_a_pareto_front(tmp_path: Path) -> None:
    opt = {**OPT, "objective": [{"metric": "path_length", "goal": "maximize"},
                                {"metric": "robots.PD.final_pose.1", "goal": "minimize"}],
           "constraints": [], "budget": {"runs": 5}}  # fmt: skip
    f = write_sweep(tmp_path, "mo", **opt)
    out = tmp_path / "out"
    run_sweep(f, out, cluster="inline")
    study = _study(out)
    assert type(study.sampler).__name__ == "NSGAIISampler" or len(study.directions) == 2
    table = _table(out)
    front = [r for r in table if r["pareto"] == "True"]
    assert front and all(r["best_so_far"] == "" for r in table)
    pts = [(float(r["path_length"]), float(r["robots.PD.final_pose.1"])) for r in table]
    for r in front:  # nobody is at least as good in both and better in one
        a, b = float(r["path_length"]), float(r["robots.PD.final_pose.1"])
        assert not any(x >= a and y <= b and (x > a or y < b) for x, y in pts)


def test_resume_continues_the_study_and_reruns_a_cut_off_trial(tmp_path: Path) -> None:
    f = write_sweep(tmp_path, "res", **{**OPT, "budget": {"runs": 3}})
    out = tmp_path / "out"
    run_sweep(f, out, cluster="inline")
    import optuna  # a trial the driver asked for and never told (killed mid-run)
    from optuna.storages import JournalStorage

    journal = SweepJournal(out / STUDY_FILE)
    study = optuna.load_study(study_name="sweep", storage=JournalStorage(journal))
    cut = study.ask({"kp": optuna.distributions.FloatDistribution(0.5, 6.0),
                     "kd": optuna.distributions.FloatDistribution(0.0, 1.6)})  # fmt: skip
    journal.close()
    write_sweep(tmp_path, "res", **{**OPT, "budget": {"runs": 5}})
    o = run_sweep(f, out, cluster="inline", resume=True)
    assert (o.skipped, o.ok + o.failed) == (3, 2)
    trials = _study(out).trials
    assert trials[cut.number].state.name == "FAIL" and trials[cut.number].user_attrs["interrupted"]
    rerun = [t for t in trials if t.number > cut.number and t.params == cut.params]
    assert len(rerun) == 1 and rerun[0].state.name == "COMPLETE"
    assert len(read_rows(out)) == 5


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"objective": {"metric": "robots.PD.time_to_gaol"}},
         "objective.metric: 'robots.PD.time_to_gaol' is not in the summary of a mobile run "
         "(no 'time_to_gaol' in robots.PD"),
        ({"constraints": ["speed <= 2"]},
         "constraints.0: 'speed' is not in the summary of a mobile run"),
        ({"constraints": ["robots.PQ.overshoot <= 2"]}, "no 'PQ' in robots (keys there: P, PD)"),
        ({"budget": {}}, "budget: Value error, give runs: N and/or time"),
        ({"budget": None}, "budget: design optimize needs one"),
        ({"sampler": "cmaes", "budget": {"runs": 4}},
         "budget.runs: 4 is too few for one CMA-ES generation (6 trials"),
        ({"sampler": "grid-refine", "budget": {"runs": 8}},
         "budget.runs: 8 is too few for grid-refine's first grid (9 points"),
        ({"repeats": 3, "budget": {"runs": 2}}, "budget.runs: 2 runs cannot hold one trial"),
        ({"budget": {"time": 0}}, "budget.time: Input should be greater than 0"),
        ({"design": "grid", "budget": {"runs": 3}}, "budget: for design: optimize"),
        ({"objective": None, "constraints": []}, "objective: design optimize needs one"),
        ({"objective": None}, "constraints: they need an objective"),
        ({"constraints": ["x =< 2"]}, "constraints.0: 'x =< 2': write METRIC OP VALUE"),
        ({"objective": [{"metric": "path_length"}, {"metric": "robots.PD.overshoot"}],
          "sampler": "cmaes"}, "sampler: cmaes optimises one objective"),
    ],
)  # fmt: skip
def test_bad_optimize_files_are_one_line_errors_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: dict, expected: str
) -> None:
    f = write_sweep(tmp_path, "bad", **{**OPT, **changes})
    assert main(["sweep", str(f), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"error: {f}: ") and expected in err, err
    assert not (tmp_path / "out").exists()


def test_the_folder_copy_resumes_a_study_with_a_larger_budget(tmp_path: Path, monkeypatch) -> None:
    """``DIR/sweep.yaml`` (its base rewritten to an absolute path) resumes the study the
    original file started, from any folder; an edited base scenario is another design."""
    from robotsim.errors import InputError
    from robotsim.shipped import shipped_dir

    base = tmp_path / "pd.yaml"
    base.write_text((shipped_dir("scenario") / "pid_p_vs_pd.yaml").read_text())
    f = write_sweep(tmp_path, "copy", **{**OPT, "base": "pd.yaml", "budget": {"runs": 2}})
    out = tmp_path / "out"
    assert run_sweep(f, out, cluster="inline").ok == 2
    copy = out / "sweep.yaml"
    copy.write_text(copy.read_text().replace("runs: 2", "runs: 3"))
    monkeypatch.chdir(tmp_path.parent)
    o = run_sweep(copy, out, cluster="inline", resume=True)
    assert (o.skipped, o.ok + o.failed) == (2, 1) and len(_study(out).trials) == 3
    base.write_text(base.read_text() + "\n# a comment is no change\n")
    assert run_sweep(copy, out, cluster="inline", resume=True).skipped == 3
    base.write_text(base.read_text().replace("\nduration: 25", "\nduration: 24", 1))
    with pytest.raises(InputError, match="made from another design"):
        run_sweep(copy, out, cluster="inline", resume=True)
