"""The studio opens a sweep folder and replays any of its runs; motion_check files open
their program's robot."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.sweep.tiny import write_sweep

from robotsim.errors import InputError
from robotsim.shipped import shipped_dir
from robotsim.studio.scenarios import open_scenario
from robotsim.studio.sweep.opener import open_sweep_run
from robotsim.sweep.engine import _prepare_dir, load_sweep
from robotsim.sweep.results import ResultsLog
from robotsim.sweep.worker import SweepJob, run_one

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sweep folder with its first two runs finished (run in this process)."""
    tmp = tmp_path_factory.mktemp("sweep")
    f = write_sweep(
        tmp,
        "starts",
        parameters={"x0": {"path": "robots.0.start.0", "values": [-9.0, -7.0, -5.0]}},
        set={"duration": 0.1},
    )
    sw = load_sweep(f)
    out = tmp / "out"
    meta = _prepare_dir(sw, out, False, None)
    job = SweepJob(meta["id"], sw.base_data, str(sw.base_path), dict(sw.spec.metrics))
    log = ResultsLog(out)
    for task in sw.tasks[:2]:
        assert run_one(job, task)["status"] == "ok"
        log.append(run_one(job, task))
    log.close()
    return out


def test_a_sweep_run_opens_with_its_parameters(studio, sweep_dir: Path) -> None:  # type: ignore[no-untyped-def]
    shown = open_sweep_run(studio, sweep_dir, "p00001-r0")
    assert shown.startswith("sweep starts run p00001-r0 (x0=-7): scenario pid_p_vs_pd")
    assert set(studio.robot_names()) == {"P", "PD"}
    assert studio.robots["P"].initial_T_world_root[0, 3] == pytest.approx(-7.0)
    assert studio.robots["PD"].initial_T_world_root[0, 3] == pytest.approx(-9.0)
    with pytest.raises(InputError, match="no run 'p00009-r0'"):
        open_sweep_run(studio, sweep_dir, "p00009-r0")
    with pytest.raises(InputError, match="not a sweep folder"):
        open_sweep_run(studio, sweep_dir.parent, "p00000-r0")


def test_opening_the_folder_sweep_file_replays_its_first_run(studio, sweep_dir: Path) -> None:  # type: ignore[no-untyped-def]
    shown = open_scenario(studio, sweep_dir / "sweep.yaml")
    assert "run p00000-r0 (x0=-9)" in shown
    assert studio.robots["P"].initial_T_world_root[0, 3] == pytest.approx(-9.0)


def test_a_motion_check_file_opens_its_robot(studio) -> None:  # type: ignore[no-untyped-def]
    shown = open_scenario(studio, shipped_dir("scenario") / "walk_forward_check.yaml")
    assert "motion_check: walk_forward" in shown
    assert studio.robot_names() == ("humanoid17",)


def test_the_sweep_tab_picks_any_run_and_replays_it(studio, sweep_dir: Path) -> None:  # type: ignore[no-untyped-def]
    from robotsim.studio.sweep.panel import SweepPanel

    panel = studio.panels["sweep"]
    assert isinstance(panel, SweepPanel)
    studio.open(sweep_dir / "sweep.yaml")  # the Open tab's way: the tab follows
    assert [c.key for c in panel.choices.values()] == ["p00000-r0", "p00001-r0", "p00002-r0"]
    assert [c.status for c in panel.choices.values()] == ["ok", "ok", "not run"]
    assert panel.run.value.startswith("p00000-r0 · x0=-9 · ok · path_length=")
    assert "2 finished" in panel.header.content and "path_length:" in panel.detail.content
    shown = panel.replay("p00002-r0")  # a run the folder has not run yet opens too
    assert "run p00002-r0 (x0=-5)" in shown and panel.run.value.startswith("p00002-r0")
    assert studio.robots["P"].initial_T_world_root[0, 3] == pytest.approx(-5.0)
    assert panel.file == (sweep_dir / "sweep.yaml").resolve()  # replaying keeps the list

    other = write_sweep(sweep_dir.parent, "loose", set={"duration": 0.1})  # not a folder
    listed = panel.show(other)
    assert len(listed) == 4 and {c.status for c in listed} == {"not run"}
    assert "run p00003-r0 (kp=3, kd=0.4)" in panel.replay("p00003-r0")
    with pytest.raises(InputError, match="neither a sweep folder nor a sweep file"):
        panel.show(sweep_dir / "nothing")


@pytest.fixture(scope="module")
def optimized(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An optimiser's sweep folder (4 trials of a fraction of a second, in this process)."""
    from robotsim.sweep import run_sweep

    tmp = tmp_path_factory.mktemp("optimized")
    f = write_sweep(
        tmp,
        "opt",
        set={"duration": 0.2},
        design="optimize",
        parameters={"x0": {"path": "robots.1.start.0", "range": {"start": -9.0, "stop": -7.0}}},
        metrics={"x": "robots.PD.final_pose.0"},
        success=None,
        objective={"metric": "x", "goal": "maximize"},
        budget={"runs": 3},
    )
    run_sweep(f, tmp / "out", cluster="inline")
    return tmp / "out"


def test_the_sweep_tab_shows_the_best_run_live_and_opens_it(studio, optimized: Path) -> None:  # type: ignore[no-untyped-def]
    import json

    from robotsim.studio.sweep.panel import SweepPanel
    from robotsim.sweep import read_rows

    panel = studio.panels["sweep"]
    assert isinstance(panel, SweepPanel)
    panel.show(optimized)
    rows = read_rows(optimized)
    best = max(rows.values(), key=lambda r: r["x"])
    assert panel.best == (best["run_key"],)
    assert f"**best** {best['run_key']}: x0=" in panel.goals.content
    assert "3 of 3 trials feasible" in panel.goals.content
    assert panel.plot.visible and panel.best_button.visible
    # the plots of `robotsim sweep report`, one at a time (importance: 4+ feasible trials)
    assert panel.figure.options == ("convergence", "slice_x0")
    assert panel.plot.image is panel.images["convergence"]
    panel.figure.value = "slice_x0"
    panel.show_goals()  # a redraw keeps the plot chosen
    assert panel.figure.value == "slice_x0" and panel.plot.image is panel.images["slice_x0"]
    shown = panel.open_best()
    assert f"run {best['run_key']}" in shown
    assert studio.robots["PD"].initial_T_world_root[0, 3] == pytest.approx(best["x0"])
    # the folder grows (an optimiser still running): the tab follows on its next look
    extra = {**best, "run_key": "t00009-r0", "point": 9, "trial": 9, "x": best["x"] + 1.0}
    with (optimized / "runs.jsonl").open("a") as fh:
        fh.write(json.dumps(extra) + "\n")
    panel._live()  # what the 1 s poll runs in its thread
    assert panel.best == ("t00009-r0",) and "4 of 4 trials feasible" in panel.goals.content
    assert panel.figure.options == ("convergence", "importance", "slice_x0")
    assert panel.images["importance"].shape[1] == 480 and panel.figure.value == "slice_x0"
    assert any(c.key == "t00009-r0" for c in panel.choices.values())


def test_the_goal_view_of_two_objectives_draws_the_front(tmp_path: Path) -> None:
    import json

    import numpy as np

    from robotsim.studio.sweep.panel import goal_view

    meta = {"id": "syn-1", "name": "syn", "design": "optimize", "parameters": ["a", "b"],
            "metrics": ["y", "z"], "success": None, "constraints": ["z <= 0.8"], "repeats": 1,
            "objectives": [{"metric": "y", "goal": "minimize"},
                           {"metric": "z", "goal": "maximize"}]}  # fmt: skip
    (tmp_path / "sweep.json").write_text(json.dumps(meta))
    rng = np.random.default_rng(0)
    with (tmp_path / "runs.jsonl").open("w") as fh:
        for i in range(12):
            a, b = rng.uniform(0, 1, 2)
            row = {"run_key": f"t{i:05d}-r0", "point": i, "repeat": 0, "trial": i, "a": a,
                   "b": b, "y": (a - 0.3) ** 2, "z": b, "status": "ok", "error": None,
                   "run_id": i + 1, "wall_time_s": 1.0, "worker": "w"}  # fmt: skip
            fh.write(json.dumps(row) + "\n")
    view = goal_view(tmp_path)
    assert view is not None
    assert list(view.images) == ["convergence", "importance", "pareto_front", "slice_a", "slice_b"]
    assert all(im.shape[1] == 480 and im.shape[2] == 3 for im in view.images.values())
    assert view.text.splitlines()[0].endswith(" of 12 trials feasible")
    assert f"**Pareto front ({len(view.best)})**" in view.text and view.best
