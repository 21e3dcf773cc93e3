"""Runs leave robotsim in the formats people open: MCAP for Foxglove, Rerun ``.rrd``,
MP4/GIF video, one self-contained HTML replay, and a live Foxglove WebSocket stream.

Every writer starts from a :class:`Replay` (:func:`load_replay`): a run of the run
store read back with every frame's world pose at every recorded sample. See
``docs/export.md``. Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from robotsim.lazy import lazy_exports

if TYPE_CHECKING:
    from robotsim.export.files import EXTENSIONS as EXTENSIONS
    from robotsim.export.files import FILE_FORMATS as FILE_FORMATS
    from robotsim.export.files import export_file as export_file
    from robotsim.export.replay import ExportError as ExportError
    from robotsim.export.replay import Replay as Replay
    from robotsim.export.replay import Track as Track
    from robotsim.export.replay import load_replay as load_replay

_LAZY = {
    "EXTENSIONS": "robotsim.export.files",
    "FILE_FORMATS": "robotsim.export.files",
    "export_file": "robotsim.export.files",
    "ExportError": "robotsim.export.replay",
    "Replay": "robotsim.export.replay",
    "Track": "robotsim.export.replay",
    "load_replay": "robotsim.export.replay",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "EXTENSIONS",
    "FILE_FORMATS",
    "ExportError",
    "Replay",
    "Track",
    "export_file",
    "load_replay",
]
