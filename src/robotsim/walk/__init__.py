"""Dynamic walking for any humanoid (issue 23, seed 000's future work): a walk pattern
generator (footsteps, ZMP preview control of a linear inverted pendulum after Kajita et
al. 2003, swing feet, whole-body IK on robotsim's kinematics) and a walk in MuJoCo
physics balanced by feedback on the robot's own position servos.

Modules: :mod:`~robotsim.walk.biped` (the robot as walking sees it, sized from its
profile), :mod:`~robotsim.walk.params`, :mod:`~robotsim.walk.footsteps`,
:mod:`~robotsim.walk.plan`, :mod:`~robotsim.walk.swing`, :mod:`~robotsim.walk.preview`,
:mod:`~robotsim.walk.wbik`, :mod:`~robotsim.walk.pattern`,
:mod:`~robotsim.walk.stabilizer`, :mod:`~robotsim.walk.simulate`. See docs/walk.md.
"""

from robotsim.walk.biped import Biped as Biped
from robotsim.walk.biped import biped_of as biped_of
from robotsim.walk.footsteps import Footstep as Footstep
from robotsim.walk.params import Resolved as Resolved
from robotsim.walk.params import WalkParams as WalkParams
from robotsim.walk.params import resolve_params as resolve_params
from robotsim.walk.pattern import WalkPattern as WalkPattern
from robotsim.walk.pattern import generate_walk as generate_walk
from robotsim.walk.plan import Plan as Plan
from robotsim.walk.preview import PreviewGains as PreviewGains
from robotsim.walk.preview import preview_gains as preview_gains
from robotsim.walk.simulate import Push as Push
from robotsim.walk.simulate import WalkRun as WalkRun
from robotsim.walk.simulate import simulate_walk as simulate_walk
from robotsim.walk.stabilizer import BalanceGains as BalanceGains
from robotsim.walk.swing import Ground as Ground
from robotsim.walk.wbik import WholeBodyIK as WholeBodyIK

__all__ = [
    "BalanceGains",
    "Biped",
    "Footstep",
    "Ground",
    "Plan",
    "PreviewGains",
    "Push",
    "Resolved",
    "WalkParams",
    "WalkPattern",
    "WalkRun",
    "WholeBodyIK",
    "biped_of",
    "generate_walk",
    "preview_gains",
    "resolve_params",
    "simulate_walk",
]
