"""Grasp anything: a planner for every hand or gripper of a robot's profile and grasp
trials in MuJoCo (seed 001's next step: objects other than the ball). See
``docs/grasp.md``."""

from typing import TYPE_CHECKING

from robotsim.lazy import lazy_exports

if TYPE_CHECKING:
    from robotsim.grasp.execute import GraspWorld as GraspWorld
    from robotsim.grasp.execute import TrialOptions as TrialOptions
    from robotsim.grasp.execute import TrialResult as TrialResult
    from robotsim.grasp.hand import GraspHand as GraspHand
    from robotsim.grasp.hand import grasp_hands as grasp_hands
    from robotsim.grasp.planner import GraspPlan as GraspPlan
    from robotsim.grasp.planner import Planner as Planner
    from robotsim.grasp.planner import PlanOptions as PlanOptions
    from robotsim.grasp.run import grasp_trials as grasp_trials
    from robotsim.grasp.run import prepare as prepare

_LAZY = {
    "GraspWorld": "robotsim.grasp.execute",
    "TrialOptions": "robotsim.grasp.execute",
    "TrialResult": "robotsim.grasp.execute",
    "GraspHand": "robotsim.grasp.hand",
    "grasp_hands": "robotsim.grasp.hand",
    "GraspPlan": "robotsim.grasp.planner",
    "PlanOptions": "robotsim.grasp.planner",
    "Planner": "robotsim.grasp.planner",
    "grasp_trials": "robotsim.grasp.run",
    "prepare": "robotsim.grasp.run",
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "GraspHand", "GraspPlan", "GraspWorld", "PlanOptions", "Planner", "TrialOptions",
    "TrialResult", "grasp_hands", "grasp_trials", "prepare",
]  # fmt: skip
