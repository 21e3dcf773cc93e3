"""How the URDF and MJCF exporters write numbers: one rule for both formats.

Python's shortest round-trip ``repr`` (so reading the file back gives the same
doubles), and ``0`` for zero (also for ``-0.0``, so files do not show ``-0.0``).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["num", "vec"]


def num(x: float) -> str:
    """One number as text: shortest round-trip form, ``"0"`` for (signed) zero."""
    v = float(x)
    if v == 0.0:
        return "0"
    return repr(v)


def vec(xs: Iterable[float]) -> str:
    """Numbers separated by single spaces (an XML attribute such as ``xyz``)."""
    return " ".join(num(x) for x in xs)
