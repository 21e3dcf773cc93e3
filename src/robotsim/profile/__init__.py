"""Robot profiles: what robotsim infers about how a model is built to be used (legs and
feet, arms and tools, heads, grippers and fingertips, wheels and drive), overridable by a
profile file. Below the capabilities: it imports only ``model`` and ``kinematics``."""

from robotsim.profile.infer import infer_profile as infer_profile
from robotsim.profile.types import Arm as Arm
from robotsim.profile.types import Drive as Drive
from robotsim.profile.types import Foot as Foot
from robotsim.profile.types import Gripper as Gripper
from robotsim.profile.types import Head as Head
from robotsim.profile.types import Kind as Kind
from robotsim.profile.types import Leg as Leg
from robotsim.profile.types import Profile as Profile
from robotsim.profile.types import SiteFrame as SiteFrame
from robotsim.profile.types import Wheel as Wheel

__all__ = [
    "Arm",
    "Drive",
    "Foot",
    "Gripper",
    "Head",
    "Kind",
    "Leg",
    "Profile",
    "SiteFrame",
    "Wheel",
    "infer_profile",
]
