"""robotsim: model, program, simulate and check robots in 3D.

The public API is re-exported here explicitly; see ``docs/`` for the conventions.
"""

from robotsim.errors import InputError as InputError
from robotsim.errors import KinematicsError as KinematicsError
from robotsim.errors import ModelError as ModelError
from robotsim.errors import ModelFileError as ModelFileError
from robotsim.errors import PhysicsError as PhysicsError
from robotsim.errors import RobotsimError as RobotsimError
from robotsim.errors import UnknownNameError as UnknownNameError
from robotsim.kinematics import AnchoredState as AnchoredState
from robotsim.kinematics import IKResult as IKResult
from robotsim.model import RobotBuilder as RobotBuilder
from robotsim.model import RobotModel as RobotModel
from robotsim.model import library_names as library_names
from robotsim.model import load_robot as load_robot

__version__ = "0.1.0"

__all__ = [
    "AnchoredState",
    "IKResult",
    "InputError",
    "KinematicsError",
    "ModelError",
    "ModelFileError",
    "PhysicsError",
    "RobotBuilder",
    "RobotModel",
    "RobotsimError",
    "UnknownNameError",
    "__version__",
    "library_names",
    "load_robot",
]
