"""Planning around collisions (seed 004's next step): from "A and B collide at
1.73-2.41 s" to a collision-free plan, certified. Velocity tuning (delay or slow one
robot, its path kept), replanning one robot's path among the moving others (a
space-time RRT-Connect whose every edge is proved clear), and the files ``robotsim
plan`` writes. See ``docs/planning.md``."""

from robotsim.plan.check import MarginCheck as MarginCheck
from robotsim.plan.limits import JointLimits as JointLimits
from robotsim.plan.limits import joint_limits as joint_limits
from robotsim.plan.outcome import Budget as Budget
from robotsim.plan.outcome import Change as Change
from robotsim.plan.outcome import Outcome as Outcome
from robotsim.plan.replan import plan_replan as plan_replan
from robotsim.plan.run import plan_scenario as plan_scenario
from robotsim.plan.solve import METHODS as METHODS
from robotsim.plan.solve import PlanResult as PlanResult
from robotsim.plan.solve import plan as plan
from robotsim.plan.timing import plan_delay as plan_delay
from robotsim.plan.timing import plan_scale as plan_scale

__all__ = [
    "METHODS",
    "Budget",
    "Change",
    "JointLimits",
    "MarginCheck",
    "Outcome",
    "PlanResult",
    "joint_limits",
    "plan",
    "plan_delay",
    "plan_replan",
    "plan_scale",
    "plan_scenario",
]
