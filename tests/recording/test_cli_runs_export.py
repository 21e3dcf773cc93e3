"""``robotsim runs list|show`` and ``robotsim export`` in-process."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from robotsim.cli import main
from robotsim.recording import Recorder


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    with Recorder(out) as rec:  # a folder name: out/runs.sqlite
        rec.start_run("pid_p_vs_pd.yaml", {"duration": 1.0}, seed=7)
        for k in range(20):
            rec.signal("P", k * 0.1, ("x", "y"), [k, 2 * k])
            if k % 2 == 0:
                rec.signal("PD", k * 0.1, ("x",), [-k])
        rec.event(1.2, "goal_reached", robot="PD", data={"error_m": 0.01})
    return out


def test_list_and_show_json(store_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (store_dir / "runs.sqlite").is_file()
    assert main(["runs", "list", "--db", str(store_dir), "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [r["status"] for r in runs] == ["completed"] and runs[0]["seed"] == 7
    assert main(["runs", "list", "--db", str(store_dir)]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header == ["id", "status", "started", "(UTC)", "wall", "s", "scenario"]
    assert main(["runs", "show", "last", "--db", str(store_dir / "runs.sqlite"), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["signals"] == {"P": ["x", "y"], "PD": ["x"]}
    assert shown["signal_rows"] == 50 and shown["t_last"] == pytest.approx(1.9)
    assert shown["events"][0]["type"] == "goal_reached"
    assert main(["runs", "show", "1", "--db", str(store_dir)]) == 0
    text = capsys.readouterr().out
    assert "pid_p_vs_pd.yaml" in text and "[completed]" in text


def test_export_csv_and_parquet(store_dir: Path, tmp_path: Path) -> None:
    assert (
        main(
            [
                "export",
                "1",
                "--db",
                str(store_dir),
                "--format",
                "csv",
                "--out",
                str(tmp_path / "csv"),
            ]
        )
        == 0
    )
    with (tmp_path / "csv" / "signals_PD.csv").open() as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["t", "x"] and len(rows) == 11 and float(rows[2][1]) == -2.0
    with (tmp_path / "csv" / "events.csv").open() as fh:
        ev = list(csv.DictReader(fh))
    assert ev[0]["type"] == "goal_reached" and json.loads(ev[0]["data"]) == {"error_m": 0.01}
    assert json.loads((tmp_path / "csv" / "run.json").read_text())["scenario"].startswith("pid")
    assert (
        main(
            [
                "export",
                "last",
                "--db",
                str(store_dir),
                "--format",
                "parquet",
                "--out",
                str(tmp_path / "pq"),
            ]
        )
        == 0
    )
    table = pq.read_table(tmp_path / "pq" / "signals_P.parquet")
    assert table.column_names == ["t", "x", "y"]
    np.testing.assert_array_equal(table.column("y").to_numpy(), 2 * np.arange(20.0))
    assert pq.read_table(tmp_path / "pq" / "events.parquet").num_rows == 1


def test_bad_arguments_exit_2(
    store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["runs", "list", "--db", str(tmp_path / "missing.sqlite")]) == 2
    assert "no run store at" in capsys.readouterr().err
    assert main(["runs", "show", "42", "--db", str(store_dir)]) == 2
    assert "unknown run '42'; valid: 1" in capsys.readouterr().err
    assert main(["runs", "show", "1", "--db", "mysql://x@y/z"]) == 2
    assert "unsupported database 'mysql'" in capsys.readouterr().err
    assert (
        main(
            [
                "export",
                "1",
                "--db",
                str(store_dir),
                "--format",
                "xlsx",
                "--out",
                str(tmp_path / "x"),
            ]
        )
        == 2
    )


def test_plot_writes_a_png(
    store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "p.png"
    assert (
        main(
            [
                "runs",
                "plot",
                "1",
                "--db",
                str(store_dir),
                "--robot",
                "P",
                "--signals",
                "y,x",
                "--out",
                str(png),
            ]
        )
        == 0
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (
        main(
            [
                "runs",
                "plot",
                "1",
                "--db",
                str(store_dir),
                "--robot",
                "P",
                "--signals",
                "z",
                "--out",
                str(png),
            ]
        )
        == 2
    )
    assert "unknown signal of robot 'P' 'z'; valid: x, y" in capsys.readouterr().err


def test_list_show_export_against_postgresql(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Recorder(pg_url) as rec:
        rid = rec.start_run("pg-cli", {"k": 1})
        rec.signal("r", 0.5, ("a",), [2.5])
    assert main(["runs", "show", str(rid), "--db", pg_url, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["scenario"] == "pg-cli" and shown["signals"] == {"r": ["a"]}
    assert main(["runs", "list", "--db", pg_url, "--json"]) == 0
    assert rid in [r["id"] for r in json.loads(capsys.readouterr().out)["runs"]]
    assert main(["export", str(rid), "--db", pg_url, "--out", str(tmp_path / "e")]) == 0
    assert (tmp_path / "e" / "signals_r.csv").read_text() == "t,a\n0.5,2.5\n"
