"""``robotsim bench cli``: start-up figures from real ``python -m robotsim`` processes."""

from __future__ import annotations

import json

import pytest

from robotsim.cli import main


@pytest.mark.slow
def test_bench_cli_reports_start_up_times(capsys) -> None:
    assert main(["bench", "cli", "--quick", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    for key in ("python_start", "cli_start", "cli_robots"):
        assert got[f"{key}_s"] > 0 and got[f"{key}_cpu_s"] > 0, key
    # the CLI does more than a bare interpreter, and listing robots more than --help
    assert got["cli_start_cpu_s"] > got["python_start_cpu_s"]
