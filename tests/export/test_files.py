"""The export command's formats, output names and their errors."""

from __future__ import annotations

from tests.procs import default_sigint

from robotsim.cli import main
from robotsim.cli.runs import FILE_FORMATS
from robotsim.export import EXTENSIONS
from robotsim.export import FILE_FORMATS as EXPORT_FORMATS
from robotsim.export.files import output_path


def test_the_cli_offers_every_export_format() -> None:
    assert FILE_FORMATS == EXPORT_FORMATS == tuple(EXTENSIONS)


def test_a_folder_gets_run_id_and_extension(tmp_path) -> None:
    assert output_path(tmp_path, 7, "rerun") == tmp_path / "run7.rrd"
    assert output_path(tmp_path / "x.mcap", 7, "mcap") == tmp_path / "x.mcap"


def test_csv_still_needs_a_folder(soccer_db, capsys) -> None:
    assert main(["export", "last", "--db", str(soccer_db), "--format", "csv"]) == 2
    assert "--out" in capsys.readouterr().err


def test_ctrl_c_during_an_export_leaves_no_file(soccer_db, tmp_path) -> None:
    """A real SIGINT to `robotsim export` while it writes (its temporary file is
    there): exit 130, no output file and no temporary file left behind."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.paths import REPO

    out = tmp_path / "out"
    out.mkdir()
    cmd = [sys.executable, "-m", "robotsim", "export", "last", "--db", str(soccer_db)]
    cmd += ["--format", "gif", "--speed", "0.02", "--width", "64", "--height", "48"]
    proc = subprocess.Popen(
        [*cmd, "--out", str(out)], cwd=REPO, stderr=subprocess.PIPE, text=True, env=os.environ,
        preexec_fn=default_sigint,  # Ctrl-C works even when the suite runs in the background
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob(".*.tmp")) and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.005)
        assert proc.poll() is None, "the export finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert list(out.iterdir()) == []


def test_tables_of_a_run_still_being_written_are_refused(tmp_path, capsys) -> None:
    from robotsim.recording import Recorder

    db = tmp_path / "db"
    rec = Recorder(db)
    rec.start_run("open")
    rec.signal("bot", 0.0, ("x",), [1.0])
    rec.flush()
    try:
        for fmt in ("csv", "parquet"):
            out = tmp_path / fmt
            rc = main(["export", "last", "--db", str(db), "--format", fmt, "--out", str(out)])
            assert rc == 2
            assert "still being written" in capsys.readouterr().err
            assert not out.exists() or not list(out.iterdir())
    finally:
        rec.close()


def test_an_interrupted_table_export_keeps_the_old_file_whole(
    soccer_db, tmp_path, monkeypatch
) -> None:
    """Ctrl-C half way through a signals CSV: the file of an earlier export stays as
    it was, no temporary file is left; the next export writes it whole."""
    import csv

    from robotsim.recording import RunStore
    from robotsim.recording.export import export_run

    with RunStore(soccer_db) as store:
        first = export_run(store, "last", "csv", tmp_path)
        signals = next(p for p in first if p.name.startswith("signals_"))
        old = signals.read_bytes()
        real = csv.writer
        rows = {"n": 0}

        class Interrupted:
            def __init__(self, fh):  # type: ignore[no-untyped-def]
                self.w = real(fh)

            def writerow(self, row):  # type: ignore[no-untyped-def]
                rows["n"] += 1
                if rows["n"] == 20:
                    raise KeyboardInterrupt
                return self.w.writerow(row)

            def writerows(self, rs):  # type: ignore[no-untyped-def]
                return self.w.writerows(rs)

        monkeypatch.setattr(csv, "writer", Interrupted)
        signals.write_bytes(old[: len(old) // 2])  # an older, different file
        half = signals.read_bytes()
        try:
            export_run(store, "last", "csv", tmp_path)
        except KeyboardInterrupt:
            pass
        else:
            raise AssertionError("the export was not interrupted")
        assert signals.read_bytes() == half
        assert not list(tmp_path.glob(".*.tmp"))
        monkeypatch.undo()
        export_run(store, "last", "csv", tmp_path)
        assert signals.read_bytes() == old
