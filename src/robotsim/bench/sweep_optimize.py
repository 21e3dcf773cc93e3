"""``robotsim bench sweep``'s figures of issue 28: optimisers, receipts, determinism.

- ``optimize_vs_grid_pct``: the PID example (``sweeps/pid_optimize.yaml``: the PD
  robot's fastest time to goal with at most 2 % overshoot) run by TPE with 9 runs, a
  quarter of the 36-point grid of the same box (``sweeps/pid_gains.yaml``'s values,
  judged by the same objective and constraints); ``100 * (optimiser's best - grid's
  best) / grid's best`` (time: lower is better), the median over ``seeds`` seeds, each
  seed's too. Both on the local pool of 2 processes.
- ``optimize_overhead_pct``: what the optimiser's driver spends per trial (Optuna's
  ask and tell, the row log) against the runs' own time, over those sessions.
- ``receipt_overhead_pct``: the shipped ``soccer_obstacles`` run (30 simulated s,
  recorded into a run store, in this process): the receipt's own wall time (collecting
  the files it read, digesting the compiled model, taking the checkpoints, writing the
  receipt, :attr:`robotsim.scenario.receipt.Receipting.cost_s`) against the run's wall
  time, median of the runs with a receipt. ``receipt_ab_pct`` compares whole runs with
  and without receipts, alternating (median CPU time of the process): on a shared
  machine its noise (several %) is far above the receipt's cost.
- ``verified_identical``: 100 runs of a sweep (P vs PD, 2 simulated s, random gains)
  made on the local pool of 2, re-run from their receipts on a 2-worker Dask cluster
  (``local:2``; `robotsim bench sweep` passes the one it timed): how many came out
  bit-identical. ``--quick``: 6 runs, made in the bench's own process.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

__all__ = ["GRID", "PID_OPTIMIZE", "optimize_vs_grid", "receipt_overhead", "verified_identical"]

_KP = ["robots.1.controller.gains.x.kp", "robots.1.controller.gains.y.kp"]
_KD = ["robots.1.controller.gains.x.kd", "robots.1.controller.gains.y.kd"]
_GOALS: dict[str, Any] = {
    "metrics": {
        "time_to_goal": "robots.PD.time_to_goal",
        "overshoot_x_pct": "robots.PD.overshoot_pct.x",
        "overshoot_y_pct": "robots.PD.overshoot_pct.y",
    },
    "objective": {"metric": "time_to_goal", "goal": "minimize"},
    "constraints": [
        "robots.PD.reached_goal == true",
        "overshoot_x_pct <= 2",
        "overshoot_y_pct <= 2",
    ],
}
_COMMON: dict[str, Any] = {
    "format": "robotsim-sweep/1",
    "kind": "sweep",
    "base": "pid_p_vs_pd",
    "set": {"duration": 22, "robots.1.controller.gains.theta.kp": 3.0},
}
#: The optimiser of ``sweeps/pid_optimize.yaml`` (held equal to the file by the tests).
PID_OPTIMIZE: dict[str, Any] = {
    **_COMMON,
    "name": "pid_optimize",
    "design": "optimize",
    "parameters": {
        "kp": {"path": _KP, "range": {"start": 0.5, "stop": 6.0}},
        "kd": {"path": _KD, "range": {"start": 0.0, "stop": 1.6}},
    },
    **_GOALS,
    "budget": {"runs": 9, "time": 1800},
    "sampler": "tpe",
    "seed": 0,
}
#: The 36-point grid of ``sweeps/pid_gains.yaml`` with the same goals.
GRID: dict[str, Any] = {
    **_COMMON,
    "name": "pid_grid",
    "design": "grid",
    "parameters": {
        "kp": {"path": _KP, "values": [0.5, 1.0, 2.0, 3.0, 4.0, 6.0]},
        "kd": {"path": _KD, "values": [0.0, 0.1, 0.2, 0.4, 0.8, 1.6]},
    },
    **_GOALS,
}


def _best(outcome: Any) -> float | None:
    vals = [b["time_to_goal"] for b in outcome.best]
    return min(vals) if vals else None


def optimize_vs_grid(seeds: int = 5, workers: int = 2) -> dict[str, Any]:
    """The figures of the module doc (optimiser against grid, engine overhead)."""
    from robotsim.sweep import run_sweep

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        (t / "grid.yaml").write_text(yaml.safe_dump(GRID, sort_keys=False))
        grid = run_sweep(t / "grid.yaml", t / "grid", workers=workers)
        grid_best = _best(grid)
        bests: list[float | None] = []
        driver = runs = 0.0
        trials = 0
        for seed in range(seeds):
            f = t / f"opt{seed}.yaml"
            f.write_text(yaml.safe_dump({**PID_OPTIMIZE, "seed": seed}, sort_keys=False))
            o = run_sweep(f, t / f"opt{seed}", workers=workers)
            bests.append(_best(o))
            driver += o.driver_s
            runs += o.runs_time_s
            trials += o.ok + o.failed
    out["grid_runs"] = len(grid.best) and grid.total
    out["grid_best_time_to_goal_s"] = grid_best
    out["optimize_runs"] = PID_OPTIMIZE["budget"]["runs"]
    out["optimize_best_time_to_goal_s_by_seed"] = bests
    pcts = [
        None if b is None or grid_best is None else 100.0 * (b - grid_best) / grid_best
        for b in bests
    ]
    out["optimize_vs_grid_pct_by_seed"] = pcts
    finite = [p for p in pcts if p is not None]
    out["optimize_vs_grid_pct"] = statistics.median(finite) if len(finite) == len(pcts) else None
    out["optimize_overhead_pct"] = 100.0 * driver / runs if runs > 0 else None
    out["optimize_driver_ms_per_trial"] = 1000.0 * driver / trials if trials else None
    return out


def receipt_overhead(pairs: int = 5, duration: float | None = None) -> dict[str, Any]:
    """The receipt's cost on the soccer run (module doc)."""
    from robotsim.run_io import RunOptions
    from robotsim.scenario.kinds import kind_of
    from robotsim.scenario.receipt import Receipting, source_digest
    from robotsim.scenario_yaml import read_scenario_yaml
    from robotsim.shipped import resolve

    path = resolve("soccer_obstacles", "scenario")
    data = read_scenario_yaml(path)
    if duration is not None:
        data["duration"] = duration
    runner = kind_of(data, str(path)).load_runner()
    source_digest()  # once per process, as a sweep worker's prepare() does
    cpu: dict[bool, list[float]] = {True: [], False: []}
    wall: dict[bool, list[float]] = {True: [], False: []}
    own: list[float] = []
    share: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        opts = RunOptions(db=str(Path(tmp) / "runs.sqlite"))
        runner(dict(data), str(path), opts)  # warm-up: imports, kernels, the store
        for i in range(pairs):
            for with_receipt in (i % 2 == 0, i % 2 != 0):
                c0, w0 = time.process_time(), time.perf_counter()
                if with_receipt:
                    with Receipting(dict(data), str(path), opts) as rc:
                        summary = runner(dict(data), str(path), opts)
                    rc.write(summary)
                    own.append(rc.cost_s)
                    share.append(rc.cost_s / (time.perf_counter() - w0))
                else:
                    runner(dict(data), str(path), opts)
                cpu[with_receipt].append(time.process_time() - c0)
                wall[with_receipt].append(time.perf_counter() - w0)
    on, off = statistics.median(cpu[True]), statistics.median(cpu[False])
    return {
        "receipt_overhead_pct": 100.0 * statistics.median(share),
        "receipt_cost_ms": 1000.0 * statistics.median(own),
        "receipt_ab_pct": 100.0 * (on - off) / off,
        "receipt_run_wall_s": statistics.median(wall[True]),
        "receipt_run_cpu_s": off,
        "receipt_sim_s": float(data["duration"]),
        "receipt_pairs": pairs,
    }


def verified_identical(
    runs: int = 100, cluster: str = "local:2", made_inline: bool = False
) -> dict[str, Any]:
    """Runs made on the local pool (``made_inline``: in this process, ``--cluster
    inline``, no pool of two more processes to start) re-run on Dask (module doc)."""
    from robotsim.sweep import run_sweep
    from robotsim.sweep.verify import verify_sweep

    spec = {
        "format": "robotsim-sweep/1", "kind": "sweep", "name": "determinism",
        "base": "pid_p_vs_pd", "set": {"duration": 2.0}, "design": "random",
        "samples": runs, "seed": 28,
        "parameters": {"kp": {"path": _KP, "range": {"start": 0.5, "stop": 6.0}},
                       "kd": {"path": _KD, "range": {"start": 0.0, "stop": 1.6}}},
        "metrics": {"path_length": "robots.PD.path_length"},
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        (t / "det.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
        made = run_sweep(t / "det.yaml", t / "det", cluster="inline" if made_inline else None,
                         workers=None if made_inline else 2)  # fmt: skip
        try:
            res = verify_sweep(t / "det", cluster=cluster)
        except Exception as exc:  # no distributed installed: say so in the figures
            return {"verified_error": str(exc), "verified_runs": made.ok}
    return {
        "verified_identical": res.identical,
        "verified_runs": res.sampled,
        "verified_made_on": made.executor,
        "verified_rerun_on": res.executor,
        "verified_rerun_s": res.elapsed_s,
    }
