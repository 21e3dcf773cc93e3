"""A three-joint test arm (base yaw, shoulder and elbow pitch) that carries a hand from
another maker at its wrist, as MJCF text: the grasp tests put different hands on it."""

from __future__ import annotations


def arm_mjcf(model: str, palm: str, wrist: float, tail: str, radians: bool = False) -> str:
    """MJCF of the arm named ``model`` with ``palm`` (the ``<body name="palm">`` XML, at
    ``wrist`` + 0.02 m along the forearm, its +z along the arm) on a wrist capsule of
    ``wrist`` m; ``tail``: what follows ``</worldbody>`` (equalities, actuators)."""
    compiler = '\n  <compiler angle="radian"/>' if radians else ""
    return f"""<mujoco model="{model}">{compiler}
  <worldbody>
    <body name="base">
      <geom type="cylinder" size="0.05 0.03" pos="0 0 0.03"/>
      <body name="upper" pos="0 0 0.06">
        <joint name="j1" axis="0 0 1" range="-3 3"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.03"/>
        <body name="fore" pos="0 0 0.3">
          <joint name="j2" axis="0 1 0" range="-2 2"/>
          <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.025"/>
          <body name="wrist" pos="0.25 0 0">
            <joint name="j3" axis="0 1 0" range="-2 2"/>
            <geom type="capsule" fromto="0 0 0 {wrist:g} 0 0" size="0.02"/>
            <body name="palm" pos="{wrist + 0.02:g} 0 0" quat="0.7071068 0 0.7071068 0">
{palm}
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>{tail}
</mujoco>
"""
