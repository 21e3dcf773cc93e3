"""Batched kinematics: forward kinematics, Jacobians, IK, anchored floating base.

These functions are the primary API; ``RobotModel.fk/fk_all/jacobian/ik`` delegate
here (the model package does not import this one).
"""

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
    "compile_tree",
    "fk",
    "fk_all",
    "fk_frames",
    "jacobian",
    "solve_ik",
]
