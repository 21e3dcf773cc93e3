"""Run any scenario file: parse, apply ``--set`` overrides, dispatch on ``kind:``
through the registry (:mod:`robotsim.scenario.kinds`).

Recording goes through a :class:`~robotsim.run_io.RunRecorder`: the run store
(:mod:`robotsim.recording`) in the output folder or the database given. A recorded run
gets its receipt (:mod:`robotsim.scenario.receipt`), so ``robotsim runs verify`` can
re-run it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robotsim.errors import ScenarioError
from robotsim.run_io import RunOptions
from robotsim.scenario.kinds import kind_of
from robotsim.scenario_yaml import apply_overrides, read_scenario_yaml

__all__ = ["run_file", "run_receipted"]


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
    return run_receipted(kind.load_runner(), data, source, opts)


def run_receipted(
    runner: Any, data: dict[str, Any], source: str, opts: RunOptions, keep_open: bool = False
) -> Any:
    """``runner(data, source, opts)`` with the run's receipt written to the runs it
    recorded (``opts.extra["receipt"] = False``: none; ``opts.extra["checkpoint_s"]``:
    the checkpoint interval; ``keep_open``: :meth:`Receipting.write`'s)."""
    from robotsim.scenario.receipt import Receipting

    if opts.extra.get("receipt") is False:
        return runner(data, source, opts)
    rc = Receipting(data, source, opts, opts.extra.get("checkpoint_s"))
    try:
        with rc:
            summary = runner(data, source, opts)
    except Exception:
        try:
            rc.write(None, keep_open)  # the failure's receipt, if it got to recording
        except Exception:  # the original error is the one to see
            pass
        raise
    rc.write(summary, keep_open)
    return summary
