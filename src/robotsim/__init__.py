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

# Heavier capabilities load on first use (MuJoCo, matplotlib...), so that
# ``import robotsim`` stays fast for kinematics-only users.
_LAZY = {
    "World": "robotsim.physics",
    "Scene": "robotsim.physics",
    "ellipsoid_distance": "robotsim.geometry",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'robotsim' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

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
