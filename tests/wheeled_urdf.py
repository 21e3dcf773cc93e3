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


# ---------------------------------------------------------------- onshape-style omni base
ONSHAPE_R = 0.16  # m: wheel centre to base centre
ONSHAPE_WHEEL_R = 0.05  # m: the rollers' outer reach from the axle
ONSHAPE_ROLLERS = 8
_TINY = ('<inertial><origin xyz="0 0 0"/><mass value="1e-9"/>'
         '<inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>')  # fmt: skip


def _box_inertial(m: float, x: float, y: float, z: float, xyz: str = "0 0 0") -> str:
    ixx, iyy, izz = m * (y * y + z * z) / 12, m * (x * x + z * z) / 12, m * (x * x + y * y) / 12
    return (f'<inertial><origin xyz="{xyz}"/><mass value="{m}"/><inertia ixx="{ixx:.9g}" '
            f'ixy="0" ixz="0" iyy="{iyy:.9g}" iyz="0" izz="{izz:.9g}"/></inertial>')  # fmt: skip


def _omni_wheel(i: int, a_deg: float) -> str:
    """A driven hub without collision shapes (a small visual disc only) carrying
    ``ONSHAPE_ROLLERS`` passive rollers round its axle, as onshape-to-robot writes an
    omni wheel assembled from parts; plus an onshape frame link on the hub."""
    a = math.radians(a_deg)
    x, y = ONSHAPE_R * math.cos(a), ONSHAPE_R * math.sin(a)
    rr, rl = 0.012, 0.03  # roller radius and length
    rho = ONSHAPE_WHEEL_R - rr
    out = f"""
  <joint name="wheel_{i}_joint" type="continuous">
    <parent link="base_link"/><child link="wheel_{i}"/>
    <origin xyz="{x:.9f} {y:.9f} {ONSHAPE_WHEEL_R}" rpy="0 0 {a:.12f}"/>
    <axis xyz="1 0 0"/>
  </joint>
  <link name="wheel_{i}">
    <visual><origin rpy="0 1.5707963267948966 0"/>
      <geometry><cylinder radius="0.03" length="0.01"/></geometry></visual>
    {_box_inertial(0.15, 0.02, 0.06, 0.06)}
  </link>
  <link name="wheel_{i}_frame">{_TINY}</link>
  <joint name="wheel_{i}_frame_fixed" type="fixed">
    <parent link="wheel_{i}"/><child link="wheel_{i}_frame"/><origin xyz="0.01 0 0"/>
  </joint>"""
    for k in range(ONSHAPE_ROLLERS):
        phi = 2 * math.pi * k / ONSHAPE_ROLLERS
        out += f"""
  <joint name="roller_{i}_{k}" type="continuous">
    <parent link="wheel_{i}"/><child link="roller_{i}_{k}"/>
    <origin xyz="0 {rho * math.cos(phi):.9f} {rho * math.sin(phi):.9f}" rpy="{phi:.12f} 0 0"/>
    <axis xyz="0 0 1"/>
  </joint>
  <link name="roller_{i}_{k}">
    <collision><geometry><cylinder radius="{rr}" length="{rl}"/></geometry></collision>
    <visual><geometry><cylinder radius="{rr}" length="{rl}"/></geometry></visual>
    {_box_inertial(0.01, 2 * rr, 2 * rr, rl)}
  </link>"""
    return out


def write_onshape_omni_urdf(path: Path) -> Path:
    """A three-wheel omni base as onshape-to-robot exports it: passive rollers as
    continuous joints on shapeless driven hubs (wheels ``wheel_1..3_joint`` at 90, 210,
    330 deg), frame links of mass 1e-9 and zero inertia on fixed joints."""
    wheels = "".join(_omni_wheel(i + 1, a) for i, a in enumerate((90.0, 210.0, 330.0)))
    path.write_text(
        f"""<?xml version="1.0"?>
<robot name="onshape_omni">
  <link name="base_link">
    <collision><origin xyz="0 0 0.09"/><geometry><box size="0.3 0.3 0.06"/></geometry>
    </collision>
    {_box_inertial(4.0, 0.3, 0.3, 0.06, "0 0 0.09")}
  </link>
  <link name="frame_top">{_TINY}</link>
  <joint name="frame_top_fixed" type="fixed">
    <parent link="base_link"/><child link="frame_top"/><origin xyz="0 0 0.12"/>
  </joint>{wheels}
</robot>
"""
    )
    return path


# ---------------------------------------------------------------- Robotino-like base
ROBOTINO_R = 0.135  # m
ROBOTINO_WHEEL_R = 0.04  # m


def write_robotino_urdf(path: Path) -> Path:
    """A Robotino-like three-omniwheel base (wheels 0, 120, 240 deg) whose file gives
    each 10 mg wheel an inertia of 1 kg m^2, as Festo's published URDF does."""
    wheels = ""
    for i, a_deg in enumerate((0.0, 120.0, 240.0)):
        a = math.radians(a_deg)
        x, y = ROBOTINO_R * math.cos(a), ROBOTINO_R * math.sin(a)
        wheels += f"""
  <joint name="wheel{i}_joint" type="continuous">
    <parent link="base_link"/><child link="wheel{i}_link"/>
    <origin xyz="{x:.9f} {y:.9f} {ROBOTINO_WHEEL_R}" rpy="0 0 {a:.12f}"/>
    <axis xyz="1 0 0"/>
  </joint>
  <link name="wheel{i}_link">
    <collision><origin rpy="0 1.5707963267948966 0"/>
      <geometry><cylinder radius="{ROBOTINO_WHEEL_R}" length="0.03"/></geometry></collision>
    <inertial><mass value="0.00001"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
  </link>"""
    path.write_text(
        f"""<?xml version="1.0"?>
<robot name="robotino_like">
  <link name="base_link">
    <collision><origin xyz="0 0 0.1"/>
      <geometry><cylinder radius="0.18" length="0.12"/></geometry></collision>
    <inertial><origin xyz="0 0 0.1"/><mass value="11"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.18"/></inertial>
  </link>{wheels}
</robot>
"""
    )
    return path


def write_bare_robotino_urdf(path: Path) -> Path:
    """A base with the traits of Festo's published Robotino URDF: ``base_link`` has no
    inertial (physics gives it its collision cylinder's mass) and that cylinder is drawn
    down to the floor (its bottom level with the wheel bottoms); the 10 mg wheels have
    1 kg m^2 of inertia and no collision shape, only a visual mesh (an STL written here);
    a box on a fixed joint weighs 10 mg with 1 kg m^2 too."""
    import trimesh

    mesh = path.with_name(path.stem + "_wheel.stl")
    trimesh.creation.cylinder(radius=ROBOTINO_WHEEL_R, height=0.03, sections=48).apply_transform(
        trimesh.transformations.rotation_matrix(math.pi / 2, [0, 1, 0])
    ).export(mesh)
    absurd = ('<inertial><mass value="0.00001"/>'
              '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>')  # fmt: skip
    wheels = ""
    for i, a_deg in enumerate((60.0, 180.0, 300.0)):
        a = math.radians(a_deg)
        x, y = ROBOTINO_R * math.cos(a), ROBOTINO_R * math.sin(a)
        wheels += f"""
  <joint name="wheel{i}_joint" type="continuous">
    <parent link="base_link"/><child link="wheel{i}_link"/>
    <origin xyz="{x:.9f} {y:.9f} {ROBOTINO_WHEEL_R}" rpy="0 0 {a:.12f}"/>
    <axis xyz="-1 0 0"/>
  </joint>
  <link name="wheel{i}_link">
    <visual><geometry><mesh filename="{mesh.name}"/></geometry></visual>
    {absurd}
  </link>"""
    path.write_text(
        f"""<?xml version="1.0"?>
<robot name="robotino_bare">
  <link name="base_link">
    <collision><origin xyz="0 0 0.025"/>
      <geometry><cylinder radius="0.18" length="0.05"/></geometry></collision>
  </link>{wheels}
  <link name="bridge_link">
    {absurd}
    <collision><geometry><box size="0.25 0.11 0.16"/></geometry></collision>
  </link>
  <joint name="bridge_joint" type="fixed">
    <parent link="base_link"/><child link="bridge_link"/><origin xyz="-0.05 0 0.13"/>
  </joint>
</robot>
"""
    )
    return path
