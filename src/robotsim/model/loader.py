"""``load_robot``: one entry point for library names and model files."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from robotsim.errors import ModelFileError, UnknownNameError
from robotsim.file_scope import check_readable, note_read

if TYPE_CHECKING:
    from robotsim.model.robot import RobotModel

__all__ = ["LIBRARY_DIR", "library_names", "load_robot"]

LIBRARY_DIR = Path(__file__).parent / "library"
ROBOT_SUFFIXES = (".urdf", ".xml", ".mjcf", ".yaml", ".yml")


def library_names() -> list[str]:
    """Names of the built-in robots (the ``*.yaml`` files of the library)."""
    files = LIBRARY_DIR.glob("*.yaml")
    return sorted(p.stem for p in files if not p.name.endswith(".profile.yaml"))


@lru_cache(maxsize=64)
def _load_library(name: str) -> RobotModel:
    from robotsim.model.robot_yaml import load_robot_yaml

    return load_robot_yaml(LIBRARY_DIR / f"{name}.yaml")


def load_robot(name_or_path: str | Path) -> RobotModel:
    """A built-in robot by name, or a model file by path.

    Files: ``.urdf`` (URDF), ``.xml``/``.mjcf`` (MJCF: :mod:`robotsim.model.mjcf`),
    ``.yaml``/``.yml`` (robotsim robot file: DH table or link tree).
    """
    s = str(name_or_path)
    if s in library_names():
        note_read(LIBRARY_DIR / f"{s}.yaml")  # a run's receipt names it (cached or not)
        return _load_library(s)
    path = Path(s)
    suffix = path.suffix.lower()
    if suffix in ROBOT_SUFFIXES or "/" in s or "\\" in s:
        check_readable(path)  # a confined caller (the studio page) reads only its folder
    if suffix not in ROBOT_SUFFIXES:
        if not path.exists():
            if suffix or "/" in s or "\\" in s:  # a path, not a library name
                raise ModelFileError(path, "no such file")
            raise UnknownNameError("robot", s, library_names())
        raise ModelFileError(path, f"unknown robot file type {suffix!r}; valid: "
                             + ", ".join(ROBOT_SUFFIXES))  # fmt: skip
    from robotsim.validation import check_input_file

    check_input_file(path, lambda m: ModelFileError(path, m))
    with _cyclic_gc_paused():
        model = _load_file(path, suffix)
    _warn_degenerate_inertias(model)
    _warn_closed_loops(model)
    return model


def _warn_closed_loops(model: RobotModel) -> None:
    """One warning line when the file closes kinematic loops robotsim does not close
    (MJCF ``<connect>``/``<weld>``: ``metadata["closed_loops"]``)."""
    import warnings

    from robotsim.errors import ModelWarning

    loops = model.metadata.get("closed_loops") or ()
    if loops:
        named = ", ".join(f"<{lp['kind']}> {lp['links'][0]}-{lp['links'][1]}" for lp in loops)
        warnings.warn(
            f"{model.source}: {len(loops)} closed kinematic loop(s) ({named}) are not closed: "
            "kinematics, dynamics and physics follow the tree (the loops' passive joints "
            "move freely)",
            ModelWarning,
            stacklevel=3,
        )


def _warn_degenerate_inertias(model: RobotModel) -> None:
    """One warning line naming the links whose inertias are degenerate and what physics
    does with them (:mod:`robotsim.model.inertia_bounds`)."""
    import warnings

    from robotsim.errors import ModelWarning
    from robotsim.model.inertia_bounds import degenerate_inertia_note

    note = degenerate_inertia_note(model)
    if note is not None:
        warnings.warn(note, ModelWarning, stacklevel=3)


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """Reading a model makes hundreds of thousands of small objects, none of them in a
    reference cycle: Python's cyclic collector would walk them all again and again
    (a third of the time at 20,000 links, growing faster than the file). Reference
    counting still frees everything; the collector runs again afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _load_file(path: Path, suffix: str) -> RobotModel:
    if suffix == ".urdf":
        from robotsim.model.urdf import load_urdf

        return load_urdf(path)
    if suffix in (".xml", ".mjcf"):
        from robotsim.model.mjcf import load_mjcf

        return load_mjcf(path)
    from robotsim.model.robot_yaml import load_robot_yaml

    return load_robot_yaml(path)
