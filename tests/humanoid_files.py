"""Humanoids written the way their makers publish them (no robotsim metadata), for the
tests of profiles, gaits and physics checks.

- :func:`write_nao_like_urdf`: a NAO-sized URDF humanoid *without a floating joint*
  (most humanoid URDFs: the torso is the root). Link lengths, masses and joint ranges
  are NAO H25 V5's as Aldebaran/SoftBank document them ("NAO - Links", "Masses",
  "Joints" pages of the NAOqi documentation): hip offsets 50/85 mm, thigh 100 mm,
  tibia 102.9 mm, foot height 45.19 mm, 5.29 kg in all, 6 joints per leg with the
  diagonal hip yaw-pitch axis (one motor for both hips, as in NAO's URDF from
  ros-naoqi/nao_robot: ``RHipYawPitch`` mimics ``LHipYawPitch``), 5-joint arms, a
  2-joint head carrying a camera frame.
  Shapes are boxes (the real file's meshes are not needed). The leg joint order can
  be shuffled (``leg_order``) to test that nothing depends on it.
- :func:`write_h1_like_mjcf`: a Unitree-H1-sized MJCF humanoid (1.8 m, ~47 kg): legs
  of hip yaw, hip roll, hip pitch, knee, ankle pitch (5 joints) whose knees bend only
  one way (range -0.26..2.05 rad as H1's), capsule feet, a torso yaw joint and
  4-joint arms. Sizes from mujoco_menagerie's unitree_h1/h1.xml (segment lengths
  0.4 m, hip offsets, masses rounded), shapes simplified.
- :func:`write_planar_walker_urdf`: a planar walker held by slides from a massless root.
- :func:`write_op3_like_mjcf`: a Robotis-OP3-sized MJCF (0.5 m): 6-joint legs,
  3-joint arms (shoulder pitch, shoulder roll, elbow) hanging at the sides and a
  2-joint head (pan, tilt) on top with a camera.
"""

from __future__ import annotations

import math
from pathlib import Path

__all__ = [
    "NAO_LEG",
    "write_h1_like_mjcf",
    "write_nao_like_urdf",
    "write_op3_like_mjcf",
    "write_planar_walker_urdf",
]


def _box_inertia(m: float, sx: float, sy: float, sz: float) -> str:
    ixx, iyy, izz = (m / 12 * (b * b + c * c) for b, c in ((sy, sz), (sx, sz), (sx, sy)))
    return f'<inertia ixx="{ixx:.6g}" iyy="{iyy:.6g}" izz="{izz:.6g}" ixy="0" ixz="0" iyz="0"/>'


def _link(name: str, mass: float, size: tuple[float, float, float] | None = None,
          at: tuple[float, float, float] = (0, 0, 0),
          com: tuple[float, float, float] | None = None) -> str:  # fmt: skip
    sx, sy, sz = size or (0.03, 0.03, 0.03)
    c = com if com is not None else at
    geom = ""
    if size is not None:
        geom = (f'\n    <collision><origin xyz="{at[0]} {at[1]} {at[2]}"/>'
                f'<geometry><box size="{sx} {sy} {sz}"/></geometry></collision>')  # fmt: skip
    return (
        f'  <link name="{name}">\n    <inertial><origin xyz="{c[0]} {c[1]} {c[2]}"/>'
        f'<mass value="{mass}"/>{_box_inertia(mass, sx, sy, sz)}</inertial>{geom}\n  </link>\n'
    )


def _joint(name: str, parent: str, child: str, xyz: tuple[float, float, float],
           axis: tuple[float, float, float], lo: float, hi: float,
           effort: float = 20.0) -> str:  # fmt: skip
    ax = " ".join(f"{a:.9g}" for a in axis)
    return (
        f'  <joint name="{name}" type="revolute"><parent link="{parent}"/>'
        f'<child link="{child}"/><origin xyz="{xyz[0]} {xyz[1]} {xyz[2]}" rpy="0 0 0"/>'
        f'<axis xyz="{ax}"/><limit lower="{lo}" upper="{hi}" effort="{effort}" '
        f'velocity="6"/></joint>\n'
    )


# NAO's leg from the hip down: (joint, axis (left leg), range (left leg), offset from the
# previous joint, the child link, its mass (kg), box size, box centre)
S = 1 / math.sqrt(2)
NAO_LEG = (
    ("HipYawPitch", (0, S, -S), (-1.145303, 0.740810), (0, 0.05, -0.085), "Pelvis", 0.06981),
    ("HipRoll", (1, 0, 0), (-0.379472, 0.790477), (0, 0, 0), "Hip", 0.14053),
    ("HipPitch", (0, 1, 0), (-1.535889, 0.484090), (0, 0, 0), "Thigh", 0.38968),
    ("KneePitch", (0, 1, 0), (-0.092346, 2.112528), (0, 0, -0.1), "Tibia", 0.30142),
    ("AnklePitch", (0, 1, 0), (-1.189516, 0.922747), (0, 0, -0.1029), "AnklePitchLink", 0.13416),
    ("AnkleRoll", (1, 0, 0), (-0.397880, 0.769001), (0, 0, 0), "Foot", 0.16184),
)
_NAO_SHAPES = {  # link -> (box size, box centre) in the link frame
    "Thigh": ((0.05, 0.05, 0.08), (0, 0, -0.05)),
    "Tibia": ((0.045, 0.045, 0.08), (0, 0, -0.05)),
    "Foot": ((0.16, 0.088, 0.015), (0.02, 0, -0.04519 + 0.0075)),
}


def write_nao_like_urdf(
    path: Path,
    leg_order: tuple[int, ...] = (0, 1, 2, 3, 4, 5),
    name: str = "nao_like",
    mimic_hip: bool = True,
    foot: tuple[float, float] | None = None,
) -> Path:
    """A NAO-like humanoid URDF at ``path`` (module docs). ``foot``: the sole's (length,
    width) (m) centred under the ankle instead of NAO's 16 x 8.8 cm (a 4.4 cm square
    is what a NAO file whose foot meshes are missing stands on). ``leg_order`` permutes the six
    leg joints from the hip down (the links keep their places, so any order is a
    different but valid leg). Root ``base_link`` (massless) fixed to ``torso``. As in
    NAO's own file, ``RHipYawPitch`` mimics ``LHipYawPitch`` (one motor drives both:
    the right leg has 5 joints of its own) unless ``mimic_hip`` is False."""
    out = [f'<?xml version="1.0"?>\n<robot name="{name}">\n', '  <link name="base_link"/>\n']
    out.append(_link("torso", 1.0496, (0.08, 0.12, 0.16), (0, 0, 0.05), (-0.00413, 0, 0.04342)))
    out.append('  <joint name="base_link_fixedjoint" type="fixed"><parent link="base_link"/>'
               '<child link="torso"/><origin xyz="0 0 0"/></joint>\n')  # fmt: skip
    # head: yaw then pitch, the camera in the forehead
    out.append(_link("Neck", 0.07842))
    out.append(_link("Head", 0.60533, (0.11, 0.13, 0.11), (0, 0, 0.055), (-0.00112, 0, 0.05258)))
    out.append(_joint("HeadYaw", "torso", "Neck", (0, 0, 0.1265), (0, 0, 1), -2.0857, 2.0857))
    out.append(_joint("HeadPitch", "Neck", "Head", (0, 0, 0), (0, 1, 0), -0.6720, 0.5149))
    out.append('  <link name="CameraTop_frame"/>\n  <joint name="CameraTop_sensor_fixedjoint" '
               'type="fixed"><parent link="Head"/><child link="CameraTop_frame"/>'
               '<origin xyz="0.05871 0 0.06364"/></joint>\n')  # fmt: skip
    for side, sy in (("L", 1), ("R", -1)):
        # arm: shoulder pitch (y), shoulder roll (z), elbow yaw (x), elbow roll (z),
        # wrist yaw (x); it points forward at the zero pose, as NAO's does
        arm = (
            ("ShoulderPitch", (0, 1, 0), (-2.0857, 2.0857), (0, 0.098 * sy, 0.1), "Shoulder", 0.09304),  # noqa: E501
            ("ShoulderRoll", (0, 0, 1), (-0.3142, 1.3265), (0, 0, 0), "Biceps", 0.15777),
            ("ElbowYaw", (1, 0, 0), (-2.0857, 2.0857), (0.105, 0.015 * sy, 0), "Elbow", 0.06483),
            ("ElbowRoll", (0, 0, 1), (-1.5446, -0.0349), (0, 0, 0), "ForeArm", 0.07761),
            ("WristYaw", (1, 0, 0), (-1.8238, 1.8238), (0.05595, 0, 0), "Hand", 0.18533),
        )  # fmt: skip
        parent = "torso"
        for jn, axis, (lo, hi), xyz, child, mass in arm:
            if sy < 0 and jn in ("ShoulderRoll", "ElbowRoll"):
                lo, hi = -hi, -lo
            shape = {"Biceps": ((0.1, 0.05, 0.05), (0.05, 0, 0)),
                     "ForeArm": ((0.05, 0.045, 0.045), (0.025, 0, 0)),
                     "Hand": ((0.06, 0.03, 0.04), (0.04, 0, 0))}.get(child)  # fmt: skip
            size, at = shape if shape else (None, (0, 0, 0))
            out.append(_link(f"{side}{child}", mass, size, at))
            out.append(_joint(f"{side}{jn}", parent, f"{side}{child}", xyz, axis, lo, hi))
            parent = f"{side}{child}"
        # leg, joints in the requested order down the same links
        specs = [NAO_LEG[k] for k in leg_order]
        parent = "torso"
        for k, (jn, axis, (lo, hi), _, _, _) in enumerate(specs):
            _, _, _, xyz, child, mass = NAO_LEG[k]  # the links and offsets stay in place
            ax = (axis[0], axis[1], axis[2] * sy) if jn == "HipYawPitch" else axis
            if sy < 0 and jn in ("HipRoll", "AnkleRoll"):
                lo, hi = -hi, -lo
            size, at = _NAO_SHAPES.get(child, (None, (0, 0, 0)))
            if child == "Foot" and foot is not None:
                size, at = (foot[0], foot[1], 0.015), (0, 0, -0.04519 + 0.0075)
            out.append(_link(f"{side}{child}", mass, size, at))
            off = (xyz[0], xyz[1] * sy, xyz[2])
            joint = _joint(f"{side}{jn}", parent, f"{side}{child}", off, ax, lo, hi)
            if mimic_hip and side == "R" and jn == "HipYawPitch":  # one motor, as NAO's
                joint = joint.replace("</joint>", '<mimic joint="LHipYawPitch"/></joint>')
            out.append(joint)
            parent = f"{side}{child}"
        out.append(f'  <link name="{side.lower()}_sole"/>\n  <joint name="{side}Leg_sole_'
                   f'fixedjoint" type="fixed"><parent link="{side}Foot"/><child link='
                   f'"{side.lower()}_sole"/><origin xyz="0 0 -0.04519"/></joint>\n')  # fmt: skip
    out.append("</robot>\n")
    path.write_text("".join(out))
    return path


_PLANAR_WALKER = """<?xml version="1.0"?>
<robot name="planar_walker">
  <link name="world"/>
  <link name="slide_x"/>
  <link name="slide_z"/>
  <joint name="rootx" type="prismatic"><parent link="world"/><child link="slide_x"/>
    <axis xyz="1 0 0"/><limit lower="-10" upper="10" effort="100" velocity="5"/></joint>
  <joint name="rootz" type="prismatic"><parent link="slide_x"/><child link="slide_z"/>
    <origin xyz="0 0 0.8"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="100" velocity="5"/></joint>
  <joint name="rooty" type="revolute"><parent link="slide_z"/><child link="torso"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="100" velocity="5"/></joint>
  <link name="torso">
    <inertial><mass value="5"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.3 0.3"/></geometry></collision>
  </link>
{legs}
</robot>
"""


def _leg(side: str, y: float) -> str:
    out = []
    parent = "torso"
    for k, (jn, dz) in enumerate((("hip", -0.15), ("knee", -0.3), ("ankle", -0.3))):
        child = f"{side}_{jn}_link"
        lo, hi = (0.0, 2.0) if jn == "knee" else (-1.0, 1.0)
        out.append(
            f'<joint name="{side}_{jn}" type="revolute"><parent link="{parent}"/>'
            f'<child link="{child}"/><origin xyz="0 {y if k == 0 else 0} {dz}"/>'
            f'<axis xyz="0 1 0"/><limit lower="{lo}" upper="{hi}" effort="50" velocity="5"/>'
            "</joint>"
        )
        shape = (
            '<collision><origin xyz="0.03 0 -0.05"/><geometry><box size="0.2 0.1 0.02"/>'
            "</geometry></collision>"
            if jn == "ankle"
            else '<collision><origin xyz="0 0 -0.15"/><geometry><box size="0.05 0.05 0.25"/>'
            "</geometry></collision>"
        )
        out.append(
            f'<link name="{child}"><inertial><mass value="1"/><inertia ixx="0.01" '
            f'iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>{shape}</link>'
        )
        parent = child
    return "\n".join(out)


def write_planar_walker_urdf(path: Path) -> Path:
    """A planar walker: a torso on two slides (x, z) and a hinge (pitch) from a massless
    ``world`` root, two 3-joint legs with box feet (the structure of MuJoCo's walker2d):
    legged, but its root cannot be set free."""
    path.write_text(_PLANAR_WALKER.format(legs=_leg("left", 0.1) + _leg("right", -0.1)))
    return path


def _inertial(mass: float, at: tuple[float, float, float] = (0, 0, 0), r: float = 0.05) -> str:
    i = 0.4 * mass * r * r
    return (f'<inertial pos="{at[0]} {at[1]} {at[2]}" mass="{mass}" '
            f'diaginertia="{i:.6g} {i:.6g} {i:.6g}"/>')  # fmt: skip


def write_h1_like_mjcf(path: Path, free: bool = True) -> Path:
    """A Unitree-H1-sized MJCF humanoid (module docs): pelvis 1.06 m up, legs of hip
    yaw (z), hip roll (x), hip pitch (y), knee (y, -0.26..2.05 rad), ankle pitch (y,
    -0.87..0.52 rad) with 0.4 m thigh and shank and three capsules per foot, a torso on
    a yaw joint with 4-joint arms; about 47 kg. ``free``: a ``<freejoint/>`` on the
    pelvis (as H1's file has)."""
    legs = []
    for side, s in (("left", 1), ("right", -1)):
        legs.append(f"""
      <body name="{side}_hip_yaw_link" pos="0 {0.0875 * s} -0.1742">
        {_inertial(2.24, (-0.05, 0, 0.007))}
        <joint name="{side}_hip_yaw" axis="0 0 1" range="-0.43 0.43"/>
        <geom type="cylinder" size="0.06 0.035" pos="-0.067 0 0" zaxis="1 0 0"/>
        <body name="{side}_hip_roll_link" pos="0.039468 0 0">
          {_inertial(2.23, (-0.006, -0.003 * s, 0))}
          <joint name="{side}_hip_roll" axis="1 0 0" range="-0.43 0.43"/>
          <body name="{side}_hip_pitch_link" pos="0 {0.11536 * s} 0">
            {_inertial(4.15, (0.007, -0.023 * s, -0.082), 0.1)}
            <joint name="{side}_hip_pitch" axis="0 1 0" range="-1.57 1.57"/>
            <geom type="capsule" size="0.03" fromto="0.02 0 -0.4 0.02 0 0.02"/>
            <body name="{side}_knee_link" pos="0 0 -0.4">
              {_inertial(1.72, (-0.001, -0.005 * s, -0.138), 0.08)}
              <joint name="{side}_knee" axis="0 1 0" range="-0.26 2.05"/>
              <geom type="capsule" size="0.025" fromto="0.02 0 -0.4 0.02 0 0"/>
              <body name="{side}_ankle_link" pos="0 0 -0.4">
                {_inertial(0.45, (0.067, 0, -0.045), 0.04)}
                <joint name="{side}_ankle" axis="0 1 0" range="-0.87 0.52"/>
                <geom type="capsule" size="0.014" fromto="-0.035 0 -0.056 0.02 0 -0.045"/>
                <geom type="capsule" size="0.014" fromto="0.02 0 -0.045 0.115 0 -0.056"/>
                <geom type="capsule" size="0.014" fromto="0.14 -0.03 -0.056 0.14 0.03 -0.056"/>
              </body>
            </body>
          </body>
        </body>
      </body>""")
    arms = []
    for side, s in (("left", 1), ("right", -1)):
        roll = "-0.34 3.11" if s > 0 else "-3.11 0.34"
        yaw = "-1.3 4.45" if s > 0 else "-4.45 1.3"
        arms.append(f"""
        <body name="{side}_shoulder_pitch_link" pos="0.0055 {0.15535 * s} 0.43">
          {_inertial(1.03, (0.005, 0.054 * s, -0.016))}
          <joint name="{side}_shoulder_pitch" axis="0 1 0" range="-2.87 2.87"/>
          <body name="{side}_shoulder_roll_link" pos="-0.0055 {0.0565 * s} -0.0165">
            {_inertial(0.79, (0, 0.001 * s, -0.094))}
            <joint name="{side}_shoulder_roll" axis="1 0 0" range="{roll}"/>
            <geom type="capsule" size="0.04" fromto="0 {0.01 * s} 0.008 0 {-0.07 * s} -0.02"/>
            <body name="{side}_shoulder_yaw_link" pos="0 0 -0.1343">
              {_inertial(0.84, (0.014, 0.003 * s, -0.163))}
              <joint name="{side}_shoulder_yaw" axis="0 0 1" range="{yaw}"/>
              <geom type="capsule" size="0.03" fromto="0 0 0.15 0 0 -0.2"/>
              <body name="{side}_elbow_link" pos="0.0185 0 -0.198">
                {_inertial(0.67, (0.159, 0, -0.016))}
                <joint name="{side}_elbow" axis="0 1 0" range="-1.25 2.61"/>
                <geom type="capsule" size="0.025" fromto="0 0 0 0.28 0 -0.015"/>
              </body>
            </body>
          </body>
        </body>""")
    path.write_text(f"""<mujoco model="h1_like">
  <compiler angle="radian" autolimits="true"/>
  <default><geom mass="0" density="0"/><joint damping="1" armature="0.1"/></default>
  <worldbody>
    <body name="pelvis" pos="0 0 1.06">
      {_inertial(5.39, (0, 0, -0.045), 0.1)}
      {"<freejoint/>" if free else ""}{"".join(legs)}
      <body name="torso_link">
        {_inertial(17.79, (0, 0.003, 0.205), 0.15)}
        <joint name="torso" axis="0 0 1" range="-2.35 2.35"/>
        <geom name="head" type="sphere" size="0.073" pos="0.045 0 0.68"/>
        <geom name="torso" type="box" size="0.07 0.1 0.22" pos="0 0 0.25"/>{"".join(arms)}
      </body>
    </body>
  </worldbody>
</mujoco>
""")
    return path


def write_op3_like_mjcf(path: Path) -> Path:
    """A Robotis-OP3-sized MJCF humanoid (module docs): 0.5 m, 3 kg; joints without
    ranges (as OP3's file has: unlimited hinges); legs of hip yaw, roll, pitch, knee,
    ankle pitch, roll with 0.11 m thigh and shank and box feet; arms of shoulder pitch,
    shoulder roll, elbow held out sideways at the zero pose; a head of pan (z) and tilt
    (y) on top of the body, with a camera in its face."""
    legs, arms = [], []
    for side, s in (("l", 1), ("r", -1)):
        legs.append(f"""
      <body name="{side}_hip_yaw_link" pos="0 {0.035 * s} 0">
        {_inertial(0.012, (0, 0, -0.008), 0.01)}
        <joint name="{side}_hip_yaw" axis="0 0 -1"/>
        <body name="{side}_hip_roll_link" pos="-0.024 0 -0.0285">
          {_inertial(0.18, (0.004, 0, -0.012), 0.02)}
          <joint name="{side}_hip_roll" axis="-1 0 0"/>
          <body name="{side}_hip_pitch_link" pos="0.0241 {0.019 * s} 0">
            {_inertial(0.115, (0, -0.019 * s, -0.084), 0.03)}
            <joint name="{side}_hip_pitch" axis="0 {s} 0"/>
            <geom type="box" size="0.02 0.02 0.04" pos="0 0 -0.055"/>
            <body name="{side}_knee_link" pos="0 0 -0.11015">
              {_inertial(0.04, (0, -0.02 * s, -0.055), 0.03)}
              <joint name="{side}_knee" axis="0 {s} 0"/>
              <geom type="box" size="0.02 0.02 0.04" pos="0 0 -0.055"/>
              <body name="{side}_ank_pitch_link" pos="0 0 -0.11">
                {_inertial(0.18, (-0.02, -0.019 * s, 0.012), 0.02)}
                <joint name="{side}_ank_pitch" axis="0 {-s} 0"/>
                <body name="{side}_ank_roll_link" pos="-0.0241 {-0.019 * s} 0">
                  {_inertial(0.07, (0.024, 0.01 * s, -0.028), 0.02)}
                  <joint name="{side}_ank_roll" axis="1 0 0"/>
                  <geom type="box" pos="0.024 {0.0125 * s} -0.0265" size="0.057 0.039 0.004"/>
                </body>
              </body>
            </body>
          </body>
        </body>
      </body>""")
        arms.append(f"""
      <body name="{side}_sho_pitch_link" pos="-0.001 {0.06 * s} 0.111">
        {_inertial(0.012, (0, 0.008 * s, -0.002), 0.01)}
        <joint name="{side}_sho_pitch" axis="0 {s} 0"/>
        <body name="{side}_sho_roll_link" pos="0.019 {0.0285 * s} -0.01">
          {_inertial(0.178, (-0.018, 0.045 * s, 0), 0.03)}
          <joint name="{side}_sho_roll" axis="-1 0 0"/>
          <geom type="box" size="0.015 0.045 0.015" pos="-0.018 {0.045 * s} 0"/>
          <body name="{side}_el_link" pos="0 {0.0904 * s} -0.0001">
            {_inertial(0.041, (-0.019, 0.07 * s, 0.004), 0.03)}
            <joint name="{side}_el" axis="1 0 0"/>
            <geom type="box" size="0.015 0.05 0.015" pos="-0.019 {0.06 * s} 0"/>
          </body>
        </body>
      </body>""")
    path.write_text(f"""<mujoco model="op3_like">
  <compiler angle="radian" autolimits="true"/>
  <worldbody>
    <body name="body_link" pos="0 0 0.3">
      {_inertial(1.35, (-0.015, 0, 0.066), 0.06)}
      <freejoint/>
      <geom type="box" size="0.05 0.07 0.07" pos="-0.01 0 0.06" mass="0"/>
      <body name="head_pan_link" pos="-0.001 0 0.1365">
        {_inertial(0.012, (0.002, 0, 0.008), 0.01)}
        <joint name="head_pan" axis="0 0 1"/>
        <body name="head_tilt_link" pos="0.01 0.019 0.0285">
          {_inertial(0.136, (0.002, -0.019, 0.028), 0.03)}
          <joint name="head_tilt" axis="0 -1 0"/>
          <geom type="box" size="0.04 0.05 0.045" pos="0 -0.019 0.03" mass="0"/>
          <camera name="egocentric" pos="0.014 -0.019 0.05" fovy="43.3"
            euler="0 -1.570796 -1.570796"/>
        </body>
      </body>{"".join(arms)}{"".join(legs)}
    </body>
  </worldbody>
</mujoco>
""")
    return path
