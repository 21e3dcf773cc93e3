"""``robotsim motion ...``: play, check, thumbnail, upload and download motion programs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
import numpy as np

from robotsim.cli.common import echo_json, to_jsonable
from robotsim.errors import InputError

__all__ = ["register"]

os.environ.setdefault("MUJOCO_GL", "egl")


def _load(file: str, robot: str | None):  # -> (program, model, profile)
    from robotsim.errors import UnknownNameError
    from robotsim.model import load_robot
    from robotsim.motion.profile import RobotProfile, load_profile
    from robotsim.motion.schema import load_program

    program = load_program(file)
    name = robot or program.robot
    if name is None:
        raise InputError(f"{file}: no robot: give --robot or a 'robot:' field in the file")
    try:
        model = load_robot(name)
    except UnknownNameError as exc:
        field = "--robot" if robot else f"{file}: robot"
        raise InputError(f"{field}: {exc}") from None
    try:
        profile = load_profile(model.name)
    except UnknownNameError:
        if model.floating:
            raise
        profile = RobotProfile(robot=model.name)  # a fixed-base robot needs no soles
    return program, model, profile


def _method_options(f):  # type: ignore[no-untyped-def]
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
    return f


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
) -> None:
    """Play FILE kinematically with support-foot switching; write the results to OUT."""
    from robotsim.motion.playback import compare_speed_methods, play
    from robotsim.motion.support import ContactSettings
    from robotsim.motion.timeline import compile_program

    program, model, profile = _load(file, robot)
    tl = compile_program(program, model, file)
    res = play(
        model,
        tl,
        profile.soles,
        method,
        tick=tick,
        points=points,  # type: ignore[arg-type]
        settings=ContactSettings(detection=detection),
    )  # type: ignore[arg-type]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary = res.summary()
    summary["program"] = program.name
    summary["file"] = str(file)
    summary["stretched_segments"] = int(np.sum(tl.stretched))
    summary["speed_methods"] = {
        "as_written": compare_speed_methods(model, tl, profile.soles, tick, points),
        "all_level_8": compare_speed_methods(
            model, compile_program(_all_speed(program, 8), model, file), profile.soles, tick, points
        ),
        "note": "tick-time contact detection (the paper's); contact error = depth of a sole "
        "when it became the support",
    }
    if not no_strip:
        from robotsim.motion.render import side_view_strip

        summary["side_view_png"] = str(side_view_strip(res, out / "side_view.png"))
    summary["recording"] = str(_record(res, out / "runs.sqlite", program.name))
    summary["trajectory"] = str(_save_trajectory(res, out / "trajectory.npz"))
    (out / "summary.json").write_text(json.dumps(to_jsonable(summary), indent=2))
    if as_json:
        echo_json(summary)
    else:
        click.echo(
            f"{program.name} on {model.name}: {res.ticks} ticks ({method}), "
            f"{len(res.switches)} support switches, walked "
            f"{res.distance_walked_m:.3f} m, stance slip {res.max_stance_slip_m:.2g} m, "
            f"penetration {res.max_penetration_m:.2g} m -> {out}/summary.json"
        )


def _all_speed(program, level: int):  # type: ignore[no-untyped-def]
    out = program
    for m in program.motions:
        mm = m
        for kf in m.keyframes:
            mm = mm.set_speed(kf.name, level)
        out = out.with_motion(mm)
    return out


def _save_trajectory(res, path: Path) -> Path:  # type: ignore[no-untyped-def]
    """Every link's world pose at every tick (positions m, quaternions wxyz), with the
    joint values, support foot and sole heights, as a compressed ``.npz``."""
    from robotsim.spatial import R_to_quat

    P = res.link_poses()
    np.savez_compressed(
        path,
        t=res.samples.t,
        q=res.samples.q,
        joint_names=np.array(res.model.joint_names),
        link_names=np.array(res.model.link_names),
        link_pos=P[..., :3, 3],
        link_quat=R_to_quat(P[..., :3, :3]),
        T_world_root=res.T_world_root,
        support=res.support,
        foot_names=np.array(res.foot_names),
        sole_heights=res.heights,
    )
    return path


def _record(res, db: Path, name: str) -> Path:  # type: ignore[no-untyped-def]
    """The playback into a run store: joint values, body pose, support foot, sole
    heights per tick; support switches as events."""
    from robotsim.recording import Recorder
    from robotsim.spatial import R_to_rpy

    model = res.model
    t = res.samples.t
    rpy = R_to_rpy(res.T_world_root[:, :3, :3])
    body = np.column_stack([res.T_world_root[:, :3, 3], rpy])
    names = (
        *model.joint_names,
        "body_x",
        "body_y",
        "body_z",
        "body_roll",
        "body_pitch",
        "body_yaw",
        "support",
        *[f"{f}_height" for f in res.foot_names],
    )
    values = np.column_stack([res.samples.q, body, res.support.astype(float), res.heights])
    with Recorder(db) as rec:
        rec.start_run(
            f"motion play {name}",
            {
                "robot": model.name,
                "method": res.samples.method,
                "detection": res.settings.detection,
            },
        )
        rec.signals(model.name, t, names, values)
        for s in res.switches:
            rec.event(
                s.t,
                "support_switch",
                model.name,
                {"from": s.from_foot, "to": s.to_foot, "error_m": s.error_m},
            )
    return db


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
    help="Also write physics_check.json and com_path.png here.",
)
@click.option("--json", "as_json", is_flag=True)
def check_cmd(
    file: str, robot: str | None, physics: bool, out_dir: str | None, as_json: bool
) -> None:
    """Would the real robot fall? Exit status 0 stands, 1 falls."""
    from robotsim.motion.physics_check import check_physics
    from robotsim.motion.playback import play
    from robotsim.motion.timeline import compile_program

    del physics
    program, model, profile = _load(file, robot)
    if not profile.soles:
        raise InputError(
            f"{model.name}: the physics check needs a legged robot with foot soles "
            "in its robot profile"
        )
    res = play(model, compile_program(program, model, file), profile.soles)
    chk = check_physics(res, profile)
    summary = {
        "program": program.name,
        "robot": model.name,
        **chk.summary(),
        "kinematic_min_support_margin_m": float(np.min(res.support_margin)),
    }
    if out_dir:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "physics_check.json").write_text(json.dumps(to_jsonable(summary), indent=2))
        summary["com_path_png"] = str(_com_plot(chk, res, out / "com_path.png"))
    if as_json:
        echo_json(summary)
    else:
        fell = (
            f" at t={chk.fell_at_s:.2f} s during {chk.fell_during} ({chk.reason})"
            if chk.fell_at_s is not None
            else ""
        )
        click.echo(
            f"{program.name} on {model.name}: {chk.verdict.upper()}{fell}; CoM margin "
            f"min {summary['min_support_margin_m']:.3f} m; max divergence from the "
            f"kinematic playback {summary['max_divergence_m']:.3f} m; "
            f"RTF {chk.rtf:.0f}"
        )
    if chk.verdict == "falls":
        raise click.exceptions.Exit(1)


def _com_plot(chk, res, path: Path) -> Path:  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(2, 1, figsize=(9, 6), dpi=100)
    S = res.sole_poses
    for i in np.flatnonzero(np.diff(res.support, prepend=-1) != 0):  # each new stance
        f = int(res.support[i])
        c = res.soles[f].corners()
        P = (S[f, i, :3, :3] @ c.T).T + S[f, i, :3, 3]
        a.fill(P[:, 0], P[:, 1], alpha=0.25, color=f"C{f}")
    a.plot(res.com[:, 0], res.com[:, 1], "k--", lw=0.8, label="CoM, kinematic")
    a.plot(chk.com[:, 0], chk.com[:, 1], "r-", lw=1, label="CoM, physics")
    a.set_aspect("equal")
    a.set_xlabel("x (m)")
    a.set_ylabel("y (m)")
    a.legend(fontsize=7)
    a.set_title(f"CoM over the footprints: {chk.verdict}")
    b.plot(chk.t, chk.support_margin, label="support margin (m)")
    b.plot(chk.t, chk.divergence_m, label="|body sim - kinematic| (m)")
    b.axhline(0, color="0.5", lw=0.5)
    b.set_xlabel("t (s)")
    b.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


@motion_group.command("thumbnails")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--robot", help="Robot (library name or file); default: the file's robot.")
@click.option(
    "--out-dir",
    type=click.Path(file_okay=False),
    help="Where the PNGs go (default: FILE's folder / <stem>_thumbs).",
)
@click.option("--size", type=int, default=160, show_default=True, help="Pixels per side.")
@click.option("--no-update", is_flag=True, help="Do not write the thumbnail paths into FILE.")
def thumbnails_cmd(
    file: str, robot: str | None, out_dir: str | None, size: int, no_update: bool
) -> None:
    """Render one offscreen PNG per keyframe and record the paths in FILE."""
    import yaml

    from robotsim.motion.render import render_thumbnails
    from robotsim.motion.schema import MOTION_FORMAT, PROGRAM_FORMAT, save_program

    program, model, profile = _load(file, robot)
    folder = Path(file).resolve().parent
    out = Path(out_dir) if out_dir else folder / f"{Path(file).stem}_thumbs"
    updated = render_thumbnails(program, model, profile.soles, out, relative_to=folder, size=size)
    n = sum(1 for m in updated.motions for k in m.keyframes if k.thumbnail)
    if not no_update:  # keep the file's own format (a motion file stays a motion file)
        data = yaml.safe_load(Path(file).read_text())
        fmt = data.get("format", PROGRAM_FORMAT if "motions" in data else MOTION_FORMAT)
        save_program(updated, file, fmt)
    click.echo(f"{n} thumbnails in {out}" + ("" if no_update else f"; paths written to {file}"))


@motion_group.command("upload")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--port", required=True, help="Serial device of the robot controller.")
@click.option("--timeout", type=float, default=0.3, show_default=True, help="Seconds per reply.")
@click.option("--retries", type=int, default=3, show_default=True)
@click.option("--baud", type=int, default=115200, show_default=True)
def upload_cmd(file: str, port: str, timeout: float, retries: int, baud: int) -> None:
    """Store FILE's program on the robot controller (done only when it confirms)."""
    from robotsim.motion.schema import load_program
    from robotsim.motion.timeline import compile_program
    from robotsim.robotlink import ControllerLink

    program = load_program(file)
    if program.robot is not None:  # check names and limits here, before the port is opened
        _, model, _ = _load(file, None)
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
@click.option("--step", "step_length", type=float, default=0.045, show_default=True, help="m")
@click.option("--clearance", type=float, default=0.012, show_default=True, help="m")
@click.option(
    "--height",
    "body_height",
    type=float,
    default=0.24,
    show_default=True,
    help="Body height above the floor (m).",
)
def make_walk_cmd(
    out_file: str, robot: str, cycles: int, step_length: float, clearance: float, body_height: float
) -> None:
    """Generate a static walk (leg IK keyframes) like motions/walk_forward.yaml."""
    from robotsim.model import load_robot
    from robotsim.motion.gait import WalkParams, static_walk
    from robotsim.motion.schema import save_program

    params = WalkParams(
        step_length=step_length, clearance=clearance, body_height=body_height, cycles=cycles
    )
    save_program(static_walk(load_robot(robot), params), out_file)
    click.echo(f"wrote {out_file}")


def register(group: click.Group) -> None:
    group.add_command(motion_group)
