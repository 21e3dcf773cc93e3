"""Divergence is a fault (issue 29, item 3): a body out of the world's bounds, a speed
far above its run's limit, energy from nowhere each stop the World with a
PhysicsFault naming the body, the time and the quantity; the same worlds without the
defect run on (each check is shown saying no). Real MuJoCo worlds."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.errors import PhysicsFault
from robotsim.model.geometry import Box, Sphere
from robotsim.physics import World
from robotsim.physics.scene import Body, Joint, Motor, Scene
from robotsim.spatial import make_T


def _ball(z: float = 0.5, ground: bool = True) -> Scene:
    ball = Body("ball", Sphere(0.1), make_T(None, [0, 0, z]), joint=Joint("free"), mass=1.0)
    return Scene(bodies=(ball,)) if ground else Scene(bodies=(ball,), ground=None)


def test_default_bounds_grow_the_start_box_by_at_least_100_m() -> None:
    w = World(_ball(z=2.0))
    assert np.allclose(w.guard.lo, [-100, -100, -100]) and np.allclose(w.guard.hi, [100, 100, 102])


def test_leaving_the_bounds_is_a_fault_naming_body_time_and_axis() -> None:
    w = World(_ball())
    w.set_bounds([-5, -5, -1], [5, 5, 5])
    w.body("ball").set_velocity([20.0, 0.0, 0.0])
    with pytest.raises(PhysicsFault) as err:
        w.advance(2.0)
    f = err.value.fault.to_json()
    assert f["body"] == "ball" and f["quantity"] == "position" and f["unit"] == "m"
    assert f["limit"] == 5.0 and f["value"] > 5.0
    # 20 m/s from x = 0 (friction slows it): out past 5 m after 0.25 s, seen at the
    # next 0.1 s check
    assert 0.25 <= f["time_s"] <= 0.5, f
    assert "left the world's bounds: x = " in f["message"] and "'ball'" in str(err.value)
    calm = World(_ball())  # the same world, the ball at rest: no fault in 2 s
    calm.set_bounds([-5, -5, -1], [5, 5, 5])
    calm.advance(2.0)


def test_a_speed_far_above_the_runs_limit_is_a_fault() -> None:
    w = World(_ball(z=50.0, ground=False))
    w.set_bounds([-1e3] * 3, [1e3] * 3)
    w.limit_speed("ball", 10.0)  # free fall passes 10 m/s after 1.02 s
    w.advance(0.9)  # below: no fault
    with pytest.raises(PhysicsFault) as err:
        w.advance(0.5)
    f = err.value.fault
    assert f.quantity == "speed" and f.body == "ball" and f.limit == 10.0
    assert f.value == pytest.approx(9.81 * f.time_s, rel=0.02)  # v = g t, measured
    assert 1.0 <= f.time_s <= 1.15


def _pendulum(damping: float) -> World:
    arm = Body(
        "arm", Box((0.05, 0.05, 0.5)), make_T(None, [0, 0, 1.0]),
        joint=Joint("hinge", axis=(1, 0, 0), anchor=(0, 0, 0.25)), mass=1.0,
    )  # fmt: skip
    w = World(Scene(bodies=(arm,), ground=None))
    w.joint("arm").set_q(0.3)
    w.model.dof_damping[0] = damping  # negative: the model feeds energy in by itself
    w.guard.rebase()
    return w


def test_energy_from_nowhere_is_a_fault_and_damping_is_not() -> None:
    _pendulum(0.5).advance(10.0)  # a damped pendulum loses energy: no fault
    _pendulum(0.0).advance(10.0)  # an undamped one keeps it (within MuJoCo's error)
    w = _pendulum(-2.0)  # "negative damping": energy grows without any input
    with pytest.raises(PhysicsFault) as err:
        w.advance(30.0)
    f = err.value.fault
    assert f.quantity == "energy" and f.unit == "J" and f.body == "arm"
    assert f.value > f.limit > 0  # grew by more than the slack (no motor, no force)
    assert f.time_s < 30.0
    speed = abs(w.joint("arm").qd)
    assert speed < w.max_speed  # caught long before the speed check would


def test_motor_work_is_input_not_a_fault() -> None:
    """A velocity motor spins a heavy wheel up from rest: the energy grows by what the
    motor puts in; the guard counts that work and stays quiet."""
    wheel = Body(
        "wheel", Box((0.5, 0.5, 0.05)), make_T(None, [0, 0, 1.0]),
        joint=Joint("hinge", axis=(0, 0, 1), motor=Motor("velocity", gain=50.0, force=100.0)),
        mass=20.0,
    )  # fmt: skip
    w = World(Scene(bodies=(wheel,), ground=None))
    w.motor("wheel").set(40.0)
    w.advance(5.0)
    assert w.joint("wheel").qd == pytest.approx(40.0, rel=0.05)
    ke = 0.5 * w.model.body_inertia[1][2] * 40.0**2
    assert ke > 100.0 + w.guard._slack  # the gain is far beyond the slack: work counted


def _crate_scene(tmp_path: Path) -> Path:
    from robotsim.shipped import find_shipped

    base = find_shipped("soccer_obstacles", "scenario")
    assert base is not None
    text = base.read_text(encoding="utf-8")
    text += (
        "objects:\n"
        "  - name: crate\n"
        "    shape: {type: box, size: [0.6, 0.6, 0.6]}\n"
        "    position: [-8.5, -4.6, 1.5]\n"
        "    mass: 1.0e12\n"
    )
    f = tmp_path / "crate.yaml"
    f.write_text(text, encoding="utf-8")
    return f


@pytest.mark.slow
def test_the_1e12_kg_crate_of_the_issue_stops_the_run_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    rc = main(["run", str(_crate_scene(tmp_path)), "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert rc == 1, err
    summary = json.loads((out / "summary.json").read_text())
    f = summary["fault"]
    assert f["body"].startswith("omni/") and f["quantity"] in ("position", "speed")
    assert 0 < f["time_s"] < 30 and math.isfinite(f["value"])
    assert summary["sim_time"] == pytest.approx(f["time_s"], abs=0.05)  # it stopped there
    assert "simulation diverged" in err and err.count("\n") == 0


def test_a_motor_gain_of_1e9_is_refused_with_its_range(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["run", "soccer_obstacles", "--set", "robots.0.motor.gain=1e9"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.count("\n") == 0, err
    assert "robots.0.motor.gain" in err or "robots[0].motor.gain" in err, err
    assert "10000" in err, err
