"""Determinism across executors: runs of a sweep made on the local pool re-run bit for
bit on Dask workers and in this process, in another order and with another number of
workers (`robotsim sweep verify`); a run whose stored state does not match is reported."""

from __future__ import annotations

import json
from pathlib import Path

import distributed  # noqa: F401  (the cluster extra; a missing install fails, not skips)
import pytest

from robotsim.cli import main
from robotsim.sweep import read_rows
from robotsim.sweep.verify import verify_sweep
from tests.sweep.tiny import write_sweep

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pool_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Five runs of 1.2 s made on a local pool of 2 processes."""
    tmp = tmp_path_factory.mktemp("verify")
    params = {"kp": {"path": ["robots.1.controller.gains.x.kp", "robots.1.controller.gains.y.kp"],
                     "values": [0.5, 1.0, 2.0, 4.0, 6.0]}}  # fmt: skip
    f = write_sweep(tmp, "det", parameters=params, set={"duration": 1.2})
    out = tmp / "out"
    assert main(["sweep", str(f), "--out", str(out), "--workers", "2", "--quiet"]) == 0
    return out


def test_pool_runs_rerun_identical_on_dask_and_in_process(pool_sweep: Path) -> None:
    on_dask = verify_sweep(pool_sweep, cluster="local:2")
    assert (on_dask.sampled, on_dask.identical) == (5, 5), on_dask.results
    workers = {r["worker"] for r in on_dask.results}
    made_by = {r["worker"] for r in read_rows(pool_sweep).values()}
    assert workers.isdisjoint(made_by)  # other processes than the pool's
    inline = verify_sweep(pool_sweep, 3, seed=1, cluster="inline")
    assert (inline.sampled, inline.identical) == (3, 3)
    assert all(r["compared"] == 2 for r in inline.results)  # t = 1.0 and the end


def test_a_stored_state_that_does_not_match_is_reported(
    pool_sweep: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    import numpy as np

    row = read_rows(pool_sweep)["p00002-r0"]
    con = sqlite3.connect(pool_sweep / "runs.sqlite")
    (state,) = con.execute(
        "SELECT state FROM run_checkpoints WHERE run_id = ? AND seq = 0", (row["run_id"],)
    ).fetchone()
    x = np.frombuffer(state, np.float64).copy()
    x[1] += 1e-6  # the first position coordinate (after the time)
    con.execute("UPDATE run_checkpoints SET state = ?, digest = 'x' WHERE run_id = ? AND seq = 0",
                (x.tobytes(), row["run_id"]))  # fmt: skip
    con.commit()
    con.close()
    try:
        code = main(["sweep", "verify", str(pool_sweep), "--cluster", "inline", "--json"])
        assert code == 1
        res = json.loads(capsys.readouterr().out)
        assert (res["sampled"], res["identical"]) == (5, 4)
        [bad] = [r for r in res["results"] if r["verdict"] != "identical"]
        d = bad["first_difference"]
        assert bad["run_key"] == "p00002-r0" and d["seq"] == 0 and d["t"] == pytest.approx(1.0)
        assert d["max_abs"] == pytest.approx(1e-6, rel=1e-6) and d["parts"] == {
            "qpos": d["max_abs"]
        }
        assert d["bodies"][0]["qpos_max_abs"] == pytest.approx(1e-6, rel=1e-6)
    finally:  # put the true state back for the other tests
        con = sqlite3.connect(pool_sweep / "runs.sqlite")
        con.execute("UPDATE run_checkpoints SET state = ? WHERE run_id = ? AND seq = 0",
                    (state, row["run_id"]))  # fmt: skip
        con.commit()
        con.close()
