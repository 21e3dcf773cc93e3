"""``robotsim studio [ROBOT|FILE|SCENARIO|STORE#RUN] [--port 8080] [--host 127.0.0.1]``."""

from __future__ import annotations

import click

from robotsim.cli.studio_page import page_options, serve_page

__all__ = ["register"]


@click.command("studio")
@click.argument("target", required=False)
@page_options
@click.option("--gamepad", "gamepads", type=click.IntRange(0, 15), multiple=True,
              metavar="SLOT", help="Read a gamepad (SDL slot, repeatable) for the live "
              "parameters: D-pad up/down motion speed level, R1/L1 time scale "
              "(mapping gamepad_studio; needs robotsim[io]).")  # fmt: skip
def studio_cmd(target: str | None, port: int, host: str, root: str | None, no_token: bool,
               gamepads: tuple[int, ...]) -> None:  # fmt: skip
    """Serve the web studio on the default scene, a robot (library name or
    URDF/MJCF/robot YAML file), a scenario (a file, or a shipped name: see
    'robotsim scenarios') or a recorded run to replay (a run store and the run:
    runs/soccer/runs.sqlite#3, or the store alone for its last run); open the printed
    URL (it carries a secret token: anyone with it can drive the studio)."""
    from robotsim.studio import Studio

    studio = Studio(host=host, port=port, token=not no_token, root=root)
    try:
        if gamepads:
            studio.live.add_gamepads(gamepads)
        if target is None:
            studio.load_default()
        else:
            studio.open(target)
    except BaseException:
        studio.stop()
        raise
    click.echo(f"robotsim studio: {studio.title}")
    serve_page(studio, "studio", host, port, no_token)


def register(group: click.Group) -> None:
    group.add_command(studio_cmd)
