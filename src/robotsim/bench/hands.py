"""Hands benchmarks: one teleoperation tick in each mode (the live loop needs < 16.7 ms
for 60 Hz) and the scripted hand-to-hand transfer as a real-time factor."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from robotsim.bench.timing import median_time

__all__ = ["run"]

SCENARIO = "hand_ball_transfer"  # the shipped scenario, by name


def _tick_time(mode: str, quick: bool) -> dict[str, float]:
    from robotsim.hands import ArmCommand, Grip
    from robotsim.hands.run import make_sim
    from robotsim.hands.scene import default_scene
    from robotsim.model import load_robot

    sim = make_sim(default_scene(load_robot("dual_arm_hands")), mode, 1 / 60 if mode ==
                   "kinematic" else 0.016)  # fmt: skip
    both = {
        s: ArmCommand(rates={"shoulder_y": 0.3, "elbow_y": -0.2, "wrist_x": 0.1}, grip=Grip.CLOSE)
        for s in ("L", "R")
    }

    def tick() -> None:
        sim.step(both)
        if sim.t > 1.0:  # keep the arms inside their limits
            sim.reset()

    inner = 20 if quick else 100
    t = median_time(tick, repeats=3 if quick else 7, inner=inner)
    return {f"{mode}_tick_ms": t * 1e3, f"{mode}_max_rate_hz": 1.0 / t, "dt_s": sim.dt}


def run(quick: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode in ("kinematic", "physics"):
        figures = _tick_time(mode, quick)
        figures.pop("dt_s")
        out.update(figures)
    from robotsim.hands.run import run_hand_scenario
    from robotsim.hands.scenario_spec import load_hand_scenario

    spec, scene = load_hand_scenario(SCENARIO)
    for mode in ("kinematic",) if quick else ("kinematic", "physics"):
        t0 = time.perf_counter()
        summary = run_hand_scenario(spec, scene, mode)
        wall = time.perf_counter() - t0
        out[f"transfer_{mode}_real_time_factor"] = float(np.round(summary["sim_time"] / wall, 1))
    return out
