"""Controllers and drive kinematics: omni/diff-drive, limits, PID, avoidance, paths."""

from robotsim.control.avoidance import VFH as VFH
from robotsim.control.avoidance import PotentialField as PotentialField
from robotsim.control.diffdrive import DiffDrive as DiffDrive
from robotsim.control.limits import AxisLimit as AxisLimit
from robotsim.control.limits import RateLimiter as RateLimiter
from robotsim.control.mobile import MobileController as MobileController
from robotsim.control.mobile import MobileControllerConfig as MobileControllerConfig
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
