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

__all__ = ["COMMANDS", "Command", "comparable", "program_arg", "rerun_command", "robot_arg",
           "run_command"]  # fmt: skip


@dataclass(frozen=True)
class Command:
    """A command whose runs carry receipts: ``run(args, out_dir, extras)`` does the work
    and returns the summary (``extras``: what changes only the files written, such as a
    picture, not kept in the receipt; none in a re-run); ``paths``: summary keys that
    name written files or measure wall-clock time (left out of the receipt's summary: a
    re-run writes elsewhere, and takes its own time)."""

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
    return walk_report(args["robot"], request, out, params, strip=bool(extras.get("strip")),
                       db=extras.get("db"))  # fmt: skip


def _motion_play(args: dict[str, Any], out: Path, extras: dict[str, Any]) -> dict[str, Any]:
    from robotsim.motion.report import play_report

    return play_report(
        args["file"], args["robot"], out, args["method"], args["tick"], args["points"],
        args["detection"], strip=bool(extras.get("strip")),
        contact_tolerance=args["contact_tolerance"], min_tick=args["min_tick"],
    )  # fmt: skip


def _motion_check(args: dict[str, Any], out: Path, extras: dict[str, Any]) -> dict[str, Any]:
    from robotsim.motion.report import check_report

    if "out_dir" in extras or "db" in extras:  # the command's own folder and store
        summary, chk = check_report(args["file"], args["robot"], extras.get("out_dir"),
                                    extras.get("db"))  # fmt: skip
    else:  # a re-run: recorded into the temporary folder's store, no picture
        summary, chk = check_report(args["file"], args["robot"], None, str(out / "runs.sqlite"))
    extras["check"] = chk  # the command prints from it
    return summary


def _clearance(args: dict[str, Any], out: Path, extras: dict[str, Any]) -> dict[str, Any]:
    """``robotsim clearance``'s study: the files, the run (into ``extras["db"]`` or
    ``out/runs.sqlite``) and the printed summary (``extras`` gets ``summary``, ``paths``,
    ``cert`` and ``run_id`` for the command to print)."""
    from robotsim.clearance.report import stream_outputs
    from robotsim.clearance.scenario import load_scenario
    from robotsim.jsonable import dumps as json_dumps
    from robotsim.run_io import RunOptions, recorded_run

    scenario = Path(args["scenario"])
    sc = load_scenario(scenario)
    step = sc.dt if args["dt"] is None else float(args["dt"])
    # chunk by chunk into the files and the run store: memory does not grow with the
    # run's length
    meta = {"kind": "clearance", "file": str(scenario), "dt": step, "method": args["method"]}
    out.mkdir(parents=True, exist_ok=True)
    opts = RunOptions(out_dir=out, db=extras.get("db"))
    with recorded_run(opts, scenario.stem, meta) as recorder:
        summary, paths = stream_outputs(
            sc.scene, sc.trajectories, step, out, t_end=sc.t_end, cutoff=sc.cutoff,
            link_pairs=bool(args["link_pairs"]), method=args["method"], recorder=recorder,
            plots=bool(extras.get("plots")),
        )  # fmt: skip
        extras["run_id"] = getattr(recorder, "run_id", None)
    payload: dict[str, Any] = summary.to_json()
    cert = None
    if args["certified"]:
        from robotsim.clearance.certified import certified_run, merge_certified

        cert = certified_run(sc.scene, sc.trajectories, step, t_end=sc.t_end)
        payload = merge_certified(payload, cert.to_json())
        paths["certified"] = out / "certified.json"
        paths["certified"].write_text(json_dumps(cert.to_json(), indent=2) + "\n")
    extras.update(summary=summary, paths=paths, cert=cert)
    return payload


def _plan(args: dict[str, Any], out: Path, extras: dict[str, Any]) -> dict[str, Any]:
    """``robotsim plan``: the planned scenario, its files and the planned study as a run
    (``extras["paths"]`` gets the files written)."""
    from robotsim.plan.run import plan_scenario

    _, summary, paths = plan_scenario(
        args["scenario"], out, method=args["method"], margin=args["margin"],
        robot=args["robot"], budget_s=args["budget_s"], dt=args["dt"], seed=args["seed"],
        plots=bool(extras.get("plots")), store=extras.get("db") or out,
    )  # fmt: skip
    extras["paths"] = paths
    return summary


COMMANDS: dict[str, Command] = {
    "plan": Command(_plan, frozenset({"scenario", "plan_time_s"})),
    "clearance": Command(_clearance),
    "walk": Command(_walk, frozenset({"program", "side_view_png", "recording"})),
    "motion play": Command(_motion_play, frozenset({"side_view_png", "recording", "trajectory"})),
    "motion check": Command(_motion_check, frozenset({"com_path_png"})),
}


def program_arg(file: str) -> str:
    """A motion program as a receipt keeps it: a file's absolute path, else the shipped
    name."""
    return robot_arg(file)


def comparable(name: str, summary: Any) -> Any:
    """``summary`` without the keys of command ``name`` that name written files."""
    if not isinstance(summary, dict):
        return summary
    drop = COMMANDS[name].paths
    return {k: v for k, v in summary.items() if k not in drop}


def _source(name: str, args: dict[str, Any]) -> str:
    return str(args.get("file") or args.get("scenario") or args.get("robot") or name)


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
            summary = cmd.run(args, Path(out_dir), extras if extras is not None else {})
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
