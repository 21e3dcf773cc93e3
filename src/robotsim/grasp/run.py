"""Grasp trials of one robot, hand and object: what ``robotsim grasp`` runs.

:func:`grasp_trials` loads the robot's hands from its profile, places a table the arm
reaches (:func:`robotsim.grasp.setup.place_table`, or the one given), compiles the scene
once and runs ``trials`` trials (:class:`robotsim.grasp.execute.GraspWorld`), each from
its own random drop (seeded: the same seed gives the same trials). The summary
(``summary.json``):

- ``trials``, ``successes``, ``success_rate``, ``mean_plan_s``, ``trials_per_s`` (wall,
  plan and physics), ``robot``, ``hand`` (what the planner measured of it), ``object``
  (sizes, mass and where they came from, collision pieces, warnings), ``table``;
- ``results``: per trial ``success``, ``lifted_m``, ``slip_m``, ``plan_s``, ``sim_s``,
  ``reason`` when it failed, the ``grasp`` (GWS margin, weights held, approach
  direction, contacts);
- ``criteria``: the success thresholds (lifted >= 0.1 m, slip <= 1 cm over a 2 s hold).

A recording goes to the run store (``runs.sqlite`` in the output folder, or ``db``): per
trial the object's position, lift and phase every 50 ms on one time line, and the
events (``trial``, ``touch``, ``grasp``, ``held``/``dropped``, ``result`` with the
numbers). ``grasps.png`` draws each trial's object, contacts and approach.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.errors import InputError
from robotsim.grasp.execute import GraspWorld, TrialOptions, TrialResult
from robotsim.grasp.hand import GraspHand, grasp_hands, pick_hand
from robotsim.grasp.planner import Planner, PlanOptions
from robotsim.hands.contact import BoxObstacle
from robotsim.objects.load import GraspObject, load_object

__all__ = ["GraspRun", "grasp_trials", "prepare"]

MAX_TRIALS = 10_000
SIGNALS = ("object_x", "object_y", "object_z", "lifted", "phase")


class GraspRun:
    """A prepared robot, hand, object and table (compiled once), ready for trials."""

    def __init__(
        self,
        hand: GraspHand,
        obj: GraspObject,
        table: BoxObstacle,
        T_world_base: np.ndarray,
        world: GraspWorld,
        others: list[str],
    ) -> None:
        self.hand, self.obj, self.table, self.T_world_base = hand, obj, table, T_world_base
        self.world, self.others = world, others

    def summary_head(self) -> dict[str, Any]:
        t = self.table
        return {
            "robot": self.hand.model.name,
            "hand": self.hand.describe(),
            "object": self.obj.describe(),
            "table": {"center": list(t.center), "size": list(t.size)},
        }


def prepare(
    robot: Any,
    obj: Any,
    hand: str | None = None,
    table: BoxObstacle | None = None,
    T_world_base: np.ndarray | None = None,
    plan_options: PlanOptions | None = None,
    trial_options: TrialOptions | None = None,
) -> GraspRun:
    """Load (a robot name/path or RobotModel; an object spec, text or GraspObject),
    pick the hand, place the table and compile the scene."""
    from robotsim.grasp.setup import place_table
    from robotsim.model.loader import load_robot
    from robotsim.model.robot import RobotModel

    model = robot if isinstance(robot, RobotModel) else load_robot(str(robot))
    hands = grasp_hands(model)
    h = pick_hand(hands, hand)
    g = obj if isinstance(obj, GraspObject) else load_object(obj)
    Tb = np.eye(4) if T_world_base is None else np.asarray(T_world_base, float)
    tab = table if table is not None else place_table(h, Tb).table
    others = [x.arm_joints[0] for x in hands.values() if x.name != h.name]
    planner = Planner(h, Tb, (tab,), other_arms=others, options=plan_options)
    o = trial_options or TrialOptions()
    spread = float(np.max(g.extents))
    margin = float(min(max(o.margin, 0.5 * spread), 0.35 * min(tab.size[:2])))
    from dataclasses import replace

    world = GraspWorld(h, g, Tb, (tab,), planner, replace(o, margin=margin))
    return GraspRun(h, g, tab, Tb, world, others)


def _check_trials(trials: int) -> None:
    if not (1 <= int(trials) <= MAX_TRIALS):
        raise InputError(f"trials must be 1 .. {MAX_TRIALS}, got {trials}")


def grasp_trials(
    run: GraspRun,
    trials: int = 10,
    seed: int = 0,
    recorder: Any = None,
    progress: Any = None,
) -> tuple[dict[str, Any], list[TrialResult]]:
    """Run ``trials`` trials (module docstring); returns the summary and the results."""
    _check_trials(trials)
    rng = np.random.default_rng(seed)
    results: list[TrialResult] = []
    t_line = 0.0
    wall = time.perf_counter()
    for k in range(int(trials)):
        r = run.world.trial(rng)
        results.append(r)
        if recorder is not None:
            _record(recorder, k, r, t_line)
        t_line += max(r.sim_time, 0.0) + 0.1
        if progress is not None:
            progress(k + 1, int(trials))
    wall = time.perf_counter() - wall
    o = run.world.o
    per = []
    for k, r in enumerate(results):
        row = {"trial": k, **r.summary()}
        per.append(row)
    n_ok = sum(r.success for r in results)
    plan_times = [r.plan_s for r in results]
    summary: dict[str, Any] = {
        **run.summary_head(),
        "trials": len(results),
        "successes": n_ok,
        "success_rate": n_ok / len(results),
        "mean_plan_s": float(np.mean(plan_times)),
        "trials_per_s": len(results) / wall if wall > 0 else None,
        "sim_time": float(sum(max(r.sim_time, 0.0) for r in results)),
        "seed": int(seed),
        "criteria": {"lifted_m": o.lift_success, "max_slip_m": o.max_slip, "hold_s": o.hold},
        "reasons": _reasons(results),
        "results": per,
    }
    return summary, results


def _reasons(results: list[TrialResult]) -> dict[str, int]:
    """How many failed trials per kind of reason (the reason's words before ':')."""
    out: dict[str, int] = {}
    for r in results:
        if r.reason:
            key = r.reason.split(":")[0].split(";")[0].split("(")[0].strip()
            out[key] = out.get(key, 0) + 1
    return out


def _record(recorder: Any, k: int, r: TrialResult, t0: float) -> None:
    recorder.event(t0, "trial", None, {"trial": k})
    for t, kind, detail in r.events:
        recorder.event(t0 + t, kind, None, {"trial": k, **({"detail": detail} if detail else {})})
    for row in r.trace:
        recorder.signal("object", t0 + float(row[0]), SIGNALS, row[1:])
    data = {"trial": k, "success": r.success, "lifted_m": r.lifted_m, "slip_m": r.slip_m}
    if r.reason:
        data["reason"] = r.reason
    recorder.event(t0 + max(r.sim_time, 0.0), "result", None, data)


def write_outputs(out_dir: str | Path, summary: dict[str, Any], run: GraspRun,
                  results: list[TrialResult]) -> dict[str, str]:  # fmt: skip
    """``summary.json`` (strict JSON) and ``grasps.png`` in ``out_dir``."""
    from robotsim.atomic import write_text_atomic
    from robotsim.jsonable import to_jsonable
    from robotsim.plots import save_grasps

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    png = out / "grasps.png"
    panels = []
    for k, r in enumerate(results[:12]):
        panels.append({
            "T": r.T_rest, "success": r.success,
            "contacts": None if r.plan.contacts is None else np.asarray(r.plan.contacts),
            "approach": None if r.plan.approach is None else np.asarray(r.plan.approach),
            "label": f"trial {k}: " + ("held" if r.success else "failed")
                     + (f", lifted {r.lifted_m:.2f} m, slip {r.slip_m * 1000:.1f} mm"
                        if r.plan.ok else ""),
        })  # fmt: skip
    v, f = run.obj.surface
    save_grasps(png, (np.asarray(v), np.asarray(f)), panels, run.table,
                f"{summary['robot']} / {summary['hand']['name']} / {run.obj.name}: "
                f"{summary['successes']} of {summary['trials']} held")  # fmt: skip
    files = {"summary": str(out / "summary.json"), "png": str(png)}
    summary["outputs"] = {"summary": "summary.json", "png": "grasps.png"}
    write_text_atomic(
        out / "summary.json", json.dumps(to_jsonable(summary), indent=2, allow_nan=False)
    )
    return files
