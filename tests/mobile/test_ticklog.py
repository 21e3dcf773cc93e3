"""Per-tick samples in bounded memory (issue 17): the tick log holds a run up to a
bound, then folds block by block; the envelope keeps every bucket's extremes; the
carried path metrics equal the whole-run ones; a real mobile run (and a formation)
that folds reports the numbers of the same run held whole, with bounded memory."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robotsim.mobile import load_mobile
from robotsim.mobile import ticklog as ticklog_module
from robotsim.mobile.metrics import PathStats, axis_overshoot_pct, overshoot, path_length
from robotsim.mobile.run import MobileRun
from robotsim.mobile.ticklog import Envelope, TickLog
from robotsim.scenario_yaml import read_scenario_yaml


def test_the_log_holds_then_folds_every_tick_once_in_order() -> None:
    seen: list[np.ndarray] = []
    log = TickLog(2, lambda t, rows: seen.append(np.column_stack([t, rows])), hold=1000, block=256)
    rows = np.arange(6000.0)
    for k in range(600):
        log.add(float(k), [rows[k], -rows[k]])
    t, r = log.arrays()  # held: every tick, as added
    assert not log.folded and np.array_equal(t, rows[:600]) and np.array_equal(r[:, 1], -t)
    peak = 0
    for k in range(600, 6000):
        log.add(float(k), [rows[k], -rows[k]])
        peak = max(peak, log.held)
    log.sync()
    got = np.concatenate(seen)
    assert log.folded and len(log) == 6000
    assert np.array_equal(got[:, 0], rows) and np.array_equal(got[:, 2], -rows)
    assert peak <= 1000 + 256  # never more than the bound and one block
    with pytest.raises(RuntimeError, match="folded"):
        log.arrays()


def test_the_envelope_keeps_each_buckets_first_last_and_extremes() -> None:
    rng = np.random.default_rng(3)
    n = 50_000
    t = np.arange(n) * 0.01
    v = np.cumsum(rng.normal(size=(n, 2)), axis=0)
    v[12_345, 0] = 1e6  # a spike and a dip must survive
    v[40_000, 1] = -1e6
    env = Envelope(2, max_buckets=64)
    for a in range(0, n, 777):  # blocks that do not line up with the buckets
        env.add(t[a : a + 777], v[a : a + 777])
    b = env.bucket
    assert math.ceil(n / b) <= 64 < math.ceil(n / (b // 2))
    assert len(env.times) <= 64 * 6 and np.all(np.diff(env.times) > 0)
    kept = np.rint(env.times / 0.01).astype(int)
    assert np.array_equal(env.values, v[kept])
    for s in range(0, n, b):  # every bucket: first, last, min and max of each column
        part = v[s : s + b]
        want = {s, min(s + b, n) - 1}
        want |= {s + int(np.argmin(part[:, c])) for c in range(2)}
        want |= {s + int(np.argmax(part[:, c])) for c in range(2)}
        assert want <= set(kept.tolist())
    assert 12_345 in kept and 40_000 in kept


def test_carried_path_metrics_equal_the_whole_runs() -> None:
    rng = np.random.default_rng(7)
    n = 20_000
    poses = np.cumsum(rng.normal(scale=0.05, size=(n, 3)), axis=0)
    poses[:, 2] = np.angle(np.exp(1j * 3 * poses[:, 2]))  # wrapped, many turns
    start, goal = np.array([0.0, 0.0, 0.0]), np.array([1.0, -2.0, 0.5])
    st = PathStats(start, goal)
    cuts = np.sort(rng.choice(np.arange(1, n), 30, replace=False))
    for part in np.split(poses, cuts):
        st.add(part)
    assert st.length == pytest.approx(path_length(poses[:, :2]), rel=1e-12)
    assert st.overshoot() == overshoot(poses[:, :2], start, goal)
    want = axis_overshoot_pct(poses, start, goal)
    got = st.axis_overshoot_pct()
    assert got.keys() == want.keys()
    for k in want:
        assert got[k] == pytest.approx(want[k], rel=1e-9, abs=1e-9)


def _run(name: str, seconds: float, monkeypatch: pytest.MonkeyPatch | None) -> MobileRun:
    """``name`` run for ``seconds``; with ``monkeypatch``: its logs hold 256 ticks and
    its envelopes 64 buckets."""
    if monkeypatch is not None:
        monkeypatch.setattr(ticklog_module, "HOLD", 256)
        monkeypatch.setattr(ticklog_module, "BLOCK", 64)
        monkeypatch.setattr(ticklog_module, "BUCKETS", 64)
    sc, robots, obstacles = load_mobile(read_scenario_yaml(name), name)
    run = MobileRun(sc, robots, obstacles, name)
    peak = 0
    for _ in range(round(seconds / run.tick)):
        run.step()
        peak = max(peak, run.poses.log.held)
    run.peak_held = peak  # type: ignore[attr-defined]
    return run


def test_a_real_run_that_folds_reports_what_the_held_run_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held = _run("soccer_obstacles", 24.0, None)
    folded = _run("soccer_obstacles", 24.0, monkeypatch)
    assert not held.poses.folded and folded.poses.folded
    assert folded.peak_held <= 256 + 256  # type: ignore[attr-defined]
    a, b = held.results()["omni"], folded.results()["omni"]
    assert b["path_length"] == pytest.approx(a["path_length"], rel=1e-12)
    assert b["overshoot"] == a["overshoot"]
    for k, pct in a["overshoot_pct"].items():
        assert b["overshoot_pct"][k] == pytest.approx(pct, rel=1e-12, abs=1e-12)
    # the map's path: an envelope with the run's first and last pose and its extent
    xy_a, xy_b = held.poses.path(0), folded.poses.path(0)
    assert len(xy_b) < len(xy_a)
    assert np.array_equal(xy_b[0], xy_a[0]) and np.array_equal(xy_b[-1], xy_a[-1])
    assert np.array_equal(xy_b.min(axis=0), xy_a.min(axis=0))
    assert np.array_equal(xy_b.max(axis=0), xy_a.max(axis=0))
    t, r = folded.poses.response(0)
    assert len(t) == len(r) and np.all(np.diff(t) > 0)
    assert r[:, 0].max() == pytest.approx(held.poses.response(0)[1][:, 0].max(), rel=1e-12)


def test_a_folded_formation_summarises_as_the_held_one(monkeypatch: pytest.MonkeyPatch) -> None:
    held = _run("formation_soccer", 12.0, None)
    folded = _run("formation_soccer", 12.0, monkeypatch)
    fa, fb = held.formation, folded.formation
    assert fa is not None and fb is not None and fb.errors.folded and not fa.errors.folded
    names = [rb.name for rb in held.robots]
    a, b = fa.summary(names), fb.summary(names)
    assert b["error_over_time"]["t"] == a["error_over_time"]["t"]
    assert b["error_over_time"]["max_m"] == a["error_over_time"]["max_m"]
    assert np.allclose(b["error_over_time"]["mean_m"], a["error_over_time"]["mean_m"], atol=1e-4)
    assert b["error_m"]["max"] == a["error_m"]["max"]
    assert b["error_m"]["final"] == a["error_m"]["final"]
    assert b["error_m"]["mean"] == pytest.approx(a["error_m"]["mean"], rel=1e-12)
    for name, row in a["error_m"]["per_robot"].items():
        assert b["error_m"]["per_robot"][name]["mean"] == pytest.approx(row["mean"], rel=1e-12)
        assert b["error_m"]["per_robot"][name]["max"] == row["max"]
