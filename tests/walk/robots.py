"""Humanoids built for the walk tests, written as files the way their makers ship them.

- :func:`urdf_humanoid`: a 45 kg humanoid as URDF **without a floating joint** (most
  humanoid URDFs), six-joint legs (hip yaw, roll, pitch, knee, ankle pitch, roll);
- :func:`h1_like_mjcf`: an H1-like MJCF (free joint, five-joint legs with no ankle
  roll, a torso yaw joint, box feet), about 48 kg and 1.7 m;
- :func:`arm_urdf`: a robot without legs.

Sizes are plausible for robots of their class; nothing in robotsim knows them.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["arm_urdf", "h1_like_mjcf", "urdf_humanoid"]


def _inertia(m: float, sx: float, sy: float, sz: float) -> str:
    ixx, iyy, izz = m * (sy**2 + sz**2) / 12, m * (sx**2 + sz**2) / 12, m * (sx**2 + sy**2) / 12
    return f'<inertia ixx="{ixx:.6g}" iyy="{iyy:.6g}" izz="{izz:.6g}" ixy="0" ixz="0" iyz="0"/>'


def _link(name: str, m: float, size: tuple[float, float, float], xyz: tuple[float, ...]) -> str:
    x, y, z = xyz
    sx, sy, sz = size
    inertia = _inertia(m, sx, sy, sz)
    at = f'<origin xyz="{x} {y} {z}"/>'
    box = f'<geometry><box size="{sx} {sy} {sz}"/></geometry>'
    return f"""
  <link name="{name}">
    <inertial>{at}<mass value="{m}"/>{inertia}</inertial>
    <visual>{at}{box}</visual>
    <collision>{at}{box}</collision>
  </link>"""


def _joint(
    name: str,
    parent: str,
    child: str,
    xyz: tuple[float, ...],
    axis: str,
    lims: tuple[float, float],
    effort: float = 150.0,
) -> str:
    x, y, z = xyz
    lo, hi = lims
    return f"""
  <joint name="{name}" type="revolute">
    <parent link="{parent}"/><child link="{child}"/>
    <origin xyz="{x} {y} {z}"/><axis xyz="{axis}"/>
    <limit lower="{lo}" upper="{hi}" effort="{effort}" velocity="12"/>
  </joint>"""


def urdf_humanoid(folder: Path) -> Path:
    """Write ``bot.urdf`` into ``folder``: pelvis (root), torso and head fixed on it, two
    arms (shoulder pitch, elbow), two six-joint legs of 0.32 m thigh and shank."""
    parts = [_link("pelvis", 6.0, (0.18, 0.26, 0.12), (0, 0, 0))]
    parts.append(_link("torso", 14.0, (0.2, 0.3, 0.36), (0, 0, 0.18)))
    parts.append('\n  <joint name="waist" type="fixed"><parent link="pelvis"/><child link="torso"/>'
                 '<origin xyz="0 0 0.06"/></joint>')  # fmt: skip
    for side, s in (("left", 1), ("right", -1)):
        j, lk = f"{side}_", f"{side}_"
        parts += [
            _link(lk + "upper_arm", 1.5, (0.06, 0.06, 0.26), (0, 0, -0.13)),
            _link(lk + "forearm", 1.0, (0.05, 0.05, 0.24), (0, 0, -0.12)),
            _joint(j + "shoulder", "torso", lk + "upper_arm", (0, s * 0.19, 0.32), "0 1 0",
                   (-2.5, 2.5), 40),
            _joint(j + "elbow", lk + "upper_arm", lk + "forearm", (0, 0, -0.26), "0 1 0",
                   (-2.3, 0.0), 30),
            _link(lk + "hip_yaw_link", 0.6, (0.06, 0.06, 0.06), (0, 0, 0)),
            _link(lk + "hip_roll_link", 0.6, (0.06, 0.06, 0.06), (0, 0, 0)),
            _link(lk + "thigh", 4.0, (0.1, 0.1, 0.32), (0, 0, -0.16)),
            _link(lk + "shank", 3.0, (0.08, 0.08, 0.32), (0, 0, -0.16)),
            _link(lk + "ankle_link", 0.3, (0.04, 0.04, 0.04), (0, 0, 0)),
            _link(lk + "foot", 1.0, (0.22, 0.1, 0.04), (0.03, 0, -0.03)),
            _joint(j + "hip_yaw", "pelvis", lk + "hip_yaw_link", (0, s * 0.09, -0.08), "0 0 1",
                   (-0.6, 0.6)),
            _joint(j + "hip_roll", lk + "hip_yaw_link", lk + "hip_roll_link", (0, 0, 0), "1 0 0",
                   (-0.5, 0.5)),
            _joint(j + "hip_pitch", lk + "hip_roll_link", lk + "thigh", (0, 0, 0), "0 1 0",
                   (-1.8, 0.8)),
            _joint(j + "knee", lk + "thigh", lk + "shank", (0, 0, -0.32), "0 1 0", (0.0, 2.4)),
            _joint(j + "ankle_pitch", lk + "shank", lk + "ankle_link", (0, 0, -0.32), "0 1 0",
                   (-0.9, 0.9), 80),
            _joint(j + "ankle_roll", lk + "ankle_link", lk + "foot", (0, 0, 0), "1 0 0",
                   (-0.4, 0.4), 60),
        ]  # fmt: skip
    path = Path(folder) / "bot.urdf"
    path.write_text(
        '<?xml version="1.0"?>\n<robot name="urdfbot">' + "".join(parts) + "\n</robot>\n"
    )
    return path


def h1_like_mjcf(folder: Path) -> Path:
    """Write ``h1like.xml`` into ``folder``: a free-floating pelvis, a torso on a yaw
    joint, arms, and five-joint legs (hip yaw, hip roll, hip pitch, knee, ankle pitch)
    with 0.4 m thighs and shanks, in the H1's joint order."""

    def leg(side: str, s: int) -> str:
        return f"""
      <body name="{side}_hip_yaw_link" pos="0 {s * 0.0875} -0.17">
        <inertial pos="0 0 0" mass="2.2" diaginertia="0.004 0.004 0.004"/>
        <joint name="{side}_hip_yaw" axis="0 0 1" range="-0.43 0.43"/>
        <body name="{side}_hip_roll_link" pos="0.04 {s * 0.05} 0">
          <inertial pos="0 0 0" mass="2.2" diaginertia="0.004 0.004 0.004"/>
          <joint name="{side}_hip_roll" axis="1 0 0" range="-0.43 0.43"/>
          <body name="{side}_hip_pitch_link" pos="0 0 0">
            <inertial pos="0 0 -0.15" mass="4.2" diaginertia="0.08 0.08 0.01"/>
            <joint name="{side}_hip_pitch" axis="0 1 0" range="-3.1 2.5"/>
            <geom type="capsule" fromto="0 0 -0.05 0 0 -0.35" size="0.05"/>
            <body name="{side}_knee_link" pos="0 0 -0.4">
              <inertial pos="0 0 -0.15" mass="2.0" diaginertia="0.04 0.04 0.005"/>
              <joint name="{side}_knee" axis="0 1 0" range="-0.26 2.05"/>
              <geom type="capsule" fromto="0 0 -0.05 0 0 -0.35" size="0.04"/>
              <body name="{side}_ankle_link" pos="0 0 -0.4">
                <inertial pos="0.03 0 -0.04" mass="0.8" diaginertia="0.001 0.004 0.004"/>
                <joint name="{side}_ankle" axis="0 1 0" range="-0.87 0.52"/>
                <geom type="box" pos="0.04 0 -0.045" size="0.12 0.045 0.025"/>
              </body>
            </body>
          </body>
        </body>
      </body>"""

    def arm(side: str, s: int) -> str:
        return f"""
        <body name="{side}_shoulder_link" pos="0 {s * 0.2} 0.4">
          <inertial pos="0 0 -0.12" mass="1.8" diaginertia="0.01 0.01 0.002"/>
          <joint name="{side}_shoulder_pitch" axis="0 1 0" range="-2.8 2.8"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.25" size="0.035"/>
          <body name="{side}_elbow_link" pos="0 0 -0.28">
            <inertial pos="0 0 -0.12" mass="0.8" diaginertia="0.005 0.005 0.001"/>
            <joint name="{side}_elbow" axis="0 1 0" range="-1.2 2.6"/>
            <geom type="capsule" fromto="0 0 0 0 0 -0.24" size="0.03"/>
          </body>
        </body>"""

    xml = f"""<mujoco model="h1like">
  <compiler angle="radian"/>
  <default><joint damping="1" armature="0.05"/><geom rgba="0.7 0.7 0.7 1"/></default>
  <worldbody>
    <body name="pelvis" pos="0 0 1.05">
      <freejoint/>
      <inertial pos="0 0 0" mass="5.4" diaginertia="0.05 0.01 0.05"/>
      <geom type="box" size="0.08 0.12 0.06"/>
      <body name="torso_link" pos="0 0 0.05">
        <inertial pos="0 0 0.25" mass="17.0" diaginertia="0.5 0.45 0.15"/>
        <joint name="torso" axis="0 0 1" range="-2.35 2.35"/>
        <geom type="box" pos="0 0 0.25" size="0.1 0.15 0.2"/>
        <geom type="sphere" pos="0 0 0.55" size="0.1"/>{arm("left", 1)}{arm("right", -1)}
      </body>{leg("left", 1)}{leg("right", -1)}
    </body>
  </worldbody>
</mujoco>
"""
    path = Path(folder) / "h1like.xml"
    path.write_text(xml)
    return path


def arm_urdf(folder: Path) -> Path:
    """Write ``arm.urdf``: a two-joint arm on a fixed base (no legs)."""
    parts = [
        _link("base", 3.0, (0.2, 0.2, 0.1), (0, 0, 0.05)),
        _link("upper", 1.0, (0.05, 0.05, 0.4), (0, 0, 0.2)),
        _link("lower", 0.5, (0.04, 0.04, 0.3), (0, 0, 0.15)),
        _joint("shoulder", "base", "upper", (0, 0, 0.1), "0 1 0", (-2.0, 2.0)),
        _joint("elbow", "upper", "lower", (0, 0, 0.4), "0 1 0", (-2.0, 2.0)),
    ]
    path = Path(folder) / "arm.urdf"
    path.write_text('<?xml version="1.0"?>\n<robot name="arm">' + "".join(parts) + "\n</robot>\n")
    return path
