"""``robotsim bench walk``: the walk pattern generator's and the physics walk's speed,
and what the walk withstands (docs/walk.md).

- ``pattern_rtf``: simulated seconds of humanoid17's 5 m walk (footsteps, ZMP preview
  control, swing feet, whole-body IK every 10 ms) per second of this thread's CPU (one
  core, what an otherwise idle core gives; ``_wall``: per wall second), median of repeats;
  target >= 100;
- ``physics_walk_rtf``: humanoid17 walking 2 m in MuJoCo with balance feedback and
  re-anchoring (measure, stabilise, whole-body IK, servos, 2 ms physics steps), simulated
  seconds per second of CPU (one core); target >= 5; ``_wall`` per wall second;
- robustness (not with ``--quick``): the largest lateral and frontal push survived
  mid-stride (N s over 0.1 s; the issue's aim: half the mass x 0.1 m/s), the walk up
  and down a 5 deg slope at 0.55 leg lengths/s, a floor friction sweep;
- peers: Rhoban's ``placo`` (when installed): its walk pattern generator and kinematics
  solver on humanoid17 (exported to URDF, frames renamed to its conventions), the same
  steps, per CPU second.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path
from typing import Any

from robotsim.bench.timing import median_time

__all__ = ["run"]


def _pattern(quick: bool) -> dict[str, Any]:
    from robotsim.model import load_robot
    from robotsim.walk.biped import biped_of
    from robotsim.walk.pattern import generate_walk

    b = biped_of(load_robot("humanoid17"))
    pat = generate_walk(b, 5.0)  # warm-up: compiles the kernels
    rep = 3 if quick else 5
    wall = median_time(lambda: generate_walk(b, 5.0), repeats=rep)
    cpu = median_time(lambda: generate_walk(b, 5.0), repeats=rep, clock=time.thread_time)
    return {
        "pattern_robot": b.name,
        "pattern_walk_s": pat.duration,
        "pattern_steps": len(pat.plan.steps),
        "pattern_rtf": pat.duration / cpu,
        "pattern_rtf_wall": pat.duration / wall,
        "pattern_max_foot_error_m": pat.summary()["max_foot_error_m"],
    }


def _physics(quick: bool) -> dict[str, Any]:
    from robotsim.model import load_robot
    from robotsim.walk.biped import biped_of
    from robotsim.walk.pattern import generate_walk
    from robotsim.walk.simulate import simulate_goal

    b = biped_of(load_robot("humanoid17"))
    pat = generate_walk(b, 2.0, speed=0.55 * b.leg_length)
    runs = [
        simulate_goal(b, pat.goal, pat.pairs, pat.params.as_params())
        for _ in range(1 if quick else 3)
    ]
    cpu = sorted(r.cpu_rtf for r in runs)
    wall = sorted(r.rtf for r in runs)
    s = runs[0].summary()
    return {
        "physics_walk_rtf": cpu[len(cpu) // 2],
        "physics_walk_rtf_wall": wall[len(wall) // 2],
        "physics_walk_fell": s["fell"],
        "physics_walk_distance_m": s["distance_m"],
        "physics_walk_speed_leg_lengths_s": s["mean_speed_leg_lengths_s"],
        "physics_timestep_s": s["timestep_s"],
        "control_dt_s": s["control_dt_s"],
        "threads": 1,
    }


def _robustness() -> dict[str, Any]:
    from robotsim.model import load_robot
    from robotsim.walk.biped import biped_of
    from robotsim.walk.robustness import friction_sweep, largest_push, slope_walk

    b = biped_of(load_robot("humanoid17"))
    lat = largest_push(b, "lateral")
    front = largest_push(b, "frontal")
    # at the physics walk's 0.55 leg lengths/s (the default, 0.69, is planned on the
    # slope too, and falls going down)
    slopes = [slope_walk(b, d, speed=0.55 * b.leg_length) for d in (5.0, -5.0)]
    sweep = friction_sweep(b)
    walked = [r["friction"] for r in sweep if not r["fell"]]
    return {
        "robustness_robot": b.name,
        "mass_kg": b.mass,
        "push_target_ns": 0.5 * b.mass * 0.1,
        "push_lateral_ns": lat.survived_ns,
        "push_lateral_fell_ns": lat.fell_ns,
        "push_frontal_ns": front.survived_ns,
        "push_frontal_fell_ns": front.fell_ns,
        "slope_up_5deg": {k: slopes[0][k] for k in ("fell", "distance_m", "max_tilt_deg")},
        "slope_down_5deg": {k: slopes[1][k] for k in ("fell", "distance_m", "max_tilt_deg")},
        "friction_sweep": sweep,
        "min_friction_walked": min(walked) if walked else None,
    }


def _placo(quick: bool) -> dict[str, Any] | None:
    """Placo's pattern + kinematics on humanoid17, or None when it is not installed."""
    try:
        import placo
    except ImportError:
        return None
    from robotsim.model import load_robot
    from robotsim.model.urdf_export import to_urdf_string
    from robotsim.walk.biped import biped_of
    from robotsim.walk.params import resolve_params

    model = load_robot("humanoid17")
    b = biped_of(model)
    res = resolve_params(b)
    text = to_urdf_string(model)
    ren = {"left_foot": "left_foot_link", "right_foot": "right_foot_link",
           "left_sole": "left_foot", "right_sole": "right_foot", "body": "trunk"}  # fmt: skip
    for old in ("left_foot", "right_foot"):
        text = text.replace(f'"{old}"', f'"{ren[old]}"')
    for old in ("left_sole", "right_sole", "body"):
        text = text.replace(f'"{old}"', f'"{ren[old]}"')
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "robot.urdf"
        path.write_text(text)
        robot = placo.HumanoidRobot(str(path))
    p = placo.HumanoidParameters()
    p.single_support_duration = res.t_single
    p.single_support_timesteps = 10
    p.double_support_ratio = res.double_support / (1 - res.double_support)
    p.startend_double_support_ratio = 1.5
    p.planned_timesteps = 48
    p.walk_com_height = res.com_height
    p.walk_foot_height = res.step_height
    p.walk_trunk_pitch = 0.0
    p.walk_foot_rise_ratio = 0.2
    p.foot_length = b.foot_length
    p.foot_width = b.foot_width
    p.feet_spacing = 2 * b.half_width
    p.zmp_margin = 0.01
    p.walk_max_dx_forward = res.max_step_length
    p.walk_max_dx_backward = res.max_step_length / 2
    p.walk_max_dy = res.max_step_side
    p.walk_max_dtheta = 0.3
    steps = 2 * math.ceil(5.0 / (2 * res.max_step_length * 0.75))

    def once() -> float:
        solver = placo.KinematicsSolver(robot)
        solver.dt = res.dt
        tasks = placo.WalkTasks()
        tasks.initialize_tasks(solver, robot)
        walk = placo.WalkPatternGenerator(robot, p)
        rep = placo.FootstepsPlannerRepetitive(p)
        rep.configure(0.75 * res.max_step_length, 0.0, 0.0, steps)
        fs = rep.plan(placo.HumanoidRobot_Side.left, robot.get_T_world_left(),
                      robot.get_T_world_right())  # fmt: skip
        supports = placo.FootstepsPlanner.make_supports(fs, 0.0, True, p.has_double_support(), True)
        traj = walk.plan(supports, robot.com_world(), 0.0)
        t = 0.0
        while t < traj.t_end:
            tasks.update_tasks_from_trajectory(traj, t)
            robot.update_kinematics()
            solver.solve(True)
            t += res.dt
        return float(traj.t_end)

    duration = once()
    cpu = median_time(once, repeats=3 if quick else 5, clock=time.thread_time)
    return {
        "placo_version": getattr(placo, "__version__", None),
        "placo_walk_s": duration,
        "placo_steps": steps,
        "placo_pattern_rtf": duration / cpu,
        "note": "placo's WalkPatternGenerator (its own footsteps, LIPM and swing) and "
        "KinematicsSolver on humanoid17 with the same step sizes and timing",
    }


def run(quick: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {**_pattern(quick), **_physics(quick)}
    out["robustness"] = None if quick else _robustness()
    try:
        peer = _placo(quick)
    except Exception as exc:  # a peer that fails does not fail the benchmark
        peer = {"error": f"{type(exc).__name__}: {exc}"}
    out["peers"] = {"placo": peer} if peer is not None else {}
    out["targets"] = {"pattern_rtf": 100, "physics_walk_rtf": 5}
    return out
