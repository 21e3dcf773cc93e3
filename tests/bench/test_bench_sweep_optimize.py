"""The optimiser `robotsim bench sweep` measures is the shipped PID example."""

from __future__ import annotations

from pathlib import Path

from robotsim.bench.sweep_optimize import GRID, PID_OPTIMIZE
from robotsim.sweep.schema import load_sweep_data, parse_sweep

REPO = Path(__file__).resolve().parents[2]


def test_the_bench_runs_the_shipped_pid_example_and_the_pid_gains_grid() -> None:
    def spec(d: dict, drop: tuple[str, ...] = ()) -> dict:
        out = parse_sweep(d, "x").model_dump(exclude={"description", "plots", *drop})
        return out

    shipped = load_sweep_data(REPO / "sweeps" / "pid_optimize.yaml")
    assert spec(PID_OPTIMIZE) == spec(shipped)
    grid = load_sweep_data(REPO / "sweeps" / "pid_gains.yaml")
    goals = ("name", "metrics", "objective", "constraints", "success")
    assert spec(GRID, goals) == spec(grid, goals)
    assert len(GRID["parameters"]["kp"]["values"]) * len(GRID["parameters"]["kd"]["values"]) == 36
    assert PID_OPTIMIZE["budget"]["runs"] * 4 == 36
