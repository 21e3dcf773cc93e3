"""Batched kinematics: forward kinematics, Jacobians, IK, anchored floating base."""

from robotsim.kinematics.floating import AnchoredState as AnchoredState
from robotsim.kinematics.ik import IKResult as IKResult
from robotsim.kinematics.ik import solve_ik as solve_ik
from robotsim.kinematics.jacobian import jacobian as jacobian

__all__ = ["AnchoredState", "IKResult", "jacobian", "solve_ik"]
