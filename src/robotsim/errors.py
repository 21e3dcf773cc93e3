"""The one exception hierarchy of robotsim.

Every error a user can cause derives from :class:`RobotsimError`; the CLI turns any of
them into a one-line message and exit status 2. Messages name the file, field or value
at fault and, where there is a fixed set, what is allowed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any


class RobotsimError(Exception):
    """Base class of every error robotsim raises on purpose."""


class InputError(RobotsimError, ValueError):
    """A value given by the user is malformed or out of range."""


class UnknownNameError(InputError, KeyError):
    """A robot, link, joint, frame or pose name that does not exist.

    The message lists the valid names (the first 20 of them).
    """

    def __init__(self, kind: str, name: str, valid: Iterable[str]) -> None:
        self.kind = kind
        self.name = name
        self.valid = tuple(valid)
        shown = ", ".join(self.valid[:20]) or f"none (it has no {kind}s)"
        more = f" (+{len(self.valid) - 20} more)" if len(self.valid) > 20 else ""
        close = _close_names(str(name), self.valid)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        super().__init__(f"unknown {kind} {name!r}; valid: {shown}{more}{hint}")

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return str(self.args[0])


def _words(name: str) -> frozenset[str]:
    return frozenset(w for w in re.split(r"[^0-9a-z]+", name.lower()) if w)


def _close_names(name: str, valid: tuple[str, ...], most: int = 3) -> list[str]:
    """Up to ``most`` valid names a typo or a reordering of ``name`` could mean: the same
    words in another order or case (``left_foot`` -> ``foot_left``), then spelling
    neighbours (``difflib``). Only for lists small enough to compare (a file's names)."""
    if not name or len(valid) > 5000 or len(name) > 200:
        return []
    import difflib

    words = _words(name)
    same = [v for v in valid if v != name and _words(v) == words]
    near = difflib.get_close_matches(name, valid, n=most, cutoff=0.75)
    return list(dict.fromkeys(same + near))[:most]


class ModelError(RobotsimError):
    """A robot model is inconsistent (dangling parent, cycle, bad joint...)."""


class ModelFileError(ModelError, InputError):
    """A model file (URDF, MJCF, DH or robot YAML, mesh) cannot be read.

    ``path`` names the file and ``where`` the element or field inside it.
    """

    def __init__(self, path: object, message: str, where: str | None = None) -> None:
        self.path = str(path)
        self.where = where
        loc = f"{self.path}: {where}: " if where else f"{self.path}: "
        super().__init__(loc + message)


class KinematicsError(RobotsimError):
    """A kinematic query cannot be answered (wrong shape, unknown frame...)."""


class PhysicsError(RobotsimError):
    """The physics simulation diverged or was set up wrongly."""


class PhysicsFault(PhysicsError):
    """The simulation left physics while it ran (NaN/Inf, a body out of the world's
    bounds, a speed far above every limit, energy from nowhere): a run stops and writes
    ``fault`` (a :class:`robotsim.physics.guard.Fault`: body, time, quantity, value,
    limit) in its summary instead of results."""

    def __init__(self, message: str, fault: Any) -> None:
        super().__init__(message)
        self.fault = fault


class ScenarioError(InputError):
    """A scenario or motion file is invalid; the message gives the field path."""


class LinkError(RobotsimError):
    """Communication with a real robot (serial link) failed."""


class MissingExtraError(RobotsimError):
    """A feature needs an optional dependency group that is not installed; the message
    names the feature and the ``pip install 'robotsim[EXTRA]'`` line that adds it."""


class RobotsimWarning(UserWarning):
    """Base class of the warnings robotsim gives on purpose; the CLI prints each as one
    ``warning: ...`` line on stderr."""


class ModelWarning(RobotsimWarning):
    """A robot model loads but something in it is taken differently from how the file
    says it (degenerate inertias bounded for physics, a model without inertias...)."""
