"""``plan_scenario``: a clearance scenario file in, the planned files out (what
``robotsim plan`` and the studio call)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robotsim.clearance.scenario import load_scenario, model_target
from robotsim.errors import ScenarioError
from robotsim.plan.report import write_plan
from robotsim.plan.solve import Method, PlanResult, plan
from robotsim.scenario_yaml import read_scenario_yaml

__all__ = ["plan_scenario"]


def plan_scenario(
    scenario: str | Path,
    out_dir: str | Path,
    *,
    method: Method = "auto",
    margin: float = 0.02,
    robot: str | None = None,
    budget_s: float = 30.0,
    dt: float | None = None,
    seed: int = 0,
    plots: bool = True,
    store: str | Path | None = None,
) -> tuple[PlanResult, dict[str, Any], dict[str, Path]]:
    """Plan a ``kind: clearance`` file (a path or a shipped name) and write the planned
    scenario, the curves and ``summary.json`` into ``out_dir``; with ``store`` (a run
    store: folder, file or URL) also record the planned study there as a run that
    replays in 3D (:func:`robotsim.clearance.record.record_study`; its id is
    ``summary["run_id"]``). Returns the plan, the summary (verdict from the written
    file) and the paths."""
    doc = read_scenario_yaml(scenario)
    if doc.get("kind", "clearance") != "clearance" and doc.get("format") != "robotsim-clearance/1":
        raise ScenarioError(
            f"{scenario}: kind: {doc.get('kind')} is not a clearance study; "
            "robotsim plan reads kind: clearance files"
        )
    sc = load_scenario(scenario)
    # the planned file lives in out_dir: robot files named relative to the scenario's
    # folder (or the working directory) are written as absolute paths
    source = _source_path(scenario)
    for r in doc.get("robots") or []:
        if isinstance(r, dict) and isinstance(r.get("model"), str):
            target = Path(model_target(r["model"], source))
            if target.suffix and target.is_file():
                r["model"] = str(target.resolve())
    step = sc.dt if dt is None else dt
    result = plan(
        sc.scene,
        sc.trajectories,
        step,
        method=method,
        margin=margin,
        robot=robot,
        budget_s=budget_s,
        seed=seed,
    )
    summary, paths = write_plan(result, doc, out_dir, step, plots=plots)
    if store is not None:
        summary["run_id"] = _record_planned(paths["scenario"], store, step, scenario, summary)
    return result, summary, paths


def _record_planned(
    planned: Path, store: str | Path, dt: float, source: str | Path, summary: dict[str, Any]
) -> int | None:
    """The planned scenario's study, recorded into ``store``; returns the run's id."""
    from robotsim.clearance.record import record_study
    from robotsim.run_io import RunOptions, recorded_run

    written = load_scenario(planned)
    meta = {"kind": "clearance", "file": str(planned), "planned_from": str(source), "dt": dt,
            "method": summary.get("method"), "margin": summary.get("margin_m")}  # fmt: skip
    name = f"plan {Path(str(source)).stem}"
    with recorded_run(RunOptions(db=str(store)), name, meta) as recorder:
        record_study(recorder, written.scene, written.trajectories, dt,
                     t_end=written.t_end, cutoff=written.cutoff)  # fmt: skip
        return getattr(recorder, "run_id", None)


def _source_path(scenario: str | Path) -> Path | None:
    """The scenario file behind ``scenario`` (a path or a shipped name), or None."""
    from robotsim.shipped import resolve

    try:
        return Path(resolve(scenario, "scenario"))
    except ScenarioError:  # not a file nor a shipped name: load_scenario said so
        return None
