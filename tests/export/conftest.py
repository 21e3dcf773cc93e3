"""A recorded run shared by the export tests: two seconds of the shipped soccer
scenario (physics, one omni robot, eight obstacles), recorded into a run store the
way `robotsim run ... --out DIR` records it."""

from __future__ import annotations

from pathlib import Path

import pytest

from robotsim.cli import main


@pytest.fixture(scope="session")
def soccer_db(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("soccer")
    rc = main(["run", "soccer_obstacles", "--out", str(out), "--duration", "2"])
    assert rc == 0
    return out / "runs.sqlite"
