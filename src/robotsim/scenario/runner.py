"""Run any scenario file: parse, apply ``--set`` overrides, dispatch on ``kind:``.

Recording goes through a :class:`~robotsim.run_io.RunRecorder`: the CSV files
in the output folder by default, or the run store (:mod:`robotsim.recording`) when a
database is given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robotsim.errors import InputError, ScenarioError
from robotsim.run_io import NullRecorder, RunRecorder
from robotsim.scenario.kinds import RunOptions, runner_for
from robotsim.scenario_yaml import apply_overrides, read_scenario_yaml

__all__ = ["make_recorder", "run_file", "run_hand_kind", "run_mobile_kind"]


def run_file(
    path: str | Path, options: RunOptions | None = None, overrides: list[str] | None = None
) -> dict[str, Any]:
    """Run the scenario file at ``path``; returns its summary (also written to
    ``options.out_dir`` when given)."""
    opts = options or RunOptions()
    source = str(path)
    data = read_scenario_yaml(path)
    if data.get("format") == "robotsim-clearance/1":
        raise ScenarioError(
            f"{source}: format: robotsim-clearance/1 is a clearance study, not a run scenario; "
            f"use 'robotsim clearance {source}'"
        )
    if overrides:
        data = apply_overrides(data, list(overrides), source)
    return runner_for(data.get("kind"), source)(data, source, opts)


def make_recorder(options: RunOptions) -> RunRecorder:
    """The run store: ``--db`` if given, else ``runs.sqlite`` in the output folder
    (``robotsim export RUN --format csv`` gives CSV); nothing without an output folder."""
    if options.db or options.out_dir is not None:
        from robotsim.recording import Recorder

        return Recorder(options.db or options.out_dir)
    return NullRecorder()


def run_mobile_kind(data: dict[str, Any], source: str, options: RunOptions) -> dict[str, Any]:
    from robotsim.mobile.run import run_mobile

    if options.mode not in (None, "physics"):
        raise InputError(f"--mode {options.mode!r}: mobile scenarios run in physics only")
    recorder = make_recorder(options)
    try:
        return run_mobile(
            data,
            source,
            options.out_dir,
            options.duration,
            options.seed,
            recorder,
            options.progress,
        )
    finally:
        close = getattr(recorder, "close", None)
        if close is not None:
            close()


def run_hand_kind(data: dict[str, Any], source: str, options: RunOptions) -> dict[str, Any]:
    """``kind: hand_ball_transfer`` (the arm-and-hand paper): its script sets the length;
    ``--duration`` stops it early; ``--mode`` picks kinematic (default) or physics."""
    from robotsim.hands.run import run_hand_data

    recorder = make_recorder(options) if (options.db or options.out_dir is not None) else None
    try:
        return run_hand_data(
            data, source, options.mode, options.out_dir, recorder, options.duration
        )
    finally:
        close = getattr(recorder, "close", None)
        if close is not None:
            close()
