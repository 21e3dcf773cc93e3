"""The ``robotsim`` command line: a thin layer over the library.

``main(argv) -> int`` parses, calls library functions and prints; tests call it
in-process. Any :class:`robotsim.errors.RobotsimError` (and a few OS errors) becomes a
one-line ``error: ...`` on stderr and exit status 2, without a traceback.

Subcommands live in sibling modules, each exposing ``register(group)``; add a module
name to ``COMMAND_MODULES`` to plug one in.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Sequence
from typing import TextIO

import click

from robotsim.errors import RobotsimError, RobotsimWarning

__all__ = ["COMMAND_MODULES", "USAGE", "cli", "main", "usage"]

COMMAND_MODULES = [
    "robotsim.cli.robots",
    "robotsim.cli.bench",
    "robotsim.cli.studio",
    "robotsim.cli.runs",
    "robotsim.cli.command",
    "robotsim.cli.serve",
    "robotsim.cli.input",
    "robotsim.cli.export_model",
    "robotsim.cli.run",
    "robotsim.cli.motion",
    "robotsim.cli.walk",
    "robotsim.cli.robotlink",
    "robotsim.cli.teleop",
    "robotsim.cli.clearance",
    "robotsim.cli.plan",
    "robotsim.cli.profile",
    "robotsim.cli.objects",
    "robotsim.cli.grasp",
    "robotsim.cli.sweep",
    "robotsim.cli.scenarios",
    "robotsim.cli.warm",
]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="robotsim")
def cli() -> None:
    """robotsim: model, program, simulate and check robots in 3D."""


_registered = False


def _register_all() -> None:
    global _registered
    if _registered:
        return
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(cli)
    _registered = True


USAGE = """\
robotsim: model, program, simulate and check robots in 3D.

Usage: robotsim COMMAND [ARGS]...    ('robotsim COMMAND --help' for its options)

Start with:
  robotsim robots                  the built-in robots
  robotsim scenarios               the shipped scenarios and motion programs
  robotsim studio                  the web studio at http://127.0.0.1:8080
  robotsim run soccer_obstacles --out out/soccer
"""


def usage() -> str:
    """The short usage printed by ``robotsim`` without arguments: a few first
    commands and the list of every command."""
    ctx = click.Context(cli, info_name="robotsim")
    names = cli.list_commands(ctx)
    return USAGE + f"\nCommands: {', '.join(names)}\n'robotsim --help' describes each.\n"


_python_showwarning = warnings.showwarning


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None) -> None:  # fmt: skip
    """robotsim's own warnings as one ``warning: ...`` line on stderr; others as Python
    prints them."""
    if issubclass(category, RobotsimWarning):
        click.echo(f"warning: {message}", err=True)
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad input, 1 internal error, 130
    interrupted). As the program (``argv`` None), an interrupted command exits at once
    (:func:`_exit_interrupted`)."""
    rc = _main(argv)
    if rc == 130 and argv is None:
        _exit_interrupted()
    return rc


def _exit_interrupted() -> None:
    """Leave after Ctrl-C without the interpreter's module teardown, which takes 1-2 s
    once MuJoCo, numba and matplotlib are loaded on a busy machine: the command's own
    clean-up (``finally`` blocks: recorders finished, files closed) has run, and the
    ``atexit`` handlers run here; only the freeing of every module's objects is skipped
    (the operating system reclaims the memory)."""
    import atexit
    import os

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(130)


def _main(argv: Sequence[str] | None) -> int:
    _register_all()
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        click.echo(usage(), nl=False)
        return 0
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            rc = cli.main(args=args, prog_name="robotsim", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    except click.UsageError as exc:
        cmd = exc.ctx.command_path if exc.ctx is not None else "robotsim"
        click.echo(f"error: {exc.format_message()} (see '{cmd} --help')", err=True)
        return 2
    except click.ClickException as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
        return 2
    except RobotsimError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    except ModuleNotFoundError as exc:
        from robotsim.extras import EXTRA_OF, missing_extra_message

        top = (exc.name or "").split(".")[0]
        if top not in EXTRA_OF:
            raise
        click.echo(f"error: {missing_extra_message(top, 'this command')}", err=True)
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        click.echo(f"error: {exc.filename}: {exc.strerror}", err=True)
        return 2
    except OSError as exc:  # a path the file system refuses before any file is read
        import errno

        if exc.errno not in (errno.ENAMETOOLONG, errno.ENOTDIR, errno.ELOOP, errno.EINVAL):
            raise
        name = str(exc.filename)
        shown = name if len(name) <= 80 else f"{name[:60]}... ({len(name):,} characters)"
        click.echo(f"error: {shown}: {exc.strerror}; give an existing file or a name", err=True)
        return 2
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    return rc if isinstance(rc, int) else 0  # click returns Exit codes, not raises them
