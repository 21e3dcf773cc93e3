"""What a mobile run reports: the summary (per-robot results beside the paper's
numbers), the top-down map, the step responses; :func:`write_outputs` writes them."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from robotsim.jsonable import dumps as json_dumps
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Sphere

if TYPE_CHECKING:
    from robotsim.mobile.types import RunView

__all__ = [
    "final_objects",
    "responses",
    "run_summary",
    "servo_positions",
    "trajectories",
    "write_outputs",
]


def write_outputs(
    run: RunView, summary: dict[str, Any], out_dir: str | Path, recorder: Any = None
) -> None:
    """Write ``summary.json`` (with its ``outputs`` listed), ``map.png`` (always) and
    the plots the file asks for into ``out_dir``."""

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from robotsim import plots

    outputs = {"summary": "summary.json", "map": "map.png"}  # the map always
    plots.save_map(
        out / "map.png",
        run.sc.field.size,
        run.obstacles,
        trajectories(run),
        title=f"{run.sc.name} (seed {run.seed})",
        markings=run.sc.field.markings,
        objects=final_objects(run),
        overlay=None if run.formation is None else run.formation.draw,
    )
    if run.formation is not None:
        run.formation.save_plot(out / "formation.png", [rb.name for rb in run.robots])
        outputs["formation"] = "formation.png"
    if "response" in run.sc.plots:
        plots.save_responses(out / "response.png", responses(run))
        outputs["response"] = "response.png"
    if recorder is not None and hasattr(recorder, "signals_path"):
        outputs["recording"] = Path(recorder.signals_path).name
        outputs["events"] = Path(recorder.events_path).name
    summary["outputs"] = outputs
    (out / "summary.json").write_text(json_dumps(summary, indent=2))


def trajectories(run: RunView) -> list[dict[str, Any]]:
    """Every robot's sampled path with its start, goal and footprint, as the map draws
    them (a run too long to hold: the path's envelope, :mod:`robotsim.mobile.poselog`)."""
    out = []
    for i, rb in enumerate(run.robots):
        out.append(
            {
                "name": rb.name,
                "xy": run.poses.path(i),
                "start": rb.start,
                "goal": rb.goal,
                "radius": rb.radius,
                "tolerance": rb.spec.controller.tolerance.position,
                "color": rb.spec.color,
            }
        )
    return out


def final_objects(run: RunView) -> list[dict[str, Any]]:
    """Scene objects at their final poses, as the map draws them."""
    out: list[dict[str, Any]] = []
    names = {o.name for o in run.sc.objects}
    for b in run.scene.bodies:
        if b.name not in names:
            continue
        T = run.world.body(b.name).pose
        ob: dict[str, Any] = {"name": b.name, "xy": (float(T[0, 3]), float(T[1, 3]))}
        g = b.shape
        if isinstance(g, Box):
            ob.update(size=(g.size[0], g.size[1]), yaw=math.atan2(T[1, 0], T[0, 0]))
        elif isinstance(g, Sphere | Cylinder | Capsule):
            ob["radius"] = g.radius
        elif isinstance(g, Ellipsoid):
            ob["radius"] = max(g.radii[:2])
        else:
            ob["radius"] = 0.2
        out.append(ob)
    return out


def responses(run: RunView) -> list[dict[str, Any]]:
    """Every robot's normalised step response (the paper's figure 5; a run too long to
    hold: its envelope)."""
    out = []
    for i, rb in enumerate(run.robots):
        t, response = run.poses.response(i)
        out.append(
            {
                "name": rb.name,
                "t": t,
                "response": response,
                "time_to_goal": run.reached_at[i],
            }
        )
    return out


def servo_positions(run: RunView) -> dict[str, dict[str, float]]:
    """Per robot, the joints with position servos (not the wheels) at the run's end,
    in the file's units (deg or rad for hinges, m for sliders)."""
    deg = run.sc.units.angle == "deg"
    out: dict[str, dict[str, float]] = {}
    for p in run.scene.robots:
        joints = {}
        for jn, m in p.motors.items():
            if m.kind != "position":
                continue
            q = run.world.joint(f"{p.name}/{jn}").q
            hinge = p.model.joint(jn).type.value != "prismatic"
            joints[jn] = math.degrees(q) if hinge and deg else q
        if joints:
            out[p.name] = joints
    return out


def run_summary(run: RunView, source: str, duration: float | None) -> dict[str, Any]:
    """The run's ``summary.json`` content (per-robot results, the paper's numbers)."""
    sc = run.sc
    sim_time = run.world.time
    summary: dict[str, Any] = {
        "scenario": sc.name,
        "kind": sc.kind,
        "file": source,
        "seed": run.seed,
        "duration": sc.duration if duration is None else duration,
        "sim_time": sim_time,
        "wall_time_s": run.wall_time,
        "real_time_factor": sim_time / run.wall_time if run.wall_time > 0 else None,
        "timestep": run.world.timestep,
        "control_rate": 1.0 / run.tick,
        "obstacles": [[float(x), float(y), float(2 * r)] for x, y, r in run.obstacles],
        "robots": run.results(),
    }
    for name, joints in servo_positions(run).items():
        summary["robots"].setdefault(name, {})["joints"] = joints
    if run.formation is not None:
        names = [rb.name for rb in run.robots]
        summary["formation"] = run.formation.summary(names)
        summary["robot_collisions"] = run.robot_collisions()
    if sc.reference is not None:
        comp = {}
        for name, theirs in sc.reference.time_to_goal.items():
            ours = summary["robots"].get(name, {}).get("time_to_goal")
            comp[name] = {"ours_s": ours, "paper_s": theirs}
        summary["reference"] = {
            "source": sc.reference.source,
            "time_to_goal": comp,
            "notes": sc.reference.notes,
        }
    return summary
