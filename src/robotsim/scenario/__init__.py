"""Scenario files and the registry of their kinds (:mod:`robotsim.scenario.kinds`):
``robotsim run`` and the studio dispatch on ``kind:`` through it. See
``docs/scenarios.md``."""

from robotsim.run_io import CsvRecorder as CsvRecorder
from robotsim.run_io import RunOptions as RunOptions
from robotsim.run_io import RunRecorder as RunRecorder
from robotsim.scenario.kinds import KINDS as KINDS
from robotsim.scenario.kinds import ScenarioKind as ScenarioKind
from robotsim.scenario.kinds import kind_of as kind_of
from robotsim.scenario.runner import run_file as run_file

__all__ = [
    "KINDS",
    "CsvRecorder",
    "RunOptions",
    "RunRecorder",
    "ScenarioKind",
    "kind_of",
    "run_file",
]
