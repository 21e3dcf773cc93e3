"""Two arms with 3-finger hands: teleoperation, grasp, hand-to-hand transfer, fall.

The arm paper (seed 001) in two modes: :class:`KinematicHands` (the paper's bounding-
sphere algorithm on our kinematics) and the MuJoCo mode in :mod:`robotsim.hands.physics`.
See ``docs/hands.md``.
"""

from robotsim.hands.commands import ArmCommand as ArmCommand
from robotsim.hands.commands import Grip as Grip
from robotsim.hands.contact import BoxObstacle as BoxObstacle
from robotsim.hands.kinematic import KinematicHands as KinematicHands
from robotsim.hands.layout import ARM_ROLES as ARM_ROLES
from robotsim.hands.layout import HandLayout as HandLayout
from robotsim.hands.scene import BallSpec as BallSpec
from robotsim.hands.scene import GraspParams as GraspParams
from robotsim.hands.scene import HandsScene as HandsScene
from robotsim.hands.state import HandEvent as HandEvent
from robotsim.hands.state import HandsObservable as HandsObservable
from robotsim.hands.state import HandsState as HandsState
from robotsim.hands.state import HandState as HandState

__all__ = [
    "ARM_ROLES",
    "ArmCommand",
    "BallSpec",
    "BoxObstacle",
    "GraspParams",
    "Grip",
    "HandEvent",
    "HandLayout",
    "HandState",
    "HandsObservable",
    "HandsScene",
    "HandsState",
    "KinematicHands",
]
