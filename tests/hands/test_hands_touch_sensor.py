"""Fingertip touch in physics comes from a touch sensor on the finger links: it agrees
with the fingers' contacts with the ball enumerated by hand, and the three fingers of
the hand holding the ball up (by friction alone) press it with a force that carries its
weight."""

from __future__ import annotations

import numpy as np

from robotsim.hands.physics import PhysicsHands, PhysicsOptions
from robotsim.hands.scenario_spec import load_hand_scenario
from robotsim.hands.script import run_script
from robotsim.shipped import shipped_dir

SCENARIO = shipped_dir("scenario") / "hand_ball_transfer.yaml"


def _finger_ball_contacts(sim: PhysicsHands, side: str) -> tuple[bool, ...]:
    """The reference: which fingers of ``side`` have a contact with the ball now."""
    d, m = sim.world.data, sim.world.model
    out = []
    for bodies in sim._finger_bodies[side]:
        hit = False
        for i in range(d.ncon):
            b = {int(m.geom_bodyid[d.contact[i].geom1]), int(m.geom_bodyid[d.contact[i].geom2])}
            if sim._ball_id in b and b - {sim._ball_id} <= bodies and b & bodies:
                hit = True
        out.append(hit)
    return tuple(out)


def test_touch_comes_from_the_sensor_and_holds_the_ball() -> None:
    spec, scene = load_hand_scenario(SCENARIO)
    sim = PhysicsHands(scene, spec.dt, PhysicsOptions(weld_assist=False))
    steps = spec.steps()
    lift = next(i for i, s in enumerate(steps) if s.label == "lift")
    seen_touch = 0
    for step in steps[: lift + 1]:
        run_script(sim, [step], spec.speed_rad)
        for side in ("L", "R"):
            assert sim.touch[side] == _finger_ball_contacts(sim, side)
            seen_touch += sum(sim.touch[side])
    assert seen_touch > 0
    for _ in range(50):  # half a second, held by friction
        sim.step({})
    assert sim.snapshot().grasped_by == ("L",)
    assert all(sim.touch["L"]) and not any(sim.touch["R"])
    forces = np.array(sim.touch_forces["L"])
    weight = float(sim.world.model.body_mass[sim._ball_id]) * scene.gravity
    # friction holds the ball: the normal forces, times the friction coefficient, at
    # least carry its weight
    assert np.all(forces > 0)
    assert forces.sum() * sim.options.finger_friction >= weight
