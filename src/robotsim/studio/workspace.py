"""The studio's workspace: the one folder the page may read and write files in.

Every path typed in the page (a robot or scenario file, a motion to load or save) goes
through :class:`Workspace`: relative paths are taken from the root, ``~`` and symlinks
are resolved, and anything that ends up outside the root is refused with a message
naming the root and ``--root``. A save never replaces an existing file unless the page
confirmed it (the motion editor's "Overwrite" checkbox). Errors about a file the page
named reach the page without the file's contents (:func:`redact`); the terminal gets
the whole message. The robot port is limited to serial devices (:func:`serial_device`).

The root is the folder ``robotsim studio`` was started in unless ``--root DIR`` says
otherwise. Names of built-in robots and of shipped scenarios and motions are not paths
and stay allowed.

The files a scenario or program names are confined too: every page callback runs
inside :meth:`Workspace.confined`, so a scenario in the workspace that names a robot
file, mesh, motion or base scenario outside it is refused where the loader would read
it, with the scenario field and the path in the message (:mod:`robotsim.file_scope`).
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from robotsim.errors import InputError, RobotsimError
from robotsim.file_scope import Scope, confined
from robotsim.shipped import Kind, find_shipped
from robotsim.shipped import resolve as resolve_shipped

__all__ = ["Workspace", "WorkspaceError", "redact", "serial_device"]

# Serial devices: USB/ACM/UART adapters (ttyUSB0, ttyACM0, ttyS0, ttyAMA0), Bluetooth
# serial (rfcomm0), pseudo-terminals (/dev/pts/N: emulated robots), macOS names.
_SERIAL = re.compile(r"/dev/(tty[A-Za-z]+[0-9]*|pts/[0-9]+|rfcomm[0-9]+|(cu|tty)\.[\w.-]+)")
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
_GOT = re.compile(r"(\bgot|\bvalue|\bfound)\s+[^;,)]+")


class WorkspaceError(InputError):
    """A path from the page that the studio will not use (outside the root, an
    existing file without the overwrite confirm, not a serial device)."""


class Workspace:
    """The folder the page's paths are confined to.

    Args:
        root: the folder (default: the current directory); it must exist.
    """

    def __init__(self, root: str | Path | None = None) -> None:
        given = Path.cwd() if root is None else Path(root).expanduser()
        try:
            resolved = given.resolve(strict=True)
        except (OSError, RuntimeError):
            raise WorkspaceError(f"--root {given}: no such folder") from None
        if not resolved.is_dir():
            raise WorkspaceError(f"--root {given}: not a folder")
        self.root = resolved

    def resolve(self, text: str | Path) -> Path:
        """The absolute path ``text`` names (relative to the root; ``~`` and symlinks
        resolved); :class:`WorkspaceError` if it is outside the root."""
        s = str(text).strip()
        if not s:
            raise WorkspaceError("no path given")
        if "\x00" in s:
            raise WorkspaceError("a path cannot contain a NUL character")
        path = Path(s).expanduser()
        try:
            full = (path if path.is_absolute() else self.root / path).resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
            why = getattr(exc, "strerror", None) or "a loop of symlinks"
            raise WorkspaceError(f"{s}: cannot resolve this path ({why})") from None
        if not full.is_relative_to(self.root):
            raise WorkspaceError(
                f"{s}: outside the studio's workspace {self.root}; the page reads and "
                "writes files only there (start robotsim studio with --root DIR to choose "
                "another folder)"
            )
        return full

    def confined(self) -> AbstractContextManager[Scope]:
        """A block in which every file robotsim reads must be inside the root (or ship
        with robotsim): the files a scenario or program opened from the page names
        (robots, meshes, motions, base scenarios), wherever the loaders read them
        (:mod:`robotsim.file_scope`). The studio runs every page callback in one."""
        return confined(
            self.root,
            "the studio's workspace",
            "the page reads files only there; start the studio with --root DIR to "
            "choose another folder",
        )

    def contains(self, path: str | Path) -> bool:
        """Whether ``path`` (resolved) is inside the root."""
        try:
            self.resolve(path)
        except WorkspaceError:
            return False
        return True

    def readable(self, text: str | Path) -> Path:
        """An existing file inside the root."""
        path = self.resolve(text)
        if not path.is_file():
            raise WorkspaceError(f"{str(text).strip()}: no such file in {self.root}")
        return path

    def find(self, text: str | Path, kind: Kind) -> Path:
        """An existing file inside the root, else the shipped file of ``kind`` named
        ``text`` (``walk_forward``); the outside-the-root error, or the shipped
        resolver's (which lists the shipped names), otherwise."""
        s = str(text).strip()
        try:
            path = self.resolve(s)
        except WorkspaceError:
            found = find_shipped(s, kind)
            if found is None:
                raise
            return found
        if path.is_file():
            return path
        return find_shipped(s, kind) or resolve_shipped(path, kind)

    def writable(self, text: str | Path, overwrite: bool = False) -> Path:
        """A file inside the root that may be written: a new one, or an existing one
        when ``overwrite`` (the page's explicit confirm). Its folder must exist or be
        creatable inside the root."""
        path = self.resolve(text)
        if path.is_dir():
            raise WorkspaceError(f"{str(text).strip()}: is a folder")
        if path.exists() and not overwrite:
            raise WorkspaceError(
                f"{str(text).strip()}: the file exists; tick Overwrite to replace it"
            )
        return path

    @contextmanager
    def reading(self, path: str | Path) -> Iterator[None]:
        """Errors raised inside the block (reading a file the page named) reach the page
        redacted (:func:`redact`), as the same exception; the whole message goes to the
        terminal."""
        try:
            yield
        except RobotsimError as exc:
            full = str(exc)
            short = redact(full, str(path))
            if short != full:
                print(f"robotsim studio: {full}", file=sys.stderr)
                exc.args = (short,)  # the same error (its class), told briefly
            raise


def redact(message: str, path: str = "") -> str:
    """``message`` without what it quotes from a file: quoted text and the value after
    "got"/"value"/"found" become ``…``; the path the page typed is kept."""
    kept = {path, repr(path), f'"{path}"'}

    def quoted(m: re.Match[str]) -> str:
        text = m.group(0)
        return text if text in kept or text[1:-1] == path else text[0] + "…" + text[-1]

    out = _QUOTED.sub(quoted, message)
    return _GOT.sub(lambda m: f"{m.group(1)} …", out)


def serial_device(text: str) -> str:
    """``text`` if it names a serial device (``/dev/ttyUSB0``, ``/dev/ttyACM0``,
    ``/dev/ttyS0``, ``/dev/pts/3``, ``/dev/serial/by-id/...``, ``/dev/rfcomm0``);
    :class:`WorkspaceError` otherwise (a file, a disk, a virtual console)."""
    s = str(text).strip()
    if not s:
        raise WorkspaceError("give the robot's serial port (e.g. /dev/ttyUSB0)")
    if "\x00" in s:
        raise WorkspaceError("a port cannot contain a NUL character")
    hint = "robot port: only serial devices (/dev/ttyUSB0, /dev/ttyACM0, /dev/ttyS0, /dev/pts/N)"
    try:
        real = os.path.realpath(s, strict=True)
        mode = os.stat(real).st_mode
    except (OSError, ValueError):
        raise WorkspaceError(f"{s}: no such device; {hint}") from None
    if not (_SERIAL.fullmatch(real) and stat.S_ISCHR(mode)):
        raise WorkspaceError(f"{s}: not a serial device; {hint}")
    return s
