"""``robotsim bench motion``: kinematic playback of the stored walk with support
switching (ticks per second, the paper's figure is about 33) and the physics check's
real-time factor (``walk_ticks_per_s_cpu``: from this thread's CPU time, what an
otherwise idle core would give): ``physics_check_rtf`` for the simulation loop (servo
targets, MuJoCo steps, fall test), ``physics_check_total_rtf`` including building the
MuJoCo model and the CoM/support-polygon analysis."""

from __future__ import annotations

import time
from typing import Any

from robotsim.bench.timing import median_time
from robotsim.model import load_robot
from robotsim.motion.profile import load_profile
from robotsim.motion.schema import load_program
from robotsim.motion.timeline import compile_program

__all__ = ["WALK", "run"]

WALK = "walk_forward"  # the shipped motion program, by name


def run(quick: bool = False) -> dict[str, Any]:
    from robotsim.motion.physics_check import check_physics
    from robotsim.motion.playback import play

    model = load_robot("humanoid17")
    profile = load_profile("humanoid17")
    tl = compile_program(load_program(WALK), model)
    res = play(model, tl, profile.soles)  # warm-up (compiles the kernels)
    t_play = median_time(lambda: play(model, tl, profile.soles), repeats=3 if quick else 5)
    c_play = median_time(
        lambda: play(model, tl, profile.soles), repeats=3 if quick else 5, clock=time.thread_time
    )
    t0 = time.perf_counter()
    samples = tl.sample("fixed_tick", tick=0.01)
    t_sample = time.perf_counter() - t0
    rtfs, totals = [], []
    for _ in range(1 if quick else 3):
        t0 = time.perf_counter()
        chk = check_physics(res, profile)
        totals.append(chk.sim_seconds / (time.perf_counter() - t0))
        rtfs.append(chk.rtf)
    rtfs.sort()
    totals.sort()
    return {
        "walk_ticks": res.ticks,
        "walk_support_switches": len(res.switches),
        "walk_ticks_per_s": res.ticks / t_play,
        "walk_ticks_per_s_cpu": res.ticks / c_play,
        "walk_sampling_s": t_sample,
        "walk_sim_seconds": float(samples.t[-1]),
        "physics_check_rtf": rtfs[len(rtfs) // 2],
        "physics_check_total_rtf": totals[len(totals) // 2],
        "physics_check_verdict": chk.verdict,
        "physics_timestep_s": chk.extra["timestep_s"],
        "threads": 1,
    }
