"""One of viser's costs, paid once per process instead of once per call.

- **Icons**: viser reads a button's icon (``add_button(icon=...)``) from its zip of
  some 4,300 Tabler icons, opening the archive anew for every icon: each opening parses
  the whole central directory (~0.05-0.08 s), about a second of a studio's start for
  the dozen icons of its panels. The reader installed here opens the archive once and
  keeps each icon read (the same bytes).

viser's per-handle property type hints are left to viser: looking them up once per
class instead (a shared dict) broke re-ticking the Walk tab's Keyboard box in the
browser (tests/browser/test_walk_page.py), so that tuning was taken out.

:func:`install` does it (the studio calls it before building anything). If viser's
layout ever differs from what this expects, it is left alone and viser works its own
way.
"""

from __future__ import annotations

import functools
import threading
import zipfile
from typing import Any

__all__ = ["install"]

_lock = threading.Lock()  # one reader of the icon archive at a time


@functools.cache
def _archive(path: Any) -> zipfile.ZipFile:
    """The icon archive, opened once per process (read-only: no studio state)."""
    return zipfile.ZipFile(path)


def install() -> bool:
    """Install the icon reader; True if it is in place."""
    return _install_icon_reader()


def _installed(obj: Any) -> bool:
    return bool(getattr(obj, "_robotsim", False))


def _install_icon_reader() -> bool:
    try:
        from viser import _gui_api, _icons
    except ImportError:
        return False
    current = getattr(_gui_api, "svg_from_icon", None)
    if _installed(current):
        return True
    folder = getattr(_icons, "ICONS_DIR", None)
    if current is None or folder is None:
        return False
    path = folder / "tabler-icons.zip"
    if not path.is_file():
        return False

    @functools.cache
    def svg_from_icon(icon_name: str) -> str:
        with _lock, _archive(path).open(f"{icon_name}.svg") as icon_file:
            return icon_file.read().decode("utf-8")

    svg_from_icon._robotsim = True  # type: ignore[attr-defined]
    _gui_api.svg_from_icon = svg_from_icon  # type: ignore[assignment]
    return True
