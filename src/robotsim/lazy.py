"""Packages whose public names load on first use (PEP 562).

A package lists ``{name: defining module}`` and gets the module-level ``__getattr__``
and ``__dir__`` from :func:`lazy_exports`; ``from pkg import Name`` then imports only
the module that defines ``Name``. This keeps ``import robotsim`` and the CLI's start-up
free of NumPy, numba, MuJoCo, SQLAlchemy and matplotlib until a name needs them.
Type checkers see the names through an ``if TYPE_CHECKING:`` block of explicit imports.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, table: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` exporting ``table``'s names, each
    from the module ``table[name]`` (cached in the package once loaded)."""

    def __getattr__(name: str) -> object:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
