"""``robotsim object OBJ``: what robotsim makes of an object (a shape, a mesh file or a
single-body URDF/MJCF): sizes, mass properties and where they came from, the convex
pieces it collides with, and the warnings (an implausible inertia in the file)."""

from __future__ import annotations

import click

from robotsim.cli.common import echo_json, parse_floats

__all__ = ["object_options", "register", "spec_from_options"]


def object_options(f):  # type: ignore[no-untyped-def]
    """``--scale``, ``--mass``, ``--density``, ``--friction`` (shared with ``grasp``)."""
    for opt in reversed([
        click.option("--scale", help="Multiply every length: one number or x,y,z."),
        click.option("--mass", type=float, help="Mass (kg); default: the file's if plausible, "
                     "else from the geometry at --density."),
        click.option("--density", type=float, help="kg/m^3 when the mass comes from the geometry "
                     "(default 1000)."),
        click.option("--friction", type=float, help="The object's sliding friction (default 1)."),
    ]):  # fmt: skip
        f = opt(f)
    return f


def spec_from_options(text: str, scale: str | None, mass: float | None, density: float | None,
                      friction: float | None, option: str = "--object"):  # type: ignore[no-untyped-def]  # fmt: skip
    """The :class:`robotsim.objects.ObjectSpec` of ``--object TEXT`` and those options."""
    from robotsim.objects.spec import parse_object_arg

    s = None
    if scale is not None:
        v = parse_floats(scale, "--scale", (1, 3))
        s = float(v[0]) if len(v) == 1 else (float(v[0]), float(v[1]), float(v[2]))
    return parse_object_arg(text, scale=s, mass=mass, density=density, friction=friction,
                            option=option)  # fmt: skip


@click.command("object")
@click.argument("obj", metavar="OBJECT")
@object_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def object_cmd(obj: str, scale: str | None, mass: float | None, density: float | None,
               friction: float | None, as_json: bool) -> None:  # fmt: skip
    """Load OBJECT (a mesh, URDF or MJCF file, or TYPE:SIZES such as box:0.05,0.03,0.08)
    and show its sizes, mass properties, their sources and its collision pieces."""
    import numpy as np

    from robotsim.objects import load_object

    o = load_object(spec_from_options(obj, scale, mass, density, friction, "OBJECT"))
    d = o.describe()
    if as_json:
        echo_json(d)
        return
    for w in o.warnings:
        click.echo(f"warning: {w}", err=True)
    ext = " x ".join(f"{x:.4g}" for x in d["extents_m"])
    click.echo(f"{o.name}: {ext} m, {o.mass:.4g} kg (mass: {o.mass_source}, inertia: "
               f"{o.inertia_source}), collision: {o.collision}, {len(o.pieces)} convex "
               f"piece(s)")  # fmt: skip
    moments = ", ".join(f"{x:.4g}" for x in np.linalg.eigvalsh(o.inertial.inertia))
    com = ", ".join(f"{x:.4g}" for x in d["com_m"])
    click.echo(f"  centre of mass [{com}] m, principal moments [{moments}] kg m^2")


def register(group: click.Group) -> None:
    group.add_command(object_cmd)
