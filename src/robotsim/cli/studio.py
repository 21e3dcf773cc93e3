"""``robotsim studio [ROBOT|FILE|SCENARIO] [--port 8080] [--host 127.0.0.1]``."""

from __future__ import annotations

import click

__all__ = ["register"]


@click.command("studio")
@click.argument("target", required=False)
@click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True,
              help="TCP port (the next free one is taken if it is busy).")  # fmt: skip
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; 0.0.0.0 serves every network interface.")  # fmt: skip
@click.option("--root", "root", default=None, metavar="DIR",
              help="The folder the page may read and write files in [default: the "
              "current folder].")  # fmt: skip
@click.option("--no-token", is_flag=True,
              help="Serve the page without the launch token (a trusted machine only).")  # fmt: skip
def studio_cmd(
    target: str | None, port: int, host: str, root: str | None, no_token: bool
) -> None:
    """Serve the web studio on the default scene, a robot (library name or
    URDF/MJCF/robot YAML file) or a scenario (a file, or a shipped name: see
    'robotsim scenarios'); open the printed URL (it carries a secret token: anyone
    with it can drive the studio)."""
    from robotsim.studio import Studio

    studio = Studio(host=host, port=port, token=not no_token, root=root)
    try:
        if target is None:
            studio.load_default()
        else:
            studio.open(target)
    except BaseException:
        studio.stop()
        raise
    note = "" if studio.port == port else f" (port {port} was busy)"
    click.echo(f"robotsim studio: {studio.title}")
    if host not in ("127.0.0.1", "localhost", "::1"):
        who = "anyone who can reach this machine" if no_token else "anyone with the URL"
        click.echo(
            f"warning: robotsim studio is listening on {host}: {who} can open the page "
            "and drive it (see docs/security.md)",
            err=True,
        )
    elif no_token:
        click.echo(
            "warning: no token: every program and user on this machine can drive the "
            "studio (see docs/security.md)",
            err=True,
        )
    click.echo(f"robotsim studio: the page reads and writes files in {studio.workspace.root}")
    click.echo(f"robotsim studio: open {studio.url} in a browser{note}; Ctrl+C stops")
    studio.serve_forever()


def register(group: click.Group) -> None:
    group.add_command(studio_cmd)
