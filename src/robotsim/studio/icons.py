"""The studio's button icons, read from viser's icon archive opened once.

viser reads a button's icon (``add_button(icon=...)``) from its zip of some 4,300
Tabler icons, opening the archive anew for every icon: each opening parses the whole
central directory (~0.05-0.08 s), about a second of a studio's start for the dozen
icons of its panels. :func:`install` gives viser's GUI module a reader that opens the
archive once per process and keeps each icon read; the icons are the same bytes. If
viser's layout ever differs from what this expects, nothing is replaced and viser
reads its icons its own way.
"""

from __future__ import annotations

import functools
import threading
import zipfile
from typing import Any

__all__ = ["install"]

_lock = threading.Lock()  # one reader of the archive at a time


@functools.cache
def _archive(path: Any) -> zipfile.ZipFile:
    """The archive, opened once per process (icons are read-only: no studio state)."""
    return zipfile.ZipFile(path)


def install() -> bool:
    """Replace viser's icon reader by the cached one; True if it was replaced."""
    try:
        from viser import _gui_api, _icons
    except ImportError:
        return False
    current = getattr(_gui_api, "svg_from_icon", None)
    if getattr(current, "_robotsim", False):
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
