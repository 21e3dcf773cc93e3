"""The report of a sweep with an objective: convergence, importance, front, slices."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from robotsim.sweep.goals import goals_from_meta
from robotsim.sweep.report import write_report
from robotsim.sweep.report_goals import importances


def _folder(tmp_path: Path, objectives: list[dict], n: int = 30) -> Path:
    """A sweep folder written by hand: y depends on a only (b is noise-free filler)."""
    rng = np.random.default_rng(0)
    meta = {"id": "syn-1", "name": "syn", "design": "optimize", "parameters": ["a", "b"],
            "metrics": ["y", "z"], "success": None, "objectives": objectives,
            "constraints": ["z <= 0.8"], "repeats": 1}  # fmt: skip
    (tmp_path / "sweep.json").write_text(json.dumps(meta))
    with (tmp_path / "runs.jsonl").open("w") as fh:
        for i in range(n):
            a, b = rng.uniform(0, 1, 2)
            row = {"run_key": f"t{i:05d}-r0", "point": i, "repeat": 0, "trial": i,
                   "a": a, "b": b, "y": (a - 0.3) ** 2, "z": b, "status": "ok",
                   "error": None, "run_id": i + 1, "wall_time_s": 1.0, "worker": "w"}  # fmt: skip
            fh.write(json.dumps(row) + "\n")
    return tmp_path


def test_importance_puts_the_parameter_that_matters_first(tmp_path: Path) -> None:
    folder = _folder(tmp_path, [{"metric": "y", "goal": "minimize"}])
    from robotsim.sweep.results import read_meta, table_rows

    meta = read_meta(folder)
    imp = importances(table_rows(folder, meta), ["a", "b"], goals_from_meta(meta))
    assert imp is not None and set(imp["y"]) == {"a", "b"}
    assert sum(imp["y"].values()) == 1.0 or abs(sum(imp["y"].values()) - 1.0) < 1e-9
    assert imp["y"]["a"] > 0.8 > imp["y"]["b"]


def test_the_report_draws_convergence_importance_slices_and_names_the_best(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path, [{"metric": "y", "goal": "minimize"}])
    rep = write_report(folder)
    names = {Path(f).name for f in rep["figures"]}
    assert {"convergence.png", "importance.png", "slice_a.png", "slice_b.png"} <= names
    rows = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    feasible = [r for r in rows if r["z"] <= 0.8]
    best = min(feasible, key=lambda r: r["y"])
    assert [b["run_key"] for b in rep["goals"]["best"]] == [best["run_key"]]
    assert rep["goals"]["feasible"] == len(feasible) and rep["goals"]["trials"] == len(rows)


def test_two_objectives_draw_the_front(tmp_path: Path) -> None:
    folder = _folder(tmp_path, [{"metric": "y", "goal": "minimize"},
                                {"metric": "z", "goal": "maximize"}])  # fmt: skip
    rep = write_report(folder)
    assert any(f.endswith("pareto_front.png") for f in rep["figures"])
    front = rep["goals"]["best"]
    assert front and all(r["z"] <= 0.8 for r in front)
