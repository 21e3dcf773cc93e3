"""Run any scenario file: parse, apply ``--set`` overrides, dispatch on ``kind:``
through the registry (:mod:`robotsim.scenario.kinds`).

Recording goes through a :class:`~robotsim.run_io.RunRecorder`: the run store
(:mod:`robotsim.recording`) in the output folder or the database given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robotsim.errors import ScenarioError
from robotsim.run_io import RunOptions
from robotsim.scenario.kinds import kind_of
from robotsim.scenario_yaml import apply_overrides, read_scenario_yaml

__all__ = ["run_file"]


def run_file(
    path: str | Path, options: RunOptions | None = None, overrides: list[str] | None = None
) -> dict[str, Any]:
    """Run the scenario file at ``path``; returns its summary (also written to
    ``options.out_dir`` when given)."""
    opts = options or RunOptions()
    source = str(path)
    data = read_scenario_yaml(path)
    if overrides:
        data = apply_overrides(data, list(overrides), source)
    kind = kind_of(data, source)
    if kind.runner is None:
        said = f"kind: {kind.name}" if "kind" in data else f"format: {data.get('format')}"
        what = "a clearance study" if kind.name == "clearance" else f"a {kind.name} file"
        raise ScenarioError(
            f"{source}: {said} is {what}, not a run scenario; "
            f"use 'robotsim {kind.command} {source}'"
        )
    return kind.load_runner()(data, source, opts)
