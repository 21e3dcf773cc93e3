"""World.contact_forces: the ground carries a resting body's weight at its centre of
pressure, and a push sideways shows as friction; each force acts on the named body."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.model.geometry import Box
from robotsim.physics import Body, Joint, Scene, World
from robotsim.spatial import trans


def _resting_box(x_offset_com: float = 0.0) -> World:
    # a 2 kg box, 0.2 x 0.1 x 0.05 m, settled on the ground
    box = Body(
        "box", Box((0.2, 0.1, 0.05)), trans([0.3, -0.2, 0.025]), joint=Joint("free"), mass=2.0
    )
    world = World(Scene(bodies=(box,), timestep=0.002))
    world.advance(0.5)
    return world


def test_ground_carries_the_weight_at_the_centre() -> None:
    world = _resting_box()
    cf = world.contact_forces()
    pos, force = cf.on({"box"})
    assert len(pos) >= 4  # the four bottom corners (at least)
    total = force.sum(axis=0)
    np.testing.assert_allclose(total, [0.0, 0.0, 2.0 * 9.81], atol=1e-3)
    cop = (pos[:, :2] * force[:, 2:3]).sum(axis=0) / force[:, 2].sum()
    np.testing.assert_allclose(cop, [0.3, -0.2], atol=1e-4)
    # the same contacts seen from the ground: the opposite force
    _, on_ground = cf.on({"ground"})
    np.testing.assert_allclose(on_ground.sum(axis=0), -total, atol=1e-9)


def test_a_sideways_push_shows_as_friction() -> None:
    world = _resting_box()
    box = world.body("box")
    for _ in range(50):  # 2 N along +y, under the 0.5 * 19.6 N that would slide it
        box.apply_force([0.0, 2.0, 0.0])
        world.step()
    _, force = world.contact_forces().on({"box"})
    assert force.sum(axis=0)[1] == pytest.approx(-2.0, abs=0.05)
    assert world.contact_forces().on({"nothing"})[0].shape == (0, 3)
