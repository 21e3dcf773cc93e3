"""Files shipped inside the package (scenarios, motions), found by name.

The scenarios and motion programs that come with robotsim are package data in
``robotsim/data/scenarios/`` and ``robotsim/data/motions/``, so every install has them,
whatever the current directory. Commands accept either a path or a shipped name::

    robotsim run soccer_obstacles                  # the shipped scenario
    robotsim run scenarios/my_field.yaml           # a file of your own

:func:`resolve` decides: a path that exists wins; otherwise a name (with or without
``.yaml``) is looked up among the shipped files of that kind; otherwise the error names
what was given and lists the shipped names. Only :mod:`robotsim.errors` is imported, so
every loader can use this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from robotsim.errors import ScenarioError

__all__ = [
    "KINDS",
    "Kind",
    "ShippedFile",
    "catalogue",
    "find_shipped",
    "is_shipped",
    "resolve",
    "shipped_dir",
    "shipped_files",
    "shipped_names",
]

Kind = Literal["scenario", "motion"]
KINDS: tuple[Kind, ...] = ("scenario", "motion")

DATA = Path(__file__).resolve().parent / "data"
_FOLDERS: dict[str, str] = {"scenario": "scenarios", "motion": "motions"}
_SUFFIXES = (".yaml", ".yml")


def shipped_dir(kind: Kind) -> Path:
    """The folder holding the shipped files of ``kind`` (inside the installed package)."""
    if kind not in _FOLDERS:
        raise ValueError(f"kind {kind!r}: expected one of {', '.join(KINDS)}")
    return DATA / _FOLDERS[kind]


def shipped_files(kind: Kind) -> list[Path]:
    """Every shipped ``*.yaml`` file of ``kind``, sorted by name."""
    d = shipped_dir(kind)
    if not d.is_dir():
        return []
    return sorted((p for p in d.iterdir() if p.suffix in _SUFFIXES), key=lambda p: p.stem)


def shipped_names(kind: Kind) -> list[str]:
    """The names (file stems) of the shipped files of ``kind``, sorted."""
    return [p.stem for p in shipped_files(kind)]


def is_shipped(path: str | Path) -> bool:
    """Whether ``path`` is one of the shipped files (so nothing should be written
    beside it: it may sit in a read-only ``site-packages``)."""
    try:
        return Path(path).resolve().is_relative_to(DATA)
    except OSError:
        return False


def find_shipped(name: str | Path, kind: Kind) -> Path | None:
    """The shipped file of ``kind`` named ``name`` (``soccer_obstacles`` or
    ``soccer_obstacles.yaml``; a name, not a path), or None."""
    text = str(name).strip()
    if not text or "/" in text or "\\" in text:
        return None
    stem = text
    for suffix in _SUFFIXES:
        if text.endswith(suffix):
            stem = text[: -len(suffix)]
    for p in shipped_files(kind):
        if p.stem == stem:
            return p
    return None


def resolve(name_or_path: str | Path, kind: Kind) -> Path:
    """The file meant by ``name_or_path``: an existing path as given, else the shipped
    file of ``kind`` with that name (``soccer_obstacles`` or ``soccer_obstacles.yaml``).

    Raises :class:`~robotsim.errors.ScenarioError` naming the argument and listing the
    shipped names when it is neither.
    """
    text = str(name_or_path).strip()
    path = Path(text).expanduser()
    if text and path.exists():
        return path
    found = find_shipped(text, kind)
    if found is not None:
        return found
    names = shipped_names(kind)
    shown = ", ".join(names) if names else "(none)"
    hint = ""
    if text and Path(text).stem in names:
        hint = f"; did you mean the shipped {kind} '{Path(text).stem}'?"
    raise ScenarioError(
        f"{text or repr(text)}: no such file and no shipped {kind} of that name{hint} "
        f"(shipped {_FOLDERS[kind]}: {shown}; 'robotsim scenarios' lists them)"
    )


@dataclass(frozen=True)
class ShippedFile:
    """One shipped file: its ``name``, what it is (``kind`` is ``scenario``/``motion``;
    ``runs_as`` is the scenario's ``kind:`` (``mobile``, ``clearance``...), or
    ``program``/``motion`` for motion files),
    its ``description`` and ``path``."""

    name: str
    kind: Kind
    runs_as: str
    description: str
    path: Path


def catalogue() -> list[ShippedFile]:
    """Every shipped scenario then every shipped motion, read from the files."""
    import yaml

    out = []
    for kind in KINDS:
        for p in shipped_files(kind):
            doc = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
            if kind == "motion":
                runs_as = "program" if "motions" in doc else "motion"
            else:
                runs_as = str(doc.get("kind", "?"))
            desc = " ".join(str(doc.get("description", "")).split())
            out.append(ShippedFile(p.stem, kind, runs_as, desc, p))
    return out
