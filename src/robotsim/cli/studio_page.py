"""What every command that serves the studio page shares (``robotsim studio``,
``robotsim teleop``): the ``--port``/``--host``/``--root``/``--no-token`` options and
the lines printed when the page is up (workspace root, URL with its token, warnings
for a wide ``--host`` or ``--no-token``). See ``docs/security.md``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from robotsim.studio.app import Studio

__all__ = ["LOOPBACK", "announce_page", "page_options", "serve_page"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def page_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--port``, ``--host``, ``--root DIR`` and ``--no-token`` (passed to the
    command as ``port``, ``host``, ``root``, ``no_token``) and ``--max-memory SIZE``
    (sets the memory budget that bounds the page's live recordings and runs)."""
    from robotsim.cli.common import max_memory_option

    options = [
        click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True,
                     help="TCP port (the next free one is taken if it is busy)."),
        click.option("--host", default="127.0.0.1", show_default=True,
                     help="Address to bind; 0.0.0.0 serves every network interface."),
        click.option("--root", "root", default=None, metavar="DIR",
                     help="The folder the page may read and write files in [default: the "
                     "current folder]."),
        click.option("--no-token", is_flag=True,
                     help="Serve the page without the launch token (a trusted machine only)."),
    ]  # fmt: skip
    for option in reversed(options):
        f = option(f)
    return max_memory_option(f)


def announce_page(studio: Studio, command: str, host: str, port: int, no_token: bool) -> None:
    """Print the workspace root and the URL to open (with the token), and a warning on
    stderr when the page is served beyond loopback or without a token."""
    if host not in LOOPBACK:
        who = "anyone who can reach this machine" if no_token else "anyone with the URL"
        click.echo(
            f"warning: robotsim {command} is listening on {host}: {who} can open the page "
            "and drive it (see docs/security.md)",
            err=True,
        )
    elif no_token:
        click.echo(
            f"warning: no token: every program and user on this machine can drive the "
            f"{command} page (see docs/security.md)",
            err=True,
        )
    note = "" if studio.port == port else f" (port {port} was busy)"
    click.echo(f"robotsim {command}: the page reads and writes files in {studio.workspace.root}")
    click.echo(f"robotsim {command}: open {studio.url} in a browser{note}; Ctrl+C stops")


def serve_page(studio: Studio, command: str, host: str, port: int, no_token: bool) -> None:
    """Announce the page (:func:`announce_page`) and serve it until Ctrl+C. A Ctrl+C
    that comes as soon as the URL is printed, before the serving loop is entered, is
    the same normal stop (exit 0), not an abort."""
    try:
        announce_page(studio, command, host, port, no_token)
        studio.serve_forever()
    except KeyboardInterrupt:
        studio.stop()
