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
) -> tuple[PlanResult, dict[str, Any], dict[str, Path]]:
    """Plan a ``kind: clearance`` file (a path or a shipped name) and write the planned
    scenario, the curves and ``summary.json`` into ``out_dir``. Returns the plan, the
    summary (verdict from the written file) and the paths."""
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
    return result, summary, paths


def _source_path(scenario: str | Path) -> Path | None:
    """The scenario file behind ``scenario`` (a path or a shipped name), or None."""
    from robotsim.shipped import resolve

    try:
        return Path(resolve(scenario, "scenario"))
    except ScenarioError:  # not a file nor a shipped name: load_scenario said so
        return None
