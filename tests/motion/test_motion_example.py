"""The motion example runs end to end (record, play, physics check, upload, download)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "humanoid_motion_program.py"


def test_example_runs(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "downloaded copy matches" in proc.stdout and "physics: stands" in proc.stdout
    assert len(list((tmp_path / "thumbs").glob("*.png"))) == 3
    assert (tmp_path / "exercise.yaml").is_file()
