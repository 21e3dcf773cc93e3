"""A library arm under the default position servos follows commanded joints stably."""

from __future__ import annotations

import numpy as np

import robotsim
from robotsim.physics import RobotPlacement, Scene, World


def test_puma_default_servos_reach_a_pose_without_diverging() -> None:
    """The PUMA's wrist links are light (4e-5 kg m^2): without the armature floor
    kp*h^2 the default kp=200 servo diverged on the first command."""
    puma = robotsim.load_robot("puma560")
    world = World(Scene(name="puma", robots=[RobotPlacement("A", puma)]))
    target = puma.pose("qr")
    target[0], target[5] = 0.5, 1.0
    for name, value in zip(puma.joint_names, target):
        world.motor(f"A/{name}").set(value)
    world.step(int(3.0 / world.model.opt.timestep))
    q = np.array([world.joint(f"A/{n}").q for n in puma.joint_names])
    assert np.all(np.isfinite(q))
    assert np.max(np.abs(q - target)) < 0.05  # P servo against gravity: small sag
