"""Which folders files may be read from while a caller confines the reads.

The studio page may only make robotsim read files inside its workspace root. A page
names a scenario, and the scenario names robot files, meshes, motion programs, base
scenarios...; each of those is read deep inside a loader. Rather than teach every
opener every field, each loader calls :func:`check_readable` on every file it is about
to read (robot files, meshes and their material/texture files, the files an MJCF
includes, YAML files of every kind). Outside a :func:`confined` block this does
nothing: the command line and Python callers read whatever path they are given (the
user is the caller there). Inside one, a file that resolves (symlinks followed) outside
the root is refused with :class:`OutsideScopeError`, naming the file and the root; the
loaders' callers put the scenario field in front of the message.

Files that ship with robotsim (the built-in robots and their meshes, the shipped
scenarios and motions: everything inside the installed package) stay readable.

The scope is a :mod:`contextvars` variable: it holds for the thread (or task) that
entered the block, not for other threads the process runs.

Inside a :func:`tracking_reads` block (a run's receipt), every file checked is also
noted, resolved, so that the run can say which files it read; a loader that serves a
file from a cache notes it with :func:`note_read`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from robotsim.errors import InputError

__all__ = [
    "OutsideScopeError",
    "Scope",
    "check_readable",
    "confined",
    "current_scope",
    "note_read",
    "tracking_reads",
]

PACKAGE_DIR = Path(__file__).resolve().parent


class OutsideScopeError(InputError):
    """A file to read lies outside the confined folder."""


@dataclass(frozen=True)
class Scope:
    """A folder reads are confined to: ``root`` (resolved), ``name`` for messages
    ("the studio's workspace") and ``hint`` (how to widen it)."""

    root: Path
    name: str
    hint: str = ""


_scope: ContextVar[Scope | None] = ContextVar("robotsim_file_scope", default=None)


def current_scope() -> Scope | None:
    """The innermost :func:`confined` scope of this thread, or None."""
    return _scope.get()


@contextmanager
def confined(root: str | Path, name: str = "the allowed folder", hint: str = "") -> Iterator[Scope]:
    """Inside the block, :func:`check_readable` refuses files outside ``root``."""
    scope = Scope(Path(root).resolve(), name, hint)
    token = _scope.set(scope)
    try:
        yield scope
    finally:
        _scope.reset(token)


_reads: ContextVar[set[Path] | None] = ContextVar("robotsim_file_reads", default=None)


@contextmanager
def tracking_reads() -> Iterator[set[Path]]:
    """Inside the block, every file :func:`check_readable` or :func:`note_read` sees is
    added (resolved) to the set yielded."""
    seen: set[Path] = set()
    token = _reads.set(seen)
    try:
        yield seen
    finally:
        _reads.reset(token)


def note_read(path: str | Path) -> None:
    """Note a file read (or served from a loader's cache) in the active
    :func:`tracking_reads` block, if any."""
    seen = _reads.get()
    if seen is not None:
        try:
            seen.add(Path(path).expanduser().resolve())
        except (OSError, RuntimeError, ValueError):
            pass


def check_readable(path: str | Path) -> None:
    """Nothing, unless a :func:`confined` block is active and ``path`` resolves
    outside its root and outside robotsim's own package files:
    :class:`OutsideScopeError` then, naming the path and the root. A
    :func:`tracking_reads` block notes the file."""
    if _reads.get() is not None:
        note_read(path)
    scope = _scope.get()
    if scope is None:
        return
    try:
        full = Path(path).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        raise OutsideScopeError(f"{path}: cannot resolve this path") from None
    if full.is_relative_to(scope.root) or full.is_relative_to(PACKAGE_DIR):
        return
    tail = f" ({scope.hint})" if scope.hint else ""
    raise OutsideScopeError(f"{path}: outside {scope.name} {scope.root}{tail}")
