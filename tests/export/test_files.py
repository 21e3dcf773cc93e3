"""The export command's formats, output names and their errors."""

from __future__ import annotations

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
