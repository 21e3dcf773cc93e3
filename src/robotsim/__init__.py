"""robotsim: model, program, simulate and check robots in 3D.

The public API is re-exported here explicitly; see ``docs/`` for the conventions.
Every name loads on first use (PEP 562), so that ``import robotsim`` (and the CLI's
start-up) does not pay for NumPy, numba, MuJoCo or matplotlib until they are needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from robotsim.errors import InputError as InputError
from robotsim.errors import KinematicsError as KinematicsError
from robotsim.errors import ModelError as ModelError
from robotsim.errors import ModelFileError as ModelFileError
from robotsim.errors import PhysicsError as PhysicsError
from robotsim.errors import RobotsimError as RobotsimError
from robotsim.errors import UnknownNameError as UnknownNameError
from robotsim.lazy import lazy_exports

if TYPE_CHECKING:
    from robotsim.geometry import ellipsoid_distance as ellipsoid_distance
    from robotsim.kinematics import AnchoredState as AnchoredState
    from robotsim.kinematics import IKResult as IKResult
    from robotsim.model import RobotBuilder as RobotBuilder
    from robotsim.model import RobotModel as RobotModel
    from robotsim.model import library_names as library_names
    from robotsim.model import load_robot as load_robot
    from robotsim.physics import Scene as Scene
    from robotsim.physics import World as World

__version__ = "0.1.0"

# public name -> the module that defines it (loaded on first attribute access)
_LAZY = {
    "AnchoredState": "robotsim.kinematics",
    "IKResult": "robotsim.kinematics",
    "RobotBuilder": "robotsim.model",
    "RobotModel": "robotsim.model",
    "library_names": "robotsim.model",
    "load_robot": "robotsim.model",
    "World": "robotsim.physics",
    "Scene": "robotsim.physics",
    "ellipsoid_distance": "robotsim.geometry",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

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
    "Scene",
    "UnknownNameError",
    "World",
    "__version__",
    "ellipsoid_distance",
    "library_names",
    "load_robot",
]
