"""Physics worlds on MuJoCo: Scenes compiled through ``mujoco.MjSpec``, contacts in the
ODE vocabulary, wheel drives, fail-fast stepping. See ``docs/physics.md``."""

from robotsim.physics.drives import DriveInfo as DriveInfo
from robotsim.physics.scene import Body as Body
from robotsim.physics.scene import Joint as Joint
from robotsim.physics.scene import Light as Light
from robotsim.physics.scene import Motor as Motor
from robotsim.physics.scene import Plane as Plane
from robotsim.physics.scene import RobotPlacement as RobotPlacement
from robotsim.physics.scene import Scene as Scene
from robotsim.physics.scene import SurfacePair as SurfacePair
from robotsim.physics.surface import ContactSurface as ContactSurface
from robotsim.physics.surface import to_mujoco as to_mujoco
from robotsim.physics.world import BodyHandle as BodyHandle
from robotsim.physics.world import ContactForces as ContactForces
from robotsim.physics.world import JointHandle as JointHandle
from robotsim.physics.world import MotorHandle as MotorHandle
from robotsim.physics.world import World as World
from robotsim.physics.world import WorldState as WorldState

__all__ = [
    "Body",
    "BodyHandle",
    "ContactForces",
    "ContactSurface",
    "DriveInfo",
    "Joint",
    "JointHandle",
    "Light",
    "Motor",
    "MotorHandle",
    "Plane",
    "RobotPlacement",
    "Scene",
    "SurfacePair",
    "World",
    "WorldState",
    "to_mujoco",
]
