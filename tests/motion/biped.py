"""A small 10-DoF biped built in code (box feet, sole frames), for playback tests that
must not depend on the library humanoid."""

from __future__ import annotations

import numpy as np

from robotsim.model import RobotBuilder
from robotsim.model.builder import xyz_rpy
from robotsim.model.geometry import Box, Shape
from robotsim.model.robot import Inertial, RobotModel
from robotsim.motion.profile import SoleSpec

SOLES = (SoleSpec(frame="l_sole", size=(0.12, 0.06)), SoleSpec(frame="r_sole", size=(0.12, 0.06)))


def biped() -> RobotModel:
    """Pelvis at the root; per leg hip roll (x), hip pitch (y), knee (y), ankle pitch (y),
    ankle roll (x); thigh and shank 0.2 m; soles 0.04 m below the ankle."""
    b = RobotBuilder("test_biped", kind="humanoid", floating=True)
    b.link("pelvis", [Shape(Box((0.1, 0.2, 0.1)))], inertial=Inertial(3.0))
    for side, y in (("l", 0.06), ("r", -0.06)):
        b.link(f"{side}_hip", inertial=Inertial(0.1))
        b.link(f"{side}_thigh", inertial=Inertial(0.5, np.array([0, 0, -0.1])))
        b.link(f"{side}_shank", inertial=Inertial(0.4, np.array([0, 0, -0.1])))
        b.link(f"{side}_ankle", inertial=Inertial(0.05))
        b.link(
            f"{side}_foot",
            [Shape(Box((0.12, 0.06, 0.02)), xyz_rpy([0, 0, -0.03]))],
            inertial=Inertial(0.2),
        )
        lim = {"lower": -1.5, "upper": 1.5, "velocity": 4.0}
        b.joint(
            f"{side}_hip_roll",
            "revolute",
            "pelvis",
            f"{side}_hip",
            origin=xyz_rpy([0, y, -0.05]),
            axis=(1, 0, 0),
            **lim,
        )
        b.joint(
            f"{side}_hip_pitch", "revolute", f"{side}_hip", f"{side}_thigh", axis=(0, 1, 0), **lim
        )
        b.joint(
            f"{side}_knee",
            "revolute",
            f"{side}_thigh",
            f"{side}_shank",
            origin=xyz_rpy([0, 0, -0.2]),
            axis=(0, 1, 0),
            lower=0.0,
            upper=2.5,
            velocity=4.0,
        )
        b.joint(
            f"{side}_ankle_pitch",
            "revolute",
            f"{side}_shank",
            f"{side}_ankle",
            origin=xyz_rpy([0, 0, -0.2]),
            axis=(0, 1, 0),
            **lim,
        )
        b.joint(
            f"{side}_ankle_roll", "revolute", f"{side}_ankle", f"{side}_foot", axis=(1, 0, 0), **lim
        )
        b.frame(f"{side}_sole", f"{side}_foot", xyz_rpy([0, 0, -0.04]))
    b.pose("stand", {})
    return b.build()
