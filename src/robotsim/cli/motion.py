"""``robotsim motion ...``: play, check, thumbnail, upload and download motion programs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from robotsim.cli.common import echo_json, max_memory_option, max_work_option

__all__ = ["register"]

os.environ.setdefault("MUJOCO_GL", "egl")


def _method_options(f):  # type: ignore[no-untyped-def]
    f = max_memory_option(f)
    f = max_work_option(f)
    f = click.option(
        "--method",
        type=click.Choice(["fixed_tick", "fixed_points"]),
        default="fixed_tick",
        show_default=True,
        help="Speed method: fixed tick (fewer points when faster) or fixed "
        "points per keyframe (longer tick when slower).",
    )(f)
    f = click.option(
        "--tick",
        type=float,
        default=0.01,
        show_default=True,
        help="Tick (s) of the fixed_tick method.",
    )(f)
    f = click.option(
        "--points",
        type=int,
        default=50,
        show_default=True,
        help="Interpolation points per keyframe of the fixed_points method.",
    )(f)
    f = click.option(
        "--contact-tolerance",
        "contact_tolerance",
        help="Allowed foot-contact error, e.g. 2mm: fixed_points with the points of each "
        "keyframe computed from it (the paper's second speed method).",
    )(f)
    f = click.option(
        "--min-tick",
        "min_tick",
        help="Timer floor, e.g. 30ms (the paper's interpolation cost): no tick is "
        "shorter (fixed_points stretches short ticks; fixed_tick ticks at the floor "
        "when --tick is below it).",
    )(f)
    return f


_UNITS = {"length": {"m": 1.0, "cm": 0.01, "mm": 0.001}, "time": {"s": 1.0, "ms": 0.001}}


def parse_quantity(text: str | None, kind: str, option: str) -> float | None:
    """``"2mm"`` -> 0.002, ``"30ms"`` -> 0.03 (SI); a bare number is m or s."""
    if text is None:
        return None
    import re

    from robotsim.errors import InputError

    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-z]*)\s*", text)
    units = _UNITS[kind]
    if m is None or (m.group(2) and m.group(2) not in units):
        raise InputError(f"{option} {text!r}: expected a number with a unit "
                         f"({', '.join(units)}), e.g. 2{list(units)[-1]}")  # fmt: skip
    value = float(m.group(1)) * units.get(m.group(2) or next(iter(units)), 1.0)
    if not value > 0:
        raise InputError(f"{option} {text!r}: must be > 0")
    return value


@click.group("motion")
def motion_group() -> None:
    """Motion programs: keyframes, playback with support switching, physics check."""


@motion_group.command("play")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--robot", help="Robot (library name or file); default: the file's robot.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    required=True,
    help="Folder for summary.json, side_view.png, trajectory.npz and runs.sqlite.",
)
@_method_options
@click.option(
    "--detection",
    type=click.Choice(["exact", "tick"]),
    default="exact",
    show_default=True,
    help="Support switch at the exact touch (bisection) or at "
    "the tick that detects it (the paper's).",
)
@click.option("--no-strip", is_flag=True, help="Skip the side-view picture.")
@click.option("--json", "as_json", is_flag=True, help="Print summary.json.")
def play_cmd(
    file: str,
    robot: str | None,
    out_dir: str,
    method: str,
    tick: float,
    points: int,
    detection: str,
    no_strip: bool,
    as_json: bool,
    contact_tolerance: str | None,
    min_tick: str | None,
) -> None:
    """Play FILE (a motion file, or a shipped name: see 'robotsim scenarios') kinematically
    with support-foot switching; write the results to OUT."""
    from robotsim.scenario.commands import program_arg, robot_arg, run_command

    tol = parse_quantity(contact_tolerance, "length", "--contact-tolerance")
    floor = parse_quantity(min_tick, "time", "--min-tick") or 0.0
    args = {"file": program_arg(file), "robot": None if robot is None else robot_arg(robot),
            "method": method, "tick": tick, "points": points, "detection": detection,
            "contact_tolerance": tol, "min_tick": floor}  # fmt: skip
    # the run in OUT/runs.sqlite carries its receipt (robotsim runs verify)
    summary = run_command("motion play", args, out_dir, {"strip": not no_strip})
    if as_json:
        echo_json(summary)
    else:
        click.echo(
            f"{summary['program']} on {summary['robot']}: {summary['ticks']} ticks ({method}), "
            f"{summary['support_switches']} support switches, walked "
            f"{summary['distance_walked_m']:.3f} m, "
            f"stance slip {summary['max_stance_slip_m']:.2g} m, "
            f"penetration {summary['max_penetration_m']:.2g} m -> {Path(out_dir)}/summary.json"
        )


@motion_group.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--robot", help="Robot (library name or file); default: the file's robot.")
@click.option(
    "--physics",
    is_flag=True,
    required=True,
    help="Play on the MuJoCo model with position servos (the profile's gains).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Also write physics_check.json, com_path.png and runs.sqlite (the check as a "
    "run that replays in 3D: 'robotsim export last --db OUT --format mp4') here.",
)
@click.option(
    "--db",
    default=None,
    help="Record the check into this run store (SQLite path or SQLAlchemy URL) instead "
    "of OUT/runs.sqlite.",
)
@click.option("--json", "as_json", is_flag=True)
def check_cmd(
    file: str,
    robot: str | None,
    physics: bool,
    out_dir: str | None,
    db: str | None,
    as_json: bool,
) -> None:
    """Would the real robot fall? Exit status 0 stands, 1 falls (or the physics
    diverged: a fault, named in the summary)."""
    from robotsim.scenario.commands import program_arg, robot_arg, run_command

    del physics
    args = {"file": program_arg(file), "robot": None if robot is None else robot_arg(robot)}
    extras: dict[str, Any] = {"out_dir": out_dir, "db": db}
    # a recorded check carries its receipt (robotsim runs verify)
    summary = run_command("motion check", args, out_dir or ".", extras)
    chk = extras["check"]
    if as_json:
        echo_json(summary)
    else:
        fell = (
            f" at t={chk.fell_at_s:.2f} s during {chk.fell_during} ({chk.reason})"
            if chk.fell_at_s is not None
            else ""
        )
        margin = summary["min_support_margin_m"]
        shown = (
            f"min {margin:.3f} m"
            if margin is not None
            else "none while no sole touched the floor "
            f"({summary['airborne_fraction']:.0%} of ticks)"
        )
        click.echo(
            f"{summary['program']} on {summary['robot']}: {chk.verdict.upper()}{fell}; CoM margin "
            f"{shown}; walked {summary['distance_walked_m']:.3f} of "
            f"{summary['distance_walked_ref_m']:.3f} m; max divergence from the "
            f"kinematic playback {summary['max_divergence_m']:.3f} m; "
            f"RTF {chk.rtf:.0f}"
            + (f" -> {Path(out_dir)}/physics_check.json, com_path.png" if out_dir else "")
        )
    if chk.verdict == "fault":
        click.echo(f"error: {chk.reason}; the check stopped there", err=True)
    if chk.verdict in ("falls", "fault"):
        raise click.exceptions.Exit(1)


@motion_group.command("thumbnails")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--robot", help="Robot (library name or file); default: the file's robot.")
@click.option(
    "--out-dir",
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Where the PNGs go (default: FILE's folder / <stem>_thumbs; ./<stem>_thumbs "
    "for a shipped motion, whose file is not updated).",
)
@click.option("--size", type=int, default=160, show_default=True, help="Pixels per side.")
@click.option("--no-update", is_flag=True, help="Do not write the thumbnail paths into FILE.")
def thumbnails_cmd(
    file: str, robot: str | None, out_dir: str | None, size: int, no_update: bool
) -> None:
    """Render one offscreen PNG per keyframe and record the paths in FILE."""
    from robotsim.motion.report import write_thumbnails

    n, out = write_thumbnails(file, robot, out_dir, size, update=not no_update)
    click.echo(f"{n} thumbnails in {out}" + ("" if no_update else f"; paths written to {file}"))


@motion_group.command("upload")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--port", required=True, help="Serial device of the robot controller.")
@click.option("--timeout", type=float, default=0.3, show_default=True, help="Seconds per reply.")
@click.option("--retries", type=int, default=3, show_default=True)
@click.option("--baud", type=int, default=115200, show_default=True)
def upload_cmd(file: str, port: str, timeout: float, retries: int, baud: int) -> None:
    """Store FILE's program on the robot controller (done only when it confirms)."""
    from robotsim.motion.profile import check_capacity, profile_for
    from robotsim.motion.report import load_for_playback
    from robotsim.motion.schema import load_program
    from robotsim.motion.timeline import compile_program
    from robotsim.robotlink import ControllerLink

    program = load_program(file)
    # Names, joint limits and the controller's capacity are checked here, before the port
    # is opened: no byte is sent for a program the controller would refuse.
    check_capacity(program, profile_for(program.robot), file)
    if program.robot is not None:
        _, model, _ = load_for_playback(file, None)
        compile_program(program, model, file)
    with ControllerLink(port, timeout=timeout, retries=retries, baudrate=baud) as link:
        rep = link.upload(program)
    click.echo(
        f"uploaded {rep.name!r}: {rep.size} bytes in {rep.chunks} chunks, CRC-32 "
        f"{rep.crc32:08x}, {rep.retransmissions} retransmissions"
    )


@motion_group.command("download")
@click.option("--port", required=True, help="Serial device of the robot controller.")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), required=True)
@click.option("--timeout", type=float, default=0.3, show_default=True)
@click.option("--retries", type=int, default=3, show_default=True)
@click.option("--baud", type=int, default=115200, show_default=True)
def download_cmd(port: str, out_file: str, timeout: float, retries: int, baud: int) -> None:
    """Fetch the program stored on the robot controller into a program file."""
    from robotsim.motion.schema import save_program
    from robotsim.robotlink import ControllerLink

    with ControllerLink(port, timeout=timeout, retries=retries, baudrate=baud) as link:
        program = link.download()
    save_program(program, out_file)
    click.echo(f"downloaded {program.name!r} -> {out_file}")


@motion_group.command("make-walk")
@click.argument("out_file", type=click.Path(dir_okay=False))
@click.option("--robot", default="humanoid17", show_default=True)
@click.option("--cycles", type=int, default=4, show_default=True, help="Right+left step pairs.")
@click.option(
    "--step-length",
    "--step",
    "step_length",
    type=float,
    default=0.045,
    show_default=True,
    help="m",
)
@click.option("--clearance", type=float, default=0.012, show_default=True, help="m")
@click.option(
    "--height",
    "body_height",
    type=float,
    default=0.24,
    show_default=True,
    help="Body height above the floor (m).",
)
@click.option("--name", default="walk_forward", show_default=True, help="The program's name.")
def make_walk_cmd(
    out_file: str,
    robot: str,
    cycles: int,
    step_length: float,
    clearance: float,
    body_height: float,
    name: str,
) -> None:
    """Generate a static walk (leg IK keyframes) like the shipped walk_forward."""
    from robotsim.errors import KinematicsError
    from robotsim.model import load_robot
    from robotsim.motion.gait import WalkParams, static_walk
    from robotsim.motion.schema import save_program

    params = WalkParams(
        step_length=step_length, clearance=clearance, body_height=body_height, cycles=cycles
    )
    try:
        program = static_walk(load_robot(robot), params)
    except KinematicsError as exc:
        if robot == "humanoid17":
            raise
        # the defaults are humanoid17's (0.24 m body height): gait sizes them to the robot
        raise KinematicsError(
            f"{exc} (the defaults fit humanoid17; 'robotsim motion gait --robot {robot} "
            "--step-length L --out FILE' sizes the walk to this robot)"
        ) from None
    save_program(_named(program, name), out_file)
    click.echo(f"wrote {out_file}")


def _named(program: Any, name: str) -> Any:
    """``program`` called ``name``, checked as a program name (``--name``)."""
    from pydantic import TypeAdapter, ValidationError

    from robotsim.errors import InputError
    from robotsim.motion.schema import Name

    try:
        TypeAdapter(Name).validate_python(name)
    except ValidationError:
        raise InputError(
            f"--name {name!r}: a program name is 1 to 64 letters, digits, '_', '.', '-' or spaces"
        ) from None
    return program.model_copy(update={"name": name})


@motion_group.command("gait")
@click.option("--robot", required=True, help="Robot (library name or robot file) with two legs.")
@click.option("--steps", type=int, default=6, show_default=True,
              help="Number of steps (even, >= 4: first, pairs, closing).")  # fmt: skip
@click.option("--step-length", type=float, required=True, help="m")
@click.option(
    "--clearance",
    type=float,
    help="Swing-foot lift (m); default 4.2% of the standing height (1.5% if the legs "
    "cannot reach that).",
)
@click.option(
    "--height",
    "body_height",
    type=float,
    help="Body height above the floor (m); default 83% of the standing height (87%, "
    "90% if the legs cannot reach that).",
)
@click.option("--out", "out_file", type=click.Path(dir_okay=False), required=True)
@click.option("--name", default="walk_forward", show_default=True, help="The program's name.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def gait_cmd(
    robot: str,
    steps: int,
    step_length: float,
    clearance: float | None,
    body_height: float | None,
    out_file: str,
    name: str,
    as_json: bool,
) -> None:
    """Generate a statically stable walk for any biped (legs and soles from its profile,
    leg IK, CoM over the support polygon) as an ordinary motion file."""
    from robotsim.model import load_robot
    from robotsim.motion.gait import biped_walk
    from robotsim.motion.schema import save_program

    walk = biped_walk(load_robot(robot), steps, step_length, clearance, body_height)
    params = walk.params
    program = walk.program.model_copy(update={"robot": robot})  # the file as given
    save_program(_named(program, name), out_file)
    info = {"out": out_file, "name": name, "robot": robot, "steps": steps,
            "step_length_m": step_length,
            "clearance_m": params.clearance, "body_height_m": params.body_height,
            "com_inset_m": params.com_inset, "half_width_m": params.half_width,
            "soles": list(walk.soles), "statically_stable": walk.static,
            "note": walk.note or None}  # fmt: skip
    if as_json:
        echo_json(info)
    else:
        click.echo(f"wrote {out_file}: {steps} steps of {step_length} m, body "
                   f"{params.body_height} m, clearance {params.clearance} m")  # fmt: skip
        if walk.note:
            click.echo(f"warning: {walk.note}", err=True)


def register(group: click.Group) -> None:
    group.add_command(motion_group)
