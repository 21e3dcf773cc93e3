"""The run store of an output folder whose name has a dot (``runs/v1.0``): the folder,
with ``runs.sqlite`` in it, not an SQLite file named ``v1.0``."""

from __future__ import annotations

from pathlib import Path

from robotsim.run_io import RunOptions, open_recorder, store_folder


def test_a_dotted_output_folder_is_a_folder(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "v1.0"
    rec = open_recorder(RunOptions(out_dir=out))
    try:
        assert store_folder(rec) == out.resolve()
    finally:
        rec.close()
    assert (out / "runs.sqlite").is_file() and out.is_dir()
