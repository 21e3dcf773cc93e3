"""Foot force sensors in the physics check: the measured centre of pressure of a
standing humanoid sits under its centre of mass and its feet carry its weight
(statics), force-based support agrees with the soles on the floor while it walks, and
the same numbers say NO (the CoP on the soles' edge) when it tips over."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim import load_robot
from robotsim.errors import PhysicsError
from robotsim.motion.physics_check import check_physics
from robotsim.motion.playback import play
from robotsim.motion.profile import load_profile
from robotsim.motion.schema import load_program, program_from_dict
from robotsim.motion.timeline import compile_program
from robotsim.shipped import shipped_dir
from tests.motion.programs import LIFT_WITHOUT_SHIFT

WALK = shipped_dir("motion") / "walk_forward.yaml"


def _setup(program):  # type: ignore[no-untyped-def]
    model, prof = load_robot("humanoid17"), load_profile("humanoid17")
    return play(model, compile_program(program, model), prof.soles), prof, model


@pytest.mark.slow
def test_foot_force_measures_the_weight_and_the_centre_of_pressure() -> None:
    res, prof, model = _setup(load_program(WALK))
    chk = check_physics(res, prof, t_end=4.0)
    mass = sum(lk.inertial.mass for lk in model.links if lk.inertial is not None)
    assert chk.sole_force[0].sum() == pytest.approx(mass * 9.81, rel=0.02)
    # statics after settling: the CoP is the CoM's ground projection, both feet carry
    np.testing.assert_allclose(chk.cop[0, :2], chk.com[0, :2], atol=0.004)
    assert chk.support_force[0].all() and chk.support_geometry[0].all()
    s = chk.summary()
    assert s["support_agreement"] > 0.85
    assert s["cop_on_edge_fraction"] < 0.02  # the walk keeps the CoP inside its soles
    assert s["min_cop_margin_m"] > -5e-4  # a CoP is where the contacts are, on the soles
    by_force = check_physics(res, prof, t_end=4.0, support="force")
    assert by_force.summary()["support_by"] == "force" and by_force.verdict == "stands"
    assert np.isfinite(by_force.support_margin).all()


@pytest.mark.slow
def test_tipping_puts_the_centre_of_pressure_on_the_edge() -> None:
    res, prof, _ = _setup(program_from_dict(LIFT_WITHOUT_SHIFT))
    s = check_physics(res, prof).summary()
    assert s["verdict"] == "falls"
    assert s["cop_on_edge_fraction"] > 0.5  # the stance foot rolls on its edge


def test_support_by_force_is_checked() -> None:
    res, prof, _ = _setup(program_from_dict(LIFT_WITHOUT_SHIFT))
    with pytest.raises(PhysicsError, match="support 'feet': valid: geometry, force"):
        check_physics(res, prof, support="feet")
