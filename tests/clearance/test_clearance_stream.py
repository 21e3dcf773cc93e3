"""Long clearance runs are computed in chunks and streamed to their files (issue 17):
the files of ``robotsim clearance`` are those of ``run`` + ``write_outputs`` byte for
byte, a run split in tiny chunks gives the same distances, minima and intervals, and a
run whose samples would need many times the memory budget completes with peak memory
(tracemalloc) within the budget for the sampling, and the whole command (plots
included) with a peak that does not grow with the run's length."""

from __future__ import annotations

import csv
import filecmp
import json
import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from robotsim import budget
from robotsim.clearance import report, run
from robotsim.clearance.monitor import _Mover, per_sample_bytes
from robotsim.clearance.report import stream_outputs, write_outputs
from robotsim.clearance.scenario import load_scenario
from robotsim.clearance.stream import ClearanceStream
from robotsim.cli import main
from robotsim.shipped import find_shipped

os.environ.setdefault("MUJOCO_GL", "egl")


@pytest.fixture(scope="module")
def three():  # type: ignore[no-untyped-def]
    return load_scenario(find_shipped("three_puma_clearance", "scenario"))  # type: ignore[arg-type]


def test_cli_files_are_those_of_run_and_write_outputs(three, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    res = run(three.scene, three.trajectories, three.dt, t_end=three.t_end, cutoff=three.cutoff)
    write_outputs(res, tmp_path / "held", three.scene, three.trajectories)
    code = main(["clearance", "three_puma_clearance", "--out", str(tmp_path / "cli"), "--json"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(res.to_json()))
    for name in ("distances.csv", "contact_distances.csv", "intervals.json", "volumes.json"):
        assert filecmp.cmp(tmp_path / "held" / name, tmp_path / "cli" / name, shallow=False), name


def test_small_chunks_give_the_same_results(three) -> None:  # type: ignore[no-untyped-def]
    res = run(three.scene, three.trajectories, three.dt, cutoff=three.cutoff, link_pairs=True)
    assert len(res.pairs["A-B"].collision_intervals) == 1  # samples 173..241: edges inside
    for chunk in (7, 65, 173, 174, 241):
        stream = ClearanceStream(three.scene, three.trajectories, three.dt, cutoff=three.cutoff,
                                 link_pairs=True, chunk=chunk)  # fmt: skip
        chunks = list(stream.chunks())
        assert stream.chunk == max(chunk, 64)  # 64: the smallest chunk
        assert np.array_equal(np.concatenate([c.times for c in chunks]), res.times)
        got = stream.summary()
        assert got.samples == len(res.times) > stream.chunk
        for name, p in res.pairs.items():
            assert np.array_equal(np.concatenate([c.distance[name] for c in chunks]), p.distance)
            for link, c in (p.links or {}).items():
                joined = np.concatenate([ch.links[name][link] for ch in chunks])
                assert np.array_equal(joined, c)
            q = got.pairs[name]
            assert (q.min_distance, q.t_min, q.closest) == (p.min_distance, p.t_min, p.closest)
            assert len(q.collision_intervals) == len(p.collision_intervals)
            for a, b in zip(q.collision_intervals, p.collision_intervals, strict=True):
                assert np.allclose(a, b, rtol=0, atol=res.time_tol)
        assert got.to_json() == res.to_json()


def test_a_run_far_over_the_budget_streams_in_bounded_memory(three, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dt = 0.002  # 2,001 samples
    per = per_sample_bytes([_Mover(r, three.trajectories[r.name]) for r in three.scene.robots],
                           False)  # fmt: skip
    limit = 1024**2
    stream_outputs(three.scene, three.trajectories, 0.1, tmp_path / "warm", plots=False)
    with budget.memory_budget(limit):
        with pytest.raises(budget.BudgetError, match="use a larger dt"):
            run(three.scene, three.trajectories, dt)  # the whole run at once: refused
        assert 2001 * per > 5 * limit
        tracemalloc.start()
        try:
            summary, paths = stream_outputs(three.scene, three.trajectories, dt, tmp_path / "long",
                                            plots=False)  # fmt: skip
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < limit, peak  # sampling, distances.csv, contact_distances.csv: one chunk
    assert summary.samples == 2001
    with paths["csv"].open() as fh:
        assert sum(1 for _ in fh) == 2002
    held = run(three.scene, three.trajectories, dt)  # with the default budget it fits
    got = np.array(summary.pairs["A-B"].collision_intervals)
    assert got.shape == (1, 2)
    assert np.allclose(got, held.pairs["A-B"].collision_intervals, rtol=0, atol=held.time_tol)
    assert summary.pairs["A-B"].min_distance == held.pairs["A-B"].min_distance


def test_the_cli_streams_a_long_run_and_plots_its_envelope(
    three, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(report, "PLOT_FULL", 200)  # the envelope, on a run of seconds
    try:
        code = main(["clearance", "three_puma_clearance", "--out", str(tmp_path), "--dt",
                     "0.004", "--max-memory", "1M", "--link-pairs"])  # fmt: skip
    finally:
        budget.set_budget(None)
    assert code == 0
    with budget.memory_budget("1M"), pytest.raises(budget.BudgetError):
        run(three.scene, three.trajectories, 0.004, link_pairs=True)  # held at once: refused
    with (tmp_path / "distances.csv").open() as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["t", "A-B", "A-C", "B-C"] and len(rows) == 1002
    assert float(rows[-1][0]) == pytest.approx(4.0)
    for name in ("link_distances.csv", "contact_distances.csv"):
        with (tmp_path / name).open() as fh:
            assert sum(1 for _ in fh) == 1002, name
    assert (tmp_path / "distance_curves.png").stat().st_size > 10_000
    assert (tmp_path / "paths.png").stat().st_size > 10_000
    summary = json.loads((tmp_path / "intervals.json").read_text())
    assert len(summary["pairs"]["A-B"]["collision_intervals"]) == 1
    assert "link_pairs" in summary["pairs"]["A-B"]


def test_the_plot_envelope_keeps_every_dip() -> None:
    series = report._PlotSeries(10 * report.PLOT_FULL)
    assert series.bucket == 20
    t = np.arange(10 * report.PLOT_FULL, dtype=float)
    d = np.sin(t / 5000.0)
    d[123_457] = -5.0  # a one-sample dip
    for a in range(0, len(t), 9_999):  # chunks that do not line up with the buckets
        series.add(t[a : a + 9_999], {"d": d[a : a + 9_999]}, a + 9_999 >= len(t))
    tp, vals = series.arrays()
    assert len(tp) == len(vals["d"]) == report.PLOT_FULL  # two points per bucket
    assert vals["d"].min() == -5.0 and vals["d"].max() == d.max()
    assert np.all(np.diff(tp) >= 0)
