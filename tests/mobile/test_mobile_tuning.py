"""Seed 002's parameter entry while a mobile run runs: gains and speed limits of the
running controllers, the robots' masses and friction (the gamepad's and keyboard's
live parameters), each change an event of the run."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.errors import InputError
from robotsim.mobile import open_mobile
from robotsim.physics.tuning import RobotTuning
from robotsim.recording import Recorder, RunStore
from robotsim.shipped import shipped_dir

SOCCER = shipped_dir("scenario") / "soccer_obstacles.yaml"


def _top_speed(run, seconds: float) -> float:
    """The largest body-frame speed along x or y (m/s; the limits are per axis) of the
    first robot's base over ``seconds``."""
    top = 0.0
    for _ in range(round(seconds / run.tick)):
        run.step()
        vx, vy, _ = run.bases[0].twist_xyw()
        top = max(top, abs(vx), abs(vy))
    return top


def test_max_speed_entry_limits_the_running_robot():
    free = open_mobile(SOCCER)
    slowed = open_mobile(SOCCER)
    slowed.tune(max_speed=0.25)
    v_free, v_slow = _top_speed(free, 4.0), _top_speed(slowed, 4.0)
    vmax = free.controllers[0].config.limits[0].max_speed  # 1.5 m/s along x and y
    assert v_free > 0.5 * vmax  # the check that says no: unscaled, it drives faster
    assert v_slow <= 0.25 * vmax * 1.05 + 0.01
    assert slowed.parameter_events[0][1] == {"max_speed": 0.25}


def test_gain_entry_scales_every_pid_gain_and_returns_exactly():
    run = open_mobile(SOCCER)
    ctrl = run.controllers[0]
    base = [g.kp for g in ctrl.config.gains]
    run.tune(gain=1.25 * 1.25)
    assert [a.gains.kp for a in ctrl.pid.axes] == pytest.approx([1.5625 * k for k in base])
    run.tune(gain=1.0)
    assert [a.gains.kp for a in ctrl.pid.axes] == base
    assert run.factors["gain"] == 1.0 and len(run.parameter_events) == 2
    run.tune(gain=1.0)  # no change, no event
    assert len(run.parameter_events) == 2


def test_mass_and_friction_entry_change_the_model_and_come_back():
    run = open_mobile(SOCCER)
    tuning = RobotTuning(run.world, "omni")
    m0 = tuning.mass
    mu0 = run.world.model.pair_friction[tuning.pairs, 0].copy()
    assert tuning.pairs.size >= 3  # the three tyres
    tuning.set(mass=2.0, friction=0.5)
    assert tuning.mass == pytest.approx(2.0 * m0)
    np.testing.assert_allclose(run.world.model.pair_friction[tuning.pairs, 0], 0.5 * mu0)
    tuning.set(mass=1.0, friction=1.0)
    assert tuning.mass == m0
    np.testing.assert_array_equal(run.world.model.pair_friction[tuning.pairs, 0], mu0)
    with pytest.raises(InputError, match=r"mass factor 10.0 is not in \[0.25, 4\]"):
        tuning.set(mass=10.0)


def test_heavier_robot_accelerates_slower_in_physics():
    # the same wheel motors push four times the mass: it falls behind the light one
    light, heavy = open_mobile(SOCCER), open_mobile(SOCCER)
    heavy.tune(mass=4.0)
    for run in (light, heavy):
        for _ in range(round(0.5 / run.tick)):
            run.step()
    d = [float(np.hypot(*(r.bases[0].pose()[:2] - r.robots[0].start[:2]))) for r in (light, heavy)]
    assert d[1] < d[0]


def test_changes_are_recorded_as_events(tmp_path):
    rec = Recorder(tmp_path)
    run = open_mobile(SOCCER, recorder=rec)
    rec.start_run("tuning", {})
    run.step()
    run.tune(gain=1.25, friction=0.8)
    run.step()
    rec.finish("completed")
    rec.close()
    events = RunStore(tmp_path).events("last", type="parameters")
    assert len(events) == 1
    assert events[0]["data"] == {"gain": 1.25, "friction": 0.8}
    assert events[0]["t"] == pytest.approx(run.tick)
