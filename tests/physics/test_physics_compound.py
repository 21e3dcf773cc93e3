"""Compound bodies (one geom per part) and explicit inertials."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.errors import InputError
from robotsim.model.geometry import Box, Shape, Sphere
from robotsim.model.robot import Inertial
from robotsim.physics import Body, Joint, Scene, World
from robotsim.physics.scene import Compound
from robotsim.spatial import make_T

DUMBBELL = Compound((Shape(Sphere(0.03), make_T(None, [-0.1, 0, 0])),
                     Shape(Sphere(0.03), make_T(None, [0.1, 0, 0])),
                     Shape(Box((0.2, 0.01, 0.01)))))  # fmt: skip


def test_parts_are_geoms_named_by_index_and_rest_on_the_ground() -> None:
    w = World(
        Scene(bodies=(Body("bell", DUMBBELL, make_T(None, [0, 0, 0.2]), joint=Joint("free")),))
    )
    names = [w.model.geom(i).name for i in range(w.model.ngeom)]
    assert names == ["ground", "bell:0", "bell:1", "bell:2"]
    w.advance(1.0)
    assert w.body("bell").position[2] == pytest.approx(0.03, abs=1e-3)  # on the spheres
    touching = {a for a, b, _ in w.contacts()} | {b for a, b, _ in w.contacts()}
    assert "bell" in touching


def test_density_sums_the_parts() -> None:
    w = World(Scene(bodies=(Body("bell", DUMBBELL, joint=Joint("free"), density=500.0),)))
    v = 2 * 4 / 3 * np.pi * 0.03**3 + 0.2 * 0.01 * 0.01
    assert w.model.body_mass[w.body("bell").id] == pytest.approx(500 * v, rel=1e-9)


def test_explicit_inertial_wins_over_the_shapes() -> None:
    i = Inertial(0.4, np.array([0.01, 0, 0]), np.diag([1e-4, 2e-4, 2.5e-4]))
    w = World(Scene(bodies=(Body("bell", DUMBBELL, joint=Joint("free"), inertial=i),)))
    b = w.body("bell").id
    assert w.model.body_mass[b] == pytest.approx(0.4)
    np.testing.assert_allclose(w.model.body_ipos[b], [0.01, 0, 0])
    np.testing.assert_allclose(sorted(w.model.body_inertia[b]), [1e-4, 2e-4, 2.5e-4])


def test_bad_compounds_and_inertials_are_refused() -> None:
    with pytest.raises(InputError, match="at least one part"):
        Compound(())
    with pytest.raises(InputError, match="takes its mass as inertial"):
        Body("b", DUMBBELL, joint=Joint("free"), mass=0.3)
    bad = Inertial(0.1, np.zeros(3), np.diag([1.0, 1.0, 5.0]))
    with pytest.raises(InputError, match="body 'b': inertial: inertia violates the triangle"):
        Body("b", Sphere(0.1), joint=Joint("free"), inertial=bad)
