"""Receipts of the runs that commands make without a scenario file (``robotsim walk``,
...): what the command was asked, run again the same way.

A command that records a run calls :func:`run_command` with its name and its
arguments as plain JSON values (robot files as absolute paths, so a re-run from
another folder finds them). The work runs inside a
:class:`~robotsim.scenario.receipt.Receipting` block (the files it read, each physics
world's model digest and its state every N simulated seconds), and the receipt stored
with the run holds ``command: {name, args}`` beside the usual fields and the summary
without what names where the files went (:attr:`Command.paths`).
:func:`rerun_command` runs the same function with the same arguments into a temporary
folder, for :mod:`robotsim.scenario.verify`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robotsim.errors import InputError
from robotsim.run_io import RunOptions

__all__ = ["COMMANDS", "Command", "comparable", "rerun_command", "robot_arg", "run_command"]


@dataclass(frozen=True)
class Command:
    """A command whose runs carry receipts: ``run(args, out_dir, extras)`` does the work
    and returns the summary (``extras``: what changes only the files written, such as a
    picture, not kept in the receipt; none in a re-run); ``paths``: summary keys that
    name written files (left out of the receipt's summary: a re-run writes elsewhere)."""

    run: Callable[[dict[str, Any], Path, dict[str, Any]], dict[str, Any]]
    paths: frozenset[str] = frozenset()


def robot_arg(robot: str) -> str:
    """A robot as a receipt keeps it: a file's absolute path, else the library name."""
    p = Path(robot)
    return str(p.resolve()) if p.is_file() else robot


def _walk(args: dict[str, Any], out: Path, extras: dict[str, Any]) -> dict[str, Any]:
    from robotsim.walk.params import WalkParams
    from robotsim.walk.report import WalkRequest, walk_report

    request = WalkRequest(
        args["distance"], args["lateral"], args["turn"], args["speed"], args["friction"],
        args["open_loop"],
    )  # fmt: skip
    params = WalkParams(
        step_period=args["step_period"], step_height=args["step_height"], crouch=args["crouch"]
    )
    return walk_report(args["robot"], request, out, params, strip=bool(extras.get("strip")))


COMMANDS: dict[str, Command] = {
    "walk": Command(_walk, frozenset({"program", "side_view_png", "recording"})),
}


def comparable(name: str, summary: Any) -> Any:
    """``summary`` without the keys of command ``name`` that name written files."""
    if not isinstance(summary, dict):
        return summary
    drop = COMMANDS[name].paths
    return {k: v for k, v in summary.items() if k not in drop}


def _source(name: str, args: dict[str, Any]) -> str:
    return str(args.get("robot") or args.get("source") or f"robotsim {name}")


def run_command(
    name: str, args: dict[str, Any], out_dir: str | Path, extras: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run command ``name`` with ``args`` (and ``extras``, :class:`Command`) into
    ``out_dir``; the runs it records get their receipt (module doc). Returns the
    command's summary, whole."""
    from robotsim.scenario.receipt import Receipting

    cmd = COMMANDS[name]
    rc = Receipting({}, _source(name, args), RunOptions(), command={"name": name, "args": args})
    try:
        with rc:
            summary = cmd.run(args, Path(out_dir), dict(extras or {}))
    except Exception:
        try:
            rc.write(None)  # the failure's receipt, if it got to recording
        except Exception:  # the original error is the one to see
            pass
        raise
    rc.write(comparable(name, summary))
    return summary


def rerun_command(command: dict[str, Any]) -> dict[str, Any]:
    """Run a receipt's ``command`` again (into a temporary folder, removed afterwards);
    returns its summary as the receipt keeps it."""
    name = str(command.get("name"))
    if name not in COMMANDS:
        known = ", ".join(sorted(COMMANDS))
        raise InputError(f"receipt: command {name!r} cannot be re-run here (known: {known})")
    args = dict(command.get("args") or {})
    with tempfile.TemporaryDirectory(prefix="robotsim-verify-") as tmp:
        return comparable(name, COMMANDS[name].run(args, Path(tmp), {}))
