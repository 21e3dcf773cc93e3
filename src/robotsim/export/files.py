"""One entry point for every file format: :func:`export_file` reads the run, picks the
output name and writes the file atomically (an error or Ctrl-C leaves no half file).

Formats (``docs/export.md``): ``mcap`` (Foxglove), ``rerun`` (``.rrd``), ``mp4`` and
``gif`` (rendered video), ``html`` (one self-contained page replaying the run).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from robotsim.atomic import atomic_path
from robotsim.export.replay import ExportError, Replay, load_replay

if TYPE_CHECKING:
    from robotsim.recording.store import RunStore

__all__ = ["EXTENSIONS", "FILE_FORMATS", "export_file", "output_path", "write_replay"]

#: File formats and their file extensions.
EXTENSIONS: Mapping[str, str] = {
    "mcap": ".mcap",
    "rerun": ".rrd",
    "mp4": ".mp4",
    "gif": ".gif",
    "html": ".html",
}
FILE_FORMATS = tuple(EXTENSIONS)


def output_path(out: str | os.PathLike[str] | None, run_id: int, fmt: str) -> Path:
    """``out`` as the file to write: an existing folder (or ``None``: the current one)
    gets ``run<ID>.<ext>`` inside; a file name is taken as given (its folder must
    exist)."""
    ext = EXTENSIONS[fmt]
    path = Path(".") if out is None else Path(out)
    if path.is_dir():
        return path / f"run{run_id}{ext}"
    if not path.parent.is_dir():
        raise ExportError(f"--out: folder {path.parent} does not exist")
    return path


#: Modules each format needs beyond the base install (the ``export`` extra).
NEEDS: Mapping[str, tuple[str, ...]] = {
    "mcap": ("mcap", "foxglove_schemas_protobuf"),
    "rerun": ("rerun",),
    "mp4": ("av",),
    "gif": (),
    "html": (),
}


def write_replay(replay: Replay, fmt: str, path: Path, options: Mapping[str, Any]) -> Path:
    """Write ``replay`` as ``fmt`` to ``path`` (atomically)."""
    from robotsim.extras import require

    for module in NEEDS.get(fmt, ()):
        require(module, f"--format {fmt}")
    with atomic_path(path) as tmp:
        if fmt == "mcap":
            from robotsim.export.mcap_file import write_mcap

            write_mcap(replay, tmp)
        elif fmt == "rerun":
            from robotsim.export.rerun_file import write_rerun

            write_rerun(replay, tmp)
        elif fmt in ("mp4", "gif"):
            from robotsim.export.video import write_video

            keys = ("width", "height", "fps", "camera", "speed")
            write_video(replay, tmp, fmt, **{k: options[k] for k in keys if k in options})
        elif fmt == "html":
            from robotsim.export.html_file import write_html

            write_html(replay, tmp)
        else:
            raise ExportError(f"--format: unknown format {fmt!r}; valid: {', '.join(EXTENSIONS)}")
    return path


def export_file(
    store: RunStore,
    run: int | str,
    fmt: str,
    out: str | os.PathLike[str] | None = None,
    **options: Any,
) -> Path:
    """Export run ``run`` of ``store`` as ``fmt`` (see the module doc); returns the path."""
    if fmt not in EXTENSIONS:
        raise ExportError(f"--format: unknown format {fmt!r}; valid: {', '.join(EXTENSIONS)}")
    replay = load_replay(store, run)
    return write_replay(replay, fmt, output_path(out, replay.info.id, fmt), options)
