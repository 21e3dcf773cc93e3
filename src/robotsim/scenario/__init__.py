"""Scenario files (YAML, validated with pydantic) and their runners. See
``docs/scenarios.md``."""

from robotsim.run_io import CsvRecorder as CsvRecorder
from robotsim.run_io import RunRecorder as RunRecorder
from robotsim.scenario.kinds import KINDS as KINDS
from robotsim.scenario.kinds import RunOptions as RunOptions
from robotsim.scenario.runner import run_file as run_file

__all__ = ["KINDS", "CsvRecorder", "RunOptions", "RunRecorder", "run_file"]
