"""``robotsim profile ROBOT``: what robotsim infers about a robot (kind, legs and feet,
arms and tools, grippers and fingertips, wheels and drive, mass and CoM)."""

from __future__ import annotations

from pathlib import Path

import click

from robotsim.cli.common import echo_json
from robotsim.model import load_robot

__all__ = ["register"]


def _xyz(v) -> str:  # type: ignore[no-untyped-def]
    return "[" + ", ".join(f"{x:.4g}" for x in v) + "]"


@click.command("profile")
@click.argument("robot")
@click.option("--profile", "profile_file", type=click.Path(dir_okay=False, path_type=Path),
              help="A profile file overriding parts of the inferred profile "
                   "(default: ROBOT's <stem>.profile.yaml if present).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def profile_cmd(robot: str, profile_file: Path | None, as_json: bool) -> None:
    """Show the robot profile of ROBOT (library name or robot file): inferred from its
    structure and geometry, with its profile file on top (docs/profiles.md)."""
    from robotsim.profile.resolve import resolve_profile

    model = load_robot(robot)
    prof = resolve_profile(model, profile_file)
    if as_json:
        echo_json(prof.to_dict())
        return
    click.echo(f"{prof.robot}: {prof.kind.value}, base {prof.base_link!r}, "
               f"mass {prof.mass:.4g} kg, CoM {_xyz(prof.com)} m "
               "(root link frame, zero pose)")  # fmt: skip
    for lg in prof.legs:
        click.echo(f"  leg {lg.name}: {', '.join(lg.joints)} -> foot {lg.foot}")
    for f in prof.feet:
        tag = " (added)" if f.sole.added else ""
        click.echo(f"  foot {f.name}: link {f.link}, sole frame {f.sole.name}{tag}, "
                   f"{len(f.polygon)}-corner sole")  # fmt: skip
    for a in prof.arms:
        g = f", gripper {a.gripper}" if a.gripper else ""
        click.echo(f"  arm {a.name}: {', '.join(a.joints)} -> tool {a.tool.name}{g}")
    for h in prof.heads:
        click.echo(f"  head {h.name}: {', '.join(h.joints)} -> link {h.link}")
    for g in prof.grippers:
        tips = ", ".join(t.name for t in g.fingertips)
        click.echo(f"  gripper {g.name}: {len(g.fingers)} fingers, tips {tips}")
    for w in prof.wheels:
        click.echo(f"  wheel {w.joint}: radius {w.radius:.4g} m, axle {_xyz(w.axis)}, "
                   f"ground contact {_xyz(w.position)} m (base link frame)")  # fmt: skip
        if w.rollers:
            more = f", ... {w.rollers[-1]}" if len(w.rollers) > 3 else ""
            shown = ", ".join(w.rollers[: 3 if len(w.rollers) > 3 else None])
            click.echo(f"    {len(w.rollers)} passive rollers: {shown}{more}")
    if prof.drive is not None:
        click.echo(f"  drive {prof.drive.type}: wheels {', '.join(prof.drive.wheels)}")
        for w, row in zip(prof.drive.wheels, prof.drive.matrix):
            click.echo(f"    {w}: omega = {_xyz(row)} . [vx, vy, wz]")
    for n in prof.notes:
        click.echo(f"  note: {n}")


def register(group: click.Group) -> None:
    group.add_command(profile_cmd)
