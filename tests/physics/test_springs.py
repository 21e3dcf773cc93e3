"""Springs and the world's ERP/CFM (seed 002: ODE's two ways to a spring-damper).

A mass on a slider spring ``m x'' = -k x - c x'`` (the paper's equation 3) oscillates
with the damped period ``2 pi / (w_n sqrt(1 - zeta^2))`` and its amplitude falls by
``exp(-zeta w_n T)`` per period, ``w_n = sqrt(k / m)``, ``zeta = c / (2 sqrt(k m))``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from robotsim.errors import InputError, ScenarioError
from robotsim.mobile.build import build_mobile
from robotsim.mobile.load import load_mobile
from robotsim.model.geometry import Box
from robotsim.physics import Body, Joint, Scene, World


def analytic(m: float, k: float, c: float) -> tuple[float, float]:
    """(damped period s, amplitude ratio per period)."""
    wn = math.sqrt(k / m)
    zeta = c / (2 * math.sqrt(k * m))
    T = 2 * math.pi / (wn * math.sqrt(1 - zeta**2))
    return T, math.exp(-zeta * wn * T)


def measured(t: np.ndarray, x: np.ndarray, rest: float) -> tuple[float, float]:
    """Period from the upward zero crossings of ``x - rest`` (interpolated) and the mean
    ratio of successive positive peaks."""
    y = x - rest
    up = np.flatnonzero((y[:-1] < 0) & (y[1:] >= 0))
    tc = t[up] - y[up] * (t[up + 1] - t[up]) / (y[up + 1] - y[up])
    peaks = [y[a:b].max() for a, b in itertools.pairwise(up)]
    ratios = np.array(peaks[1:]) / np.array(peaks[:-1])
    return float(np.mean(np.diff(tc))), float(np.mean(ratios))


def oscillate(world: World, joint: str, seconds: float) -> tuple[np.ndarray, np.ndarray]:
    h = world.timestep
    n = round(seconds / h)
    t, x = np.empty(n), np.empty(n)
    jh = world.joint(joint)
    for i in range(n):
        world.step()
        t[i], x[i] = world.time, jh.q
    return t, x


@pytest.mark.parametrize(("m", "k", "c"), [(2.0, 200.0, 2.0), (0.5, 80.0, 0.6)])
def test_mass_spring_period_and_decay(m, k, c) -> None:
    rest = 0.1
    spring = Joint("slider", axis=(1, 0, 0), stiffness=k, damping=c, rest=rest)
    body = Body("mass", Box((0.1, 0.1, 0.1)), mass=m, joint=spring)
    world = World(Scene(bodies=(body,), ground=None, gravity=(0, 0, -9.81), timestep=0.001))
    t, x = oscillate(world, "mass", 4.0)  # starts at 0: 0.1 m from rest
    T, ratio = measured(t, x, rest)
    T_ref, ratio_ref = analytic(m, k, c)
    assert T == pytest.approx(T_ref, rel=0.02)
    assert ratio == pytest.approx(ratio_ref, rel=0.02)


SCENARIO = {
    "kind": "mobile",
    "name": "springs",
    "erp": 0.4,
    "cfm": 1e-4,
    "obstacles": {"positions": []},
    "objects": [{
        "name": "bob", "shape": {"type": "sphere", "radius": 0.05}, "position": [0, 3, 0.5],
        "mass": 1.5,
        "joint": {"type": "slider", "axis": [0, 0, 1], "stiffness": 300.0, "damping": 3.0,
                  "rest": 0.02},
    }],
    "robots": [{"name": "r", "model": "omni3", "start": [0, 0, 0],
                "joints": {"wheel1": {"damping": 0.05, "stiffness": 0.0}}}],
}  # fmt: skip


def test_scenario_springs_and_world_erp_cfm() -> None:
    """A scenario's object spring oscillates as the analytic mass-spring (gravity shifts
    its rest by m g / k); robot joint dampers and the world ERP/CFM reach MuJoCo."""
    sc, robots, obstacles = load_mobile(SCENARIO)
    scene = build_mobile(sc, robots, obstacles)
    assert (scene.erp, scene.cfm) == (0.4, 1e-4)
    world = World(scene)
    mjm = world.model
    wheel = mjm.joint("r/wheel1")
    assert mjm.dof_damping[wheel.dofadr[0]] == pytest.approx(0.05)
    bob = mjm.joint("bob")
    assert mjm.jnt_stiffness[bob.id] == pytest.approx(300.0)
    assert mjm.qpos_spring[bob.qposadr[0]] == pytest.approx(0.02)
    # The world's ERP/CFM soften the contacts of surfaces that set neither: the robot's
    # wheels on the ground get ODE's spring kp = erp / (h cfm) (docs/physics.md).
    sc_hard, _, _ = load_mobile({k: v for k, v in SCENARIO.items() if k not in ("erp", "cfm")})
    hard = World(build_mobile(sc_hard, robots, obstacles)).model
    ground = mjm.geom("ground").id
    assert not np.allclose(mjm.geom_solref[ground], hard.geom_solref[ground]) or not np.allclose(
        mjm.geom_solimp[ground], hard.geom_solimp[ground]
    )
    t, x = oscillate(world, "bob", 3.0)
    m, k, c = 1.5, 300.0, 3.0
    T, ratio = measured(t, x, 0.02 - m * 9.81 / k)
    T_ref, ratio_ref = analytic(m, k, c)
    assert T == pytest.approx(T_ref, rel=0.02)
    assert ratio == pytest.approx(ratio_ref, rel=0.02)


def test_bad_springs_are_named() -> None:
    with pytest.raises(InputError, match="stiffness must be finite and >= 0"):
        Joint("slider", stiffness=-1.0)
    with pytest.raises(InputError, match="cannot carry a spring"):
        Joint("free", stiffness=1.0)
    with pytest.raises(InputError, match="scene erp"):
        Scene(erp=1.5)
    bad = dict(SCENARIO, robots=[dict(SCENARIO["robots"][0], joints={"nope": {}})])
    sc, robots, obstacles = load_mobile(bad)
    with pytest.raises(ScenarioError, match="unknown joint 'nope'; valid: wheel1"):
        build_mobile(sc, robots, obstacles)
    with pytest.raises(ScenarioError, match="cfm"):
        load_mobile(dict(SCENARIO, cfm=5))


def test_world_erp_cfm_in_a_robot_scenario_act_per_contact() -> None:
    """A 5 kg ball beside a robot sinks as ODE's formula says for its own mass (it sank
    0.073 mm instead of 0.491 when the robot's light wheels set the ground's softness)."""
    doc = {
        "kind": "mobile", "name": "sink", "erp": 0.2, "cfm": 1e-3,
        "obstacles": {"positions": []},
        "objects": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1},
                     "position": [0, 3, 0.1], "mass": 5.0}],
        "robots": [{"name": "r", "model": "omni3", "start": [0, 0, 0]}],
    }  # fmt: skip
    sc, robots, obstacles = load_mobile(doc)
    world = World(build_mobile(sc, robots, obstacles))
    world.step(1000)
    sink = 0.1 - float(world.body("ball").position[2])
    assert sink == pytest.approx(5.0 * 9.81 * 0.002 * 1e-3 / 0.2, rel=0.05)
