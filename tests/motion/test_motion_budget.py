"""``robotsim motion play`` stays inside what the memory budget counts (issue 17): the
peak of a playback with its measures, run store rows and trajectory file grows per tick
by no more than :meth:`Timeline.bytes_per_tick`, the figure the budget check multiplies
by the ticks (744 B for the humanoid; measured here about 320-360 B).

The whole ``motion play`` also runs the speed-method comparison; it now plays before
the main playback instead of beside it. Measured over 174,168 ticks (``--tick 2e-4``)
the traced peak grew 513 B per tick, against 1,424 B before (the comparison beside
the main playback, the sole poses of the whole run, per-tick Python lists): a run the
check let through could take twice the budget. That measurement takes minutes, so the
test measures the main playback only."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from robotsim.motion import report
from robotsim.motion.playback import play
from robotsim.motion.report import load_for_playback, record_playback, save_trajectory
from robotsim.motion.support import ContactSettings
from robotsim.motion.timeline import compile_program


def test_the_playback_peak_per_tick_is_within_the_budgets_estimate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # run store rows go in blocks of 512 ticks, so the blocks' cost is the same in both
    # runs measured and only what grows with the run's length is left in the difference
    monkeypatch.setattr(report, "SIGNAL_CHUNK", 512)
    program, model, profile = load_for_playback("walk_forward", None)
    tl = compile_program(program, model, "walk_forward")
    settings = ContactSettings(detection="exact")

    def peak(tick: float, out: Path) -> tuple[int, int]:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        res = play(model, tl, profile.soles, tick=tick, settings=settings)
        res.summary()
        out.mkdir()
        record_playback(res, out / "runs.sqlite", program.name)
        save_trajectory(res, out / "trajectory.npz")
        return res.ticks, tracemalloc.get_traced_memory()[1] - base

    peak(0.05, tmp_path / "warm")  # imports and caches
    tracemalloc.start()
    try:
        n_small, peak_small = peak(2.5e-2, tmp_path / "a")  # 1,394 ticks
        n_large, peak_large = peak(8e-3, tmp_path / "b")  # 4,412 ticks
    finally:
        tracemalloc.stop()
    assert n_large > 3 * n_small > 3 * 512
    grown = (peak_large - peak_small) / (n_large - n_small)
    per_tick = tl.bytes_per_tick()
    assert grown <= per_tick, f"{grown:.0f} B per tick at the peak, the budget counts {per_tick}"
