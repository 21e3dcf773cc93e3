"""Two of viser's costs, paid once per process instead of once per call.

- **Icons**: viser reads a button's icon (``add_button(icon=...)``) from its zip of
  some 4,300 Tabler icons, opening the archive anew for every icon: each opening parses
  the whole central directory (~0.05-0.08 s), about a second of a studio's start for
  the dozen icons of its panels. The reader installed here opens the archive once and
  keeps each icon read (the same bytes).
- **Property type hints**: every scene or GUI handle looks up the type hints of its
  properties' class (``typing.get_type_hints``, ~0.2-0.7 ms) the first time one of its
  properties is set, once per handle: some 500 lookups of the same few classes for the
  default scene. They are looked up once per class here (the same dict, only read).

:func:`install` does both (the studio calls it before building anything). If viser's
layout ever differs from what this expects, that part is left alone and viser works
its own way.
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
    """Install both; True if both are in place."""
    return _install_icon_reader() & _install_hint_cache()


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


def _install_hint_cache() -> bool:
    try:
        from viser import _assignable_props_api as api
    except ImportError:
        return False
    base = getattr(api, "AssignablePropsBase", None)
    current = None if base is None else base.__dict__.get("_prop_hints")
    if isinstance(current, property) and _installed(current.fget):
        return True
    if not isinstance(current, functools.cached_property):
        return False
    hints_of = functools.cache(api.get_type_hints)  # by the properties' class

    def _prop_hints(self: Any) -> dict[str, Any]:
        return hints_of(type(self._impl.props))

    _prop_hints._robotsim = True  # type: ignore[attr-defined]
    base._prop_hints = property(_prop_hints)  # type: ignore[union-attr]
    return True
