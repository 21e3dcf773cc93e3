"""The documented ranges of every gain and force a file can give (SI units).

Values above these are typos or tests of the simulator, never robots: a wheel's
velocity servo with ``gain: 1e9`` saturates every command and moves the robot 0.01 m
in 20 s without a word, a spring of 1e12 N/m explodes the step. Each schema field that
takes a gain or a force uses these bounds (pydantic ``le=``), so such a file is refused
with the field's path and the bound; docs/physics.md lists them.
"""

from __future__ import annotations

__all__ = [
    "MAX_ARMATURE",
    "MAX_DAMPING",
    "MAX_FORCE",
    "MAX_FRICTION",
    "MAX_JOINT_FRICTION",
    "MAX_LENGTH",
    "MAX_PID_GAIN",
    "MAX_SERVO_GAIN",
    "MAX_STIFFNESS",
    "MAX_VELOCITY_GAIN",
]

#: PID gains of a controller (kp 1/s, ki 1/s^2, kd dimensionless on a pose error).
MAX_PID_GAIN = 1.0e4
#: A position servo's stiffness kp (N m/rad on a hinge, N/m on a slider).
MAX_SERVO_GAIN = 1.0e5
#: A velocity servo's gain kv (N m s/rad, N s/m): a wheel motor's ``gain``.
MAX_VELOCITY_GAIN = 1.0e4
#: A servo's or a joint's damping (N m s/rad, N s/m).
MAX_DAMPING = 1.0e4
#: A force or torque limit of a motor or servo (N m, N).
MAX_FORCE = 1.0e5
#: A passive spring's stiffness (N m/rad, N/m).
MAX_STIFFNESS = 1.0e6
#: A joint's dry friction (N m, N).
MAX_JOINT_FRICTION = 1.0e5
#: A joint's armature, the reflected inertia of its rotor (kg m^2, kg).
MAX_ARMATURE = 1.0e2
#: Any coordinate, size or distance in a scene or sensor file (m): 10 km holds every
#: field and workcell; 1e308 overflows the geometry and the step.
MAX_LENGTH = 1.0e4
#: A contact's friction coefficient (dimensionless; rubber on concrete is about 1).
MAX_FRICTION = 1.0e2
