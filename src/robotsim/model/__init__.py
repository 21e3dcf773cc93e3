"""Robot models: the immutable RobotModel and its importers/exporters."""

from typing import TYPE_CHECKING

from robotsim.lazy import lazy_exports

if TYPE_CHECKING:
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
    from robotsim.model.robot import JointDynamics as JointDynamics
    from robotsim.model.robot import JointType as JointType
    from robotsim.model.robot import Limits as Limits
    from robotsim.model.robot import Link as Link
    from robotsim.model.robot import Mimic as Mimic
    from robotsim.model.robot import RobotModel as RobotModel

_LAZY = {
    "RobotBuilder": "robotsim.model.builder",
    "xyz_rpy": "robotsim.model.builder",
    "DHJoint": "robotsim.model.dh",
    "from_dh": "robotsim.model.dh",
    "Box": "robotsim.model.geometry",
    "Capsule": "robotsim.model.geometry",
    "Cylinder": "robotsim.model.geometry",
    "Ellipsoid": "robotsim.model.geometry",
    "Mesh": "robotsim.model.geometry",
    "Shape": "robotsim.model.geometry",
    "Sphere": "robotsim.model.geometry",
    "library_names": "robotsim.model.loader",
    "load_robot": "robotsim.model.loader",
    "Frame": "robotsim.model.robot",
    "Inertial": "robotsim.model.robot",
    "Joint": "robotsim.model.robot",
    "JointDynamics": "robotsim.model.robot",
    "JointType": "robotsim.model.robot",
    "Limits": "robotsim.model.robot",
    "Link": "robotsim.model.robot",
    "Mimic": "robotsim.model.robot",
    "RobotModel": "robotsim.model.robot",
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "Box", "Capsule", "Cylinder", "DHJoint", "Ellipsoid", "Frame", "Inertial", "Joint",
    "JointDynamics", "JointType", "Limits", "Link", "Mesh", "Mimic", "RobotBuilder", "RobotModel",
    "Shape",
    "Sphere", "from_dh", "library_names", "load_robot", "xyz_rpy",
]  # fmt: skip
