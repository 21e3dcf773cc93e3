"""``robotsim convert ROBOT --to urdf|mjcf --out FILE``: write a robot in another format."""

from __future__ import annotations

from pathlib import Path

import click

from robotsim.cli.common import echo_json

__all__ = ["register"]


_SUFFIX_FORMAT = {".urdf": "urdf", ".xml": "mjcf", ".mjcf": "mjcf"}


@click.command("convert")
@click.argument("robot")
@click.option("--to", "fmt", type=click.Choice(["urdf", "mjcf"]), default=None,
              help="Output format (default: by --out's suffix, .urdf or .xml/.mjcf).")  # fmt: skip
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Output file (mesh paths are written relative to its folder).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def convert_cmd(robot: str, fmt: str | None, out: Path, as_json: bool) -> None:
    """Convert a robot (library name, .urdf, MJCF .xml or robot .yaml) to URDF or MJCF.

    URDF has no place for named poses, joint armature and springs, capsules or
    ellipsoids (written as cylinder + spheres / a sphere); a URDF conversion lists what
    it left out (stderr; "not_written" in --json), as does an MJCF one (a floating
    robot's named poses). See docs/file_formats.md.
    """
    from robotsim.errors import InputError
    from robotsim.model import load_robot

    if fmt is None:
        fmt = _SUFFIX_FORMAT.get(out.suffix.lower())
        if fmt is None:
            raise InputError(
                f"--out {str(out)!r}: say --to urdf or --to mjcf (the suffix "
                f"{out.suffix or '(none)'!r} is neither .urdf nor .xml/.mjcf)"
            )
    model = load_robot(robot)
    omitted: tuple[str, ...] = ()
    if fmt == "urdf":
        from robotsim.model.urdf import save_urdf
        from robotsim.model.urdf_export import urdf_omissions

        path = save_urdf(model, out)
        omitted = urdf_omissions(model)
    else:
        from robotsim.model.mjcf import save_mjcf
        from robotsim.model.mjcf_export import mjcf_omissions

        path = save_mjcf(model, out)
        omitted = mjcf_omissions(model)
    info = {"robot": model.name, "format": fmt, "out": str(path), "links": len(model.links),
            "dof": model.nq, "not_written": list(omitted)}  # fmt: skip
    if as_json:
        echo_json(info)
    else:
        click.echo(f"wrote {path} ({fmt}: {model.name}, {len(model.links)} links, "
                   f"{model.nq} DoF)")  # fmt: skip
    if omitted:
        label = "URDF" if fmt == "urdf" else "MJCF"
        click.echo(f"note: the {label} file has no place for {'; '.join(omitted)}", err=True)


def register(group: click.Group) -> None:
    group.add_command(convert_cmd)
