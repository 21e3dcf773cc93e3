"""Batched kinematics: forward kinematics, Jacobians, IK, anchored floating base, and
rigid-body dynamics (inverse dynamics, gravity torques, mass matrix).

These functions are the primary API; ``RobotModel.fk/fk_all/jacobian/ik`` delegate
here (the model package does not import this one).
"""

from robotsim.kinematics.dynamics import compile_dynamics as compile_dynamics
from robotsim.kinematics.dynamics import gravity_torques as gravity_torques
from robotsim.kinematics.dynamics import inverse_dynamics as inverse_dynamics
from robotsim.kinematics.dynamics import mass_matrix as mass_matrix
from robotsim.kinematics.fk import compile_tree as compile_tree
from robotsim.kinematics.fk import fk as fk
from robotsim.kinematics.fk import fk_all as fk_all
from robotsim.kinematics.fk import fk_frames as fk_frames
from robotsim.kinematics.floating import AnchoredState as AnchoredState
from robotsim.kinematics.ik import IKResult as IKResult
from robotsim.kinematics.ik import solve_ik as solve_ik
from robotsim.kinematics.jacobian import jacobian as jacobian

__all__ = [
    "AnchoredState",
    "IKResult",
    "compile_dynamics",
    "compile_tree",
    "fk",
    "fk_all",
    "fk_frames",
    "gravity_torques",
    "inverse_dynamics",
    "jacobian",
    "mass_matrix",
    "solve_ik",
]
