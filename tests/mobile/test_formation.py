"""Formations (issue 13 item 8): a leader-follower V of three omni robots through the
soccer obstacle field, and avoidance that sees the other robots."""

from __future__ import annotations

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest
from tests.doc_numbers import quoted

from robotsim.errors import ScenarioError
from robotsim.mobile import load_mobile
from robotsim.mobile.formation import formation_of, slot_poses
from robotsim.mobile.run import MobileRun
from robotsim.recording import RunStore
from robotsim.scenario import RunOptions, run_file
from robotsim.scenario_yaml import read_scenario_yaml
from robotsim.shipped import shipped_dir

FORMATION = shipped_dir("scenario") / "formation_soccer.yaml"


def test_slot_poses_rotate_with_the_leader() -> None:
    offsets = np.array([[-1.2, 1.0], [-1.2, -1.0]])
    s = slot_poses(np.array([2.0, 1.0, math.pi / 2]), offsets)
    # heading +y: "behind" is -y, "left" is -x
    assert s[:, :2] == pytest.approx(np.array([[1.0, -0.2], [3.0, -0.2]]))
    assert s[:, 2] == pytest.approx([math.pi / 2] * 2)


@pytest.mark.slow
def test_formation_through_the_obstacle_field(tmp_path: Path) -> None:
    s = run_file(FORMATION, RunOptions(out_dir=tmp_path))
    robots = s["robots"]
    assert set(robots) == {"L", "F1", "F2"}
    for name, r in robots.items():
        assert r["reached_goal"], name
        assert r["collisions"] == 0, name  # nothing touched: obstacles or robots
        assert r["min_obstacle_clearance"] > 0, name
    assert s["robot_collisions"]["episodes"] == 0
    assert s["robot_collisions"]["min_footprint_gap_m"] > 0.3  # they kept apart
    f = s["formation"]
    assert f["leader"] == "L" and f["slots"] == {"F1": [-1.2, 1.0], "F2": [-1.2, -1.0]}
    err = f["error_m"]
    assert err["mean"] < 1.0 and err["final"] < 0.1  # kept on the way, exact at the end
    assert err["max"] > 0.2  # the obstacles do push the followers out of their slots
    # F2 has no obstacle on its side: with the velocity lead it stays on its slot
    assert err["per_robot"]["F2"]["mean"] < 0.05 < err["per_robot"]["F1"]["mean"]
    ot = f["error_over_time"]
    assert len(ot["t"]) == len(ot["mean_m"]) > 50 and max(ot["max_m"]) <= err["max"] + 1e-9
    # the followers' goals are their slots at the leader's goal
    final = slot_poses(np.array(robots["L"]["goal"]), np.array([[-1.2, 1.0], [-1.2, -1.0]]))
    assert robots["F1"]["goal"] == pytest.approx(final[0].tolist())
    assert (tmp_path / "formation.png").stat().st_size > 10_000
    assert s["outputs"]["formation"] == "formation.png"
    table = RunStore(tmp_path).signals("last", "F1")
    assert "formation_error" in table.names
    # what docs/scenarios.md says this run gives
    n = r"(\d+\.\d+)"
    times = quoted("scenarios.md", rf"reach their goals \(L in {n} s, F1 {n} s, F2 {n} s\)")
    for q, name in zip(times, ("L", "F1", "F2")):
        assert q.holds(robots[name]["time_to_goal"]), (name, q.text)
    (gap,) = quoted("scenarios.md", rf"closest footprints {n} m apart")
    assert gap.holds(s["robot_collisions"]["min_footprint_gap_m"])
    mean, mx, final = quoted("scenarios.md", rf"formation error mean {n} m, max {n} m, final {n} m")
    assert mean.holds(err["mean"]) and mx.holds(err["max"]) and final.holds(err["final"])
    (f2_mm,) = quoted("scenarios.md", r"slot \(mean (\d+) mm\)")
    assert f2_mm.holds(1000 * err["per_robot"]["F2"]["mean"])
    (f1,) = quoted("scenarios.md", rf"get round them \(mean {n} m\)")
    assert f1.holds(err["per_robot"]["F1"]["mean"])


def head_on(avoid_robots: bool, offset: float = 0.05, integrator: str = "auto") -> MobileRun:
    data = {
        "kind": "mobile",
        "name": "head_on",
        "duration": 12,
        "timestep": 0.004,
        "field": {"size": [10, 6], "markings": "none"},
        "avoid_robots": avoid_robots,
        "robots": [
            {"name": "A", "model": "omni3", "start": [-3, 0, 0], "goal": [3, 0, 0],
             "controller": {"avoidance": "vfh"}},
            {"name": "B", "model": "omni3", "start": [3, offset, 0], "goal": [-3, offset, 0],
             "controller": {"avoidance": "vfh"}},
        ],
    }  # fmt: skip
    sc, robots, obstacles = load_mobile(data, "head_on")
    run = MobileRun(sc, robots, obstacles, "head_on")
    if integrator == "implicitfast":  # what the default was before "auto"
        run.world.model.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    run.run()
    return run


def test_avoidance_treats_other_robots_as_obstacles() -> None:
    blind = head_on(avoid_robots=False)  # as before: the robots ignore each other
    assert min(blind.collisions) >= 1  # and run into each other (no obstacles here)
    seeing = head_on(avoid_robots=True)
    assert seeing.collisions == [0, 0] and seeing.robot_collisions()["episodes"] == 0
    assert seeing.robot_collisions()["min_footprint_gap_m"] > 0
    assert all(r is not None for r in seeing.reached_at)  # both still get there


@pytest.mark.parametrize("integrator", ["auto", "implicitfast"])
@pytest.mark.parametrize("offset", [0.0, 0.02, -0.05])
def test_head_on_robots_pass_on_their_right(offset: float, integrator: str) -> None:
    """Exactly or nearly head-on (B's line ``offset`` m to the side of A's): both keep
    right and pass, under either integrator (a lowest-index VFH tie-break sent both to
    the same side and deadlocked them, or ran them into each other)."""
    run = head_on(avoid_robots=True, offset=offset, integrator=integrator)
    assert all(r is not None for r in run.reached_at), run.reached_at
    assert run.collisions == [0, 0] and run.robot_collisions()["episodes"] == 0
    ys = np.array([p[1] for p in run.samples[0]])
    assert ys.min() < -0.2 and ys.max() < 0.1  # A went round on its right (-y)


def test_formation_names_are_checked() -> None:
    data = read_scenario_yaml(FORMATION)
    data["formation"]["leader"] = "X"
    sc, robots, _ = load_mobile(data, "f.yaml")
    with pytest.raises(ScenarioError, match=r"f\.yaml: formation\.leader: no robot 'X'"):
        formation_of(sc, robots, "f.yaml")
    data = read_scenario_yaml(FORMATION)
    data["formation"]["slots"]["L"] = [1, 1]
    sc, robots, _ = load_mobile(data, "f.yaml")
    with pytest.raises(ScenarioError, match=r"formation\.slots\.L: the leader"):
        formation_of(sc, robots, "f.yaml")
