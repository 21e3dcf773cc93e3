"""Controllers and drive kinematics: omni/diff-drive, limits, PID, avoidance, paths,
the goal controller of a planar base and the wheeled base in a physics World. They know
nothing of scenario files; :mod:`robotsim.mobile` composes them into runs."""

from robotsim.control.avoidance import VFH as VFH
from robotsim.control.avoidance import PotentialField as PotentialField
from robotsim.control.diffdrive import DiffDrive as DiffDrive
from robotsim.control.goal_controller import MobileController as MobileController
from robotsim.control.goal_controller import MobileControllerConfig as MobileControllerConfig
from robotsim.control.limits import AxisLimit as AxisLimit
from robotsim.control.limits import RateLimiter as RateLimiter
from robotsim.control.omni import Omni3 as Omni3
from robotsim.control.path import PathFollower as PathFollower
from robotsim.control.pid import PID as PID
from robotsim.control.pid import PIDGains as PIDGains
from robotsim.control.pid import PosePID as PosePID
from robotsim.control.pid import wrap_angle as wrap_angle

__all__ = [
    "PID",
    "VFH",
    "AxisLimit",
    "DiffDrive",
    "MobileController",
    "MobileControllerConfig",
    "Omni3",
    "PIDGains",
    "PathFollower",
    "PosePID",
    "PotentialField",
    "RateLimiter",
    "wrap_angle",
]
