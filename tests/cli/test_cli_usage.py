"""``robotsim`` without arguments, and commands that need an extra that is not installed.

A module of an extra is made absent with ``sys.modules[name] = None`` (Python's own way
to stop an import: ``import pyarrow`` then raises ModuleNotFoundError, as in a base
install). ``scripts/check_install.sh`` checks the same against a real base install.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from robotsim.cli import cli, main
from robotsim.errors import MissingExtraError
from robotsim.extras import EXTRA_OF, require
from robotsim.recording import Recorder


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_no_arguments_prints_a_short_usage_on_stdout(capsys) -> None:
    code, out, err = run(capsys)
    assert code == 0 and err == ""
    assert out.startswith("robotsim: ") and "Usage: robotsim COMMAND" in out
    assert "robotsim scenarios" in out and "robotsim studio" in out
    for name in cli.commands:
        assert name in out
    assert len(out.splitlines()) < 20  # short: not the whole --help


def test_no_arguments_as_a_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "robotsim"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert "Usage: robotsim COMMAND" in proc.stdout and "error" not in proc.stdout


def _block(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    for name in list(sys.modules):
        if name == module or name.startswith(module + "."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)


def test_require_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    assert require("pyarrow", "x").__name__ == "pyarrow"
    _block(monkeypatch, "pyarrow")
    with pytest.raises(MissingExtraError) as err:
        require("pyarrow", "--format parquet")
    assert str(err.value) == (
        "--format parquet needs the 'io' extra: pip install 'robotsim[io]' "
        "(pyarrow is not installed)"
    )
    assert set(EXTRA_OF) >= {"serial", "dynamixel_sdk", "pygame", "psycopg", "pyarrow"}


def test_parquet_export_without_pyarrow(capsys, monkeypatch, tmp_path: Path) -> None:
    with Recorder(tmp_path / "out") as rec:
        rec.start_run("r", {}, seed=0)
        rec.signal("A", 0.0, ("x",), [1.0])
    _block(monkeypatch, "pyarrow")
    db = tmp_path / "out"
    code, out, err = run(capsys, "export", "last", "--db", db, "--format", "parquet",
                         "--out", tmp_path / "x")  # fmt: skip
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err == (
        "error: --format parquet needs the 'io' extra: pip install 'robotsim[io]' "
        "(pyarrow is not installed)\n"
    )
    code, _, _ = run(capsys, "export", "last", "--db", db, "--format", "csv", "--out",
                     tmp_path / "csv")  # fmt: skip
    assert code == 0 and (tmp_path / "csv" / "signals_A.csv").is_file()


def test_postgresql_store_without_psycopg(capsys, monkeypatch) -> None:
    _block(monkeypatch, "psycopg")
    code, _, err = run(capsys, "runs", "list", "--db", "postgresql://me:secret@127.0.0.1:1/db")
    assert code == 2 and err.count("\n") == 1
    assert "the PostgreSQL run store" in err and "pip install 'robotsim[io]'" in err
    assert "secret" not in err  # the password is not echoed


def test_serial_link_without_pyserial(capsys, monkeypatch, tmp_path: Path) -> None:
    _block(monkeypatch, "serial")
    code, _, err = run(capsys, "motion", "upload", "walk_forward", "--port", tmp_path / "tty")
    assert code == 2 and err.count("\n") == 1
    assert "the serial port" in err and "pip install 'robotsim[io]'" in err


def test_teleop_without_pygame_runs_without_gamepads(capsys, monkeypatch) -> None:
    _block(monkeypatch, "pygame")
    code, out, err = run(capsys, "teleop", "--headless", "--duration", "0.2")
    assert code == 0, err
    assert "no gamepads (pip install 'robotsim[io]' adds them)" in out
    code, _, err = run(capsys, "teleop", "--headless", "--duration", "0.2", "--gamepad", "0")
    assert code == 2 and "gamepads (--gamepad) needs the 'io' extra" in err


def test_concave_object_without_the_objects_extra(capsys, monkeypatch, tmp_path: Path) -> None:
    import trimesh

    ring = tmp_path / "ring.obj"
    trimesh.creation.torus(0.04, 0.01, major_sections=16, minor_sections=6).export(ring)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no decomposition cached
    monkeypatch.delenv("ROBOTSIM_CACHE_DIR", raising=False)
    _block(monkeypatch, "coacd")
    _block(monkeypatch, "vhacdx")
    code, _, err = run(capsys, "object", ring)
    assert code == 2 and err.count("\n") == 1, err
    assert "needs the 'objects' extra: pip install 'robotsim[objects]'" in err
