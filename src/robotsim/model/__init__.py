"""Robot models: the immutable RobotModel and its importers/exporters."""

from robotsim.model.builder import RobotBuilder as RobotBuilder
from robotsim.model.builder import xyz_rpy as xyz_rpy
from robotsim.model.dh import DHJoint as DHJoint
from robotsim.model.dh import from_dh as from_dh
from robotsim.model.geometry import Box as Box
from robotsim.model.geometry import Capsule as Capsule
from robotsim.model.geometry import Cylinder as Cylinder
from robotsim.model.geometry import Ellipsoid as Ellipsoid
from robotsim.model.geometry import Mesh as Mesh
from robotsim.model.geometry import Shape as Shape
from robotsim.model.geometry import Sphere as Sphere
from robotsim.model.loader import library_names as library_names
from robotsim.model.loader import load_robot as load_robot
from robotsim.model.robot import Frame as Frame
from robotsim.model.robot import Inertial as Inertial
from robotsim.model.robot import Joint as Joint
from robotsim.model.robot import JointType as JointType
from robotsim.model.robot import Limits as Limits
from robotsim.model.robot import Link as Link
from robotsim.model.robot import Mimic as Mimic
from robotsim.model.robot import RobotModel as RobotModel

__all__ = [
    "Box", "Capsule", "Cylinder", "DHJoint", "Ellipsoid", "Frame", "Inertial", "Joint",
    "JointType", "Limits", "Link", "Mesh", "Mimic", "RobotBuilder", "RobotModel", "Shape",
    "Sphere", "from_dh", "library_names", "load_robot", "xyz_rpy",
]  # fmt: skip
