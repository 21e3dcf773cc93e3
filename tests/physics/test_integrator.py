"""Which MuJoCo integrator a scene steps with: by default (``auto``) euler when the
scene's only motors are wheel velocity servos, ``implicitfast`` otherwise; ``euler`` or
``implicitfast`` when forced (see physics.compile.integrator_for)."""

from __future__ import annotations

from dataclasses import replace

import mujoco
import numpy as np
import pytest

import robotsim
from robotsim.errors import InputError
from robotsim.mobile import MobileRun, load_mobile
from robotsim.physics import RobotPlacement, Scene, World
from robotsim.scenario_yaml import read_scenario_yaml

EULER = int(mujoco.mjtIntegrator.mjINT_EULER)
IMPLICITFAST = int(mujoco.mjtIntegrator.mjINT_IMPLICITFAST)


def _soccer() -> MobileRun:
    sc, robots, obstacles = load_mobile(read_scenario_yaml("soccer_obstacles"), "test")
    return MobileRun(sc, robots, obstacles)


def test_default_auto_picks_euler_for_wheels_only() -> None:
    run = _soccer()
    assert run.scene.integrator == "auto"
    assert int(run.world.model.opt.integrator) == EULER
    forced = World(replace(run.scene, integrator="implicitfast"), seed=run.seed)
    assert int(forced.model.opt.integrator) == IMPLICITFAST
    puma = robotsim.load_robot("puma560")
    arm = World(Scene(name="arm", robots=(RobotPlacement("A", puma),)))
    assert int(arm.model.opt.integrator) == IMPLICITFAST
    forced = World(Scene(name="arm", robots=(RobotPlacement("A", puma),), integrator="euler"))
    assert int(forced.model.opt.integrator) == EULER


def test_euler_drives_the_same_path_within_millimetres() -> None:
    """Two seconds of the soccer run, controller on: euler against implicitfast."""
    paths = []
    for integrator in (EULER, IMPLICITFAST):
        run = _soccer()
        run.world.model.opt.integrator = integrator
        run.run(2.0)
        paths.append(np.array(run.samples[0]))
    assert np.max(np.hypot(*(paths[0][:, :2] - paths[1][:, :2]).T)) < 0.005


def test_unknown_integrator_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="integrator 'rk4': valid: implicitfast, euler, auto"):
        Scene(integrator="rk4")  # type: ignore[arg-type]
