"""Wheeled-base scenes solve their constraints as one problem (``mjDSBL_ISLAND``), other
scenes island by island (MuJoCo's default); both give the same motion
(see physics.compile.islands_for)."""

from __future__ import annotations

import mujoco
import numpy as np

import robotsim
from robotsim.mobile import MobileRun, load_mobile
from robotsim.physics import RobotPlacement, Scene, World

NO_ISLANDS = int(mujoco.mjtDisableBit.mjDSBL_ISLAND)


def _fleet(n: int) -> MobileRun:
    data = {
        "kind": "mobile", "name": "fleet", "duration": 2.0, "robots_collide": True,
        "timestep": 0.004,
        "robots": [{"name": "omni", "model": "omni3", "start": [-2, -1, 0],
                    "goal": [2, 1, 90], "count": n, "spacing": [0, 0.8],
                    "controller": {"avoidance": "vfh"}}],
    }  # fmt: skip
    sc, robots, obstacles = load_mobile(data, "test")
    return MobileRun(sc, robots, obstacles)


def test_wheeled_scenes_solve_as_one_problem_arms_by_island() -> None:
    assert int(_fleet(2).world.model.opt.disableflags) & NO_ISLANDS
    puma = robotsim.load_robot("puma560")
    arm = World(Scene(name="arm", robots=(RobotPlacement("A", puma),)))
    assert not int(arm.model.opt.disableflags) & NO_ISLANDS


def test_one_problem_moves_the_robots_as_island_solving_does() -> None:
    """Three omni robots driving 1.5 s side by side (robots collide, VFH on): the same
    paths with MuJoCo's islands on and off, to the solver's tolerance."""
    paths, islands = [], []
    for flags_off in (0, NO_ISLANDS):
        run = _fleet(3)
        opt = run.world.model.opt
        opt.disableflags = (int(opt.disableflags) & ~NO_ISLANDS) | flags_off
        run.run(1.5)
        paths.append(np.array([np.array(s)[:, :3] for s in run.samples]))
        islands.append(int(run.world.data.nisland))
    assert islands == [3, 0]  # one island per robot, or none built
    assert paths[0].shape == paths[1].shape
    assert np.max(np.abs(paths[0] - paths[1])) < 1e-7  # m and rad
    moved = np.hypot(*(paths[0][:, -1, :2] - paths[0][:, 0, :2]).T)
    assert np.all(moved > 0.3)
