"""``robotsim robots | inspect | fk | ik | dynamics``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from robotsim.cli.common import echo_json, parse_floats
from robotsim.errors import InputError

if TYPE_CHECKING:
    import numpy as np

    from robotsim.model.robot import RobotModel

__all__ = ["register"]


def _fmt_lim(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def describe(model: RobotModel) -> dict[str, Any]:
    """A JSON-friendly description of a model (what ``inspect --json`` prints)."""
    joints = []
    for j in model.joints:
        joints.append(
            {
                "name": j.name,
                "type": j.type.value,
                "parent": j.parent,
                "child": j.child,
                "axis": [float(v) for v in j.axis],
                "lower": _fmt_lim(j.limits.lower),
                "upper": _fmt_lim(j.limits.upper),
                "velocity": _fmt_lim(j.limits.velocity),
                "effort": _fmt_lim(j.limits.effort),
                "mimic": None
                if j.mimic is None
                else {
                    "joint": j.mimic.joint,
                    "multiplier": j.mimic.multiplier,
                    "offset": j.mimic.offset,
                },
                "actuated": j.actuated,
            }
        )
    return {
        "name": model.name,
        "kind": model.kind,
        "dof": model.nq,
        "floating": model.floating,
        "root": model.root,
        "default_frame": model.default_frame,
        "joint_order": list(model.joint_names),
        "links": [
            {
                "name": lk.name,
                "visuals": len(lk.visuals),
                "collisions": len(lk.collisions),
                "mass": None if lk.inertial is None else lk.inertial.mass,
            }
            for lk in model.links
        ],
        "joints": joints,
        "frames": [{"name": f.name, "link": f.link} for f in model.frames],
        "poses": {k: dict(v) for k, v in model.poses.items()},
        "source": None if model.source is None else str(model.source),
    }


def parse_q(model: RobotModel, text: str | None, deg: bool, option: str = "--q") -> np.ndarray:
    """``option`` (``--q``, ``--q0``, ``--qd``...) in ``inspect`` order (radians, or
    degrees with ``--deg`` for revolute joints); errors name ``option``."""
    import numpy as np

    if text is None:
        return model.zero()
    vals = parse_floats(text, option)
    if len(vals) != model.nq:
        raise InputError(
            f"{option}: {model.name} has {model.nq} joints ({', '.join(model.joint_names)}), "
            f"got {len(vals)} values"
        )
    if deg:
        for i, name in enumerate(model.joint_names):
            if model.joint(name).type.value != "prismatic":
                vals[i] = np.deg2rad(vals[i])
    return vals


@click.command("robots")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def robots_cmd(as_json: bool) -> None:
    """List the built-in robot library."""
    from robotsim.model.library_index import library_index

    rows = library_index()
    if as_json:
        echo_json({"robots": rows})
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title="robotsim library")
    for col in ("name", "dof", "kind", "links", "description"):
        t.add_column(col)
    for r in rows:
        t.add_row(r["name"], str(r["dof"]), r["kind"], str(r["links"]), r["description"])
    Console().print(t)


@click.command("inspect")
@click.argument("target")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def inspect_cmd(target: str, as_json: bool) -> None:
    """Show a robot's links, joints, frames and poses (library name or model file);
    for a mesh file, its vertex/face counts and bounds."""
    from robotsim.model.loader import ROBOT_SUFFIXES

    suffix = Path(target).suffix.lower()
    if suffix not in ROBOT_SUFFIXES and _is_mesh(target, suffix):
        from robotsim.model.meshes import describe_mesh  # mesh files (.obj .stl .3ds .x ...)

        info = describe_mesh(target)
        if as_json:
            echo_json(info)
        else:
            for k, v in info.items():
                click.echo(f"{k}: {v}")
        return
    from robotsim.model import load_robot

    model = load_robot(target)
    info = describe(model)
    if as_json:
        echo_json(info)
        return
    from rich.console import Console
    from rich.table import Table

    con = Console()
    if not con.is_terminal:
        # a pipe or a file: rich would lay the table out in 80 columns and cut names
        # ("panda_jo…"); the table's own width instead (it does not expand)
        con = Console(width=1_000)
    con.print(f"[bold]{model.name}[/bold] ({model.kind}), {model.nq} DoF, "
              f"{len(model.links)} links, root {model.root!r}"
              + (", floating base" if model.floating else ""))  # fmt: skip
    rows = []
    for j in info["joints"]:
        unit = "m" if j["type"] == "prismatic" else "deg"
        conv = (lambda v: v) if unit == "m" else math.degrees

        def lim(v: float | None, conv: Any = conv, unit: str = unit, per: str = "") -> str:
            return "-" if v is None else f"{conv(v):.4g} {unit}{per}"

        mim = "" if j["mimic"] is None else f"{j['mimic']['multiplier']:g} x {j['mimic']['joint']}"
        rows.append((j["name"], j["type"], f"{j['parent']} -> {j['child']}", lim(j["lower"]),
                     lim(j["upper"]), lim(j["velocity"], per="/s"), mim))  # fmt: skip
    title = "joints (q order = actuated rows, top to bottom)"
    cols = ("joint", "type", "parent -> child", "lower", "upper", "vel", "mimic")
    if len(rows) > _RICH_ROWS:
        _print_plain_table(title, cols, rows)
    else:
        t = Table(title=title)
        for col in cols:
            t.add_column(col)
        for row in rows:
            t.add_row(*row)
        con.print(t)
    if model.frames:
        con.print("frames: " + ", ".join(f"{f.name} (on {f.link})" for f in model.frames))
    if model.poses:
        con.print("poses: " + ", ".join(model.poses))


# rich lays a table out at about half a millisecond a row: a model of thousands of
# joints gets plain aligned columns instead (the same cells)
_RICH_ROWS = 500


def _is_mesh(target: str, suffix: str) -> bool:
    from robotsim.model.meshes import MESH_SUFFIXES

    return suffix in MESH_SUFFIXES or Path(target).is_file()


def _print_plain_table(title: str, cols: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    lines = [title, "  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]  # fmt: skip
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
    click.echo("\n".join(lines))


def outside_limits(model: RobotModel, q: np.ndarray, deg: bool) -> list[str]:
    """One phrase per joint of ``q`` outside its position limits, in the units the
    user typed (degrees with ``--deg`` for revolute joints, else radians / metres)."""
    out = []
    for i, name in enumerate(model.joint_names):
        lo, hi = float(model.lower[i]), float(model.upper[i])
        if lo - 1e-9 <= q[i] <= hi + 1e-9:
            continue
        angular = model.joint(name).type.value != "prismatic"
        if angular and deg:
            k, unit = math.degrees(1.0), "deg"
        else:
            k, unit = 1.0, "rad" if angular else "m"
        out.append(f"{name} = {q[i] * k:.6g} {unit} is outside [{lo * k:.6g}, {hi * k:.6g}] {unit}")
    return out


@click.command("fk")
@click.argument("robot")
@click.option("--q", "q_text", help="Joint values, comma-separated, in `inspect` order.")
@click.option("--deg", is_flag=True, help="--q angles are in degrees.")
@click.option(
    "--link",
    help="Link or frame (default: the robot's tool: its file's default frame, else its "
    "profile's first arm's tool).",
)
@click.option(
    "--strict", is_flag=True, help="A joint outside its limits is an error (default: a warning)."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def fk_cmd(
    robot: str, q_text: str | None, deg: bool, link: str | None, strict: bool, as_json: bool
) -> None:
    """Forward kinematics: the pose of a link or frame."""
    import numpy as np

    from robotsim.model import load_robot

    model = load_robot(robot)
    q = parse_q(model, q_text, deg)
    name = link
    if name is None:  # the profile's tool (an arm's end, between a gripper's fingertips)
        from robotsim.profile.resolve import default_tool

        model, name = default_tool(model)
    bad = outside_limits(model, q, deg)
    if bad and strict:
        raise InputError(f"--q: {model.name}: {'; '.join(bad)} (--strict)")
    for phrase in bad:
        click.echo(
            f"warning: {model.name}: {phrase}; the pose is computed anyway "
            "(--strict makes this an error)",
            err=True,
        )
    T = model.fk(q, name)
    if as_json:
        echo_json({"robot": model.name, "link": name, "q": q, "T": T, "outside_limits": bad,
                   "relative_to": model.root, "floating_base": model.floating})  # fmt: skip
        return
    click.echo(f"{model.name} {name} at q (rad, m) = {np.array2string(q, precision=6)}")
    if model.floating:
        click.echo(f"  floating base: the pose is relative to the root {model.root!r} "
                   "(held at the world origin)")  # fmt: skip
    click.echo(np.array2string(T, precision=6, suppress_small=True))


def _fmt_target(tgt: np.ndarray) -> str:
    return (
        "("
        + ", ".join(f"{v:g}" for v in tgt[:3])
        + ")"
        + (
            " with orientation (" + ", ".join(f"{v:g}" for v in tgt[3:]) + ")"
            if len(tgt) > 3
            else ""
        )
    )


#: The farthest an IK target may be from the robot's root (m).
IK_MAX_COORDINATE = 1.0e6


@click.command("ik")
@click.argument("robot")
@click.option("--target", required=True, help="x,y,z[,qw,qx,qy,qz] in metres (world frame).")
@click.option(
    "--link",
    help="Link or frame to place (default: the robot's tool, as fk's).",
)
@click.option(
    "--q0", "q0_text", help="Start configuration (radians, or degrees with --deg; inspect order)."
)
@click.option("--deg", is_flag=True, help="Revolute values of --q0 in degrees (as fk's --q).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def ik_cmd(
    robot: str, target: str, link: str | None, q0_text: str | None, deg: bool, as_json: bool
) -> None:
    """Inverse kinematics (damped least squares within joint limits). Exit status 1
    when no configuration within the limits reaches the target."""
    import numpy as np

    from robotsim.model import load_robot

    model = load_robot(robot)
    tgt = parse_floats(target, "--target", (3, 7))
    if np.abs(tgt[:3]).max() > IK_MAX_COORDINATE:
        raise InputError(
            f"--target {target}: a coordinate beyond {IK_MAX_COORDINATE:g} m (no robot "
            "reaches it; the solver's arithmetic would overflow)"
        )
    if len(tgt) == 7:
        norm = float(np.linalg.norm(tgt[3:]))
        if not norm > 1e-9:
            raise InputError(
                f"--target {target}: the orientation qw,qx,qy,qz is zero; give a unit "
                "quaternion (1,0,0,0 is no rotation)"
            )
        tgt[3:] /= norm
    q0 = parse_q(model, q0_text, deg, "--q0") if q0_text else None
    frame = link
    if frame is None:  # the profile's tool, as fk
        from robotsim.profile.resolve import default_tool

        model, frame = default_tool(model)
    res = model.ik(tgt, link=frame, q0=q0)
    metres = model.prismatic_mask
    shown = np.where(metres, res.q, np.rad2deg(res.q))  # angles in degrees, slides in metres
    out = {
        "robot": model.name,
        "link": frame,
        "relative_to": model.root,
        "floating_base": model.floating,
        "success": bool(res.success),
        "q": res.q,
        "q_deg": shown,
        "q_units": ["m" if p else "rad" for p in metres],
        "iterations": int(res.iterations),
        "position_error_m": float(res.position_error),
        "orientation_error_rad": float(res.orientation_error),
    }
    if as_json:
        echo_json(out)
    else:
        where = f"{model.name} {frame} to {_fmt_target(tgt)}"
        miss = f"{res.position_error:.3g} m"
        if len(tgt) > 3:
            miss += f" and {np.rad2deg(res.orientation_error):.3g} deg"
        if model.floating:
            where += f" (relative to the root {model.root!r}: floating base)"
        if res.success:
            click.echo(f"{where}: solved in {res.iterations} iterations (error {miss})")
        else:
            click.echo(
                f"{where}: no solution within the joint limits after {res.iterations} "
                f"iterations; the closest configuration misses by {miss} "
                "(out of reach? try another --q0)"
            )
        label = "q" if res.success else "closest q"
        named = (
            f"{n}={v:.4g}" + (" m" if p else "")
            for n, v, p in zip(model.joint_names, shown, metres, strict=True)
        )
        click.echo(f"{label} (deg" + (", m for sliding joints" if metres.any() else "") + "): "
                   + ", ".join(named))  # fmt: skip
        unit = "rad, m" if metres.any() else "rad"
        pasted = ",".join(f"{v:.6g}" for v in res.q)
        click.echo(f"{label} ({unit}): {pasted}  (paste as --q or --q0)")
    if not res.success:
        raise click.exceptions.Exit(1)


@click.command("dynamics")
@click.argument("robot")
@click.option("--q", "q_text", help="Joint positions, comma-separated, in `inspect` order.")
@click.option("--qd", "qd_text", help="Joint velocities (rad/s or m/s; default 0).")
@click.option("--qdd", "qdd_text", help="Joint accelerations (rad/s^2 or m/s^2; default 0).")
@click.option("--deg", is_flag=True, help="Revolute values of --q/--qd/--qdd in degrees.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def dynamics_cmd(robot: str, q_text: str | None, qd_text: str | None, qdd_text: str | None,
                 deg: bool, as_json: bool) -> None:  # fmt: skip
    """Rigid-body dynamics at one state: joint torques (inverse dynamics with the joints'
    armature, damping, friction and springs), gravity torques and the mass matrix."""
    import numpy as np

    from robotsim.model import load_robot

    model = load_robot(robot)
    q = parse_q(model, q_text, deg)
    qd = parse_q(model, qd_text, deg, "--qd") if qd_text else np.zeros(model.nq)
    qdd = parse_q(model, qdd_text, deg, "--qdd") if qdd_text else np.zeros(model.nq)
    out = {
        "robot": model.name,
        "joints": list(model.joint_names),
        "q": q,
        "qd": qd,
        "qdd": qdd,
        "tau": model.inverse_dynamics(q, qd, qdd),
        "gravity_torques": model.gravity_torques(q),
        "mass_matrix": model.mass_matrix(q),
        # the dynamics welds the root: a floating robot's base forces are not computed
        "root_fixed": model.root,
        "floating_base": model.floating,
    }
    if as_json:
        echo_json(out)
        return
    click.echo(
        f"{model.name}: torques (N m or N) at q (rad, m) = {np.array2string(q, precision=6)}"
    )
    if model.floating:
        click.echo(f"  floating base: the root {model.root!r} is held fixed at the world "
                   "origin, gravity along -z (the torques a welded base would need)")  # fmt: skip
    width = max(len(n) for n in model.joint_names) if model.nq else 0
    for name, t, g in zip(model.joint_names, out["tau"], out["gravity_torques"]):
        click.echo(f"  {name:>{width}}  tau {t:12.6g}   gravity {g:12.6g}")
    click.echo("mass matrix (kg m^2, kg):")
    click.echo(_matrix_text(out["mass_matrix"]))


def _matrix_text(M: np.ndarray) -> str:
    """``M`` in aligned columns to 6 significant digits, round-off (below 1e-9 of its
    largest entry) as 0: a wheel's 2.07e-5 kg m^2 keeps its digits (5 fixed decimals
    printed it as 0.00002)."""
    import numpy as np

    scale = float(np.max(np.abs(M))) if M.size else 0.0
    shown = np.where(np.abs(M) <= 1e-9 * scale, 0.0, M)
    return "\n".join(" ".join(f"{v:12.6g}" for v in row) for row in shown)


def register(group: click.Group) -> None:
    for cmd in (robots_cmd, inspect_cmd, fk_cmd, ik_cmd, dynamics_cmd):
        group.add_command(cmd)
