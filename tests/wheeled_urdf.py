"""Wheeled bases written as URDF the way a maker would (no robotsim metadata), for the
tests of mobile runs, remote drive and the studio: a three-omniwheel base with its wheels
as continuous joints 120 deg apart, and the TurtleBot3 Burger from the shared fixtures."""

from __future__ import annotations

import math
from pathlib import Path

from tests.paths import FIXTURES

TURTLEBOT = FIXTURES / "urdf/turtlebot3_burger/turtlebot3_description/urdf/turtlebot3_burger.urdf"

OMNI_R = 0.18  # m: wheel centre to base centre
OMNI_WHEEL_R = 0.04  # m
OMNI_ANGLES_DEG = (-60.0, 60.0, 180.0)  # the paper's wheel positions (seed 002, eq. 1)


def _wheel(i: int, a_deg: float) -> str:
    a = math.radians(a_deg)
    x, y = OMNI_R * math.cos(a), OMNI_R * math.sin(a)
    # axle along the radius, pointing in: a positive rate rolls the rim counter-clockwise
    return f"""
  <joint name="axle_{i}" type="continuous">
    <parent link="chassis"/>
    <child link="hub_{i}"/>
    <origin xyz="{x:.9f} {y:.9f} 0" rpy="0 0 {a:.12f}"/>
    <axis xyz="-1 0 0"/>
  </joint>
  <link name="hub_{i}">
    <collision>
      <origin xyz="0 0 0" rpy="0 1.5707963267948966 0"/>
      <geometry><cylinder radius="{OMNI_WHEEL_R}" length="0.03"/></geometry>
    </collision>
    <inertial>
      <mass value="0.3"/>
      <inertia ixx="0.00015" iyy="0.00015" izz="0.00024" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>"""


def write_omni_urdf(path: Path) -> Path:
    """A three-omniwheel base: root link ``chassis`` at the wheel centres' height (so the
    wheels, not the root, touch the ground), wheels ``axle_1..3``."""
    wheels = "".join(_wheel(i + 1, a) for i, a in enumerate(OMNI_ANGLES_DEG))
    path.write_text(
        f"""<?xml version="1.0"?>
<robot name="tri_omni">
  <link name="chassis">
    <collision>
      <origin xyz="0 0 0.03"/>
      <geometry><cylinder radius="0.22" length="0.05"/></geometry>
    </collision>
    <inertial>
      <origin xyz="0 0 0.03"/>
      <mass value="4.0"/>
      <inertia ixx="0.05" iyy="0.05" izz="0.097" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>{wheels}
</robot>
"""
    )
    return path
