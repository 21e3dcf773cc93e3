"""Mobile runs (seed 002): wheeled robots driving to goals among obstacles.

One home for ``kind: mobile`` scenarios: :mod:`~robotsim.mobile.schema` (the file
format), :mod:`~robotsim.mobile.load` (validation, robots in SI units) and
:mod:`~robotsim.mobile.obstacles` (layouts), :mod:`~robotsim.mobile.build` (physics
Scene and controllers), :mod:`~robotsim.mobile.run` (the step loop),
:mod:`~robotsim.mobile.contacts` (collision counting), :mod:`~robotsim.mobile.metrics`
and :mod:`~robotsim.mobile.report` (results and outputs). The controllers themselves
(PID, limits, avoidance, path following, drives) are reusable and live in
:mod:`robotsim.control`. See ``docs/scenarios.md``.
"""

from robotsim.mobile.build import build_mobile as build_mobile
from robotsim.mobile.load import RobotSetup as RobotSetup
from robotsim.mobile.load import load_mobile as load_mobile
from robotsim.mobile.run import MobileRun as MobileRun
from robotsim.mobile.run import open_mobile as open_mobile
from robotsim.mobile.run import run_mobile as run_mobile
from robotsim.mobile.schema import MobileScenario as MobileScenario

__all__ = [
    "MobileRun",
    "MobileScenario",
    "RobotSetup",
    "build_mobile",
    "load_mobile",
    "open_mobile",
    "run_mobile",
]
