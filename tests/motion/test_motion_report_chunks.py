"""The per-link arrays of a playback are formed in chunks (issue 17, long outputs):
the CoM, ``trajectory.npz`` and the run store's rows are those of the whole-run
computation bit for bit, and writing the trajectory of a long playback peaks far
below its link-pose array (tracemalloc)."""

from __future__ import annotations

import os
import sqlite3
import tracemalloc
from pathlib import Path

import numpy as np

from robotsim.model import load_robot
from robotsim.motion import playback
from robotsim.motion.balance import com_world
from robotsim.motion.playback import play
from robotsim.motion.profile import motion_profile
from robotsim.motion.report import record_playback, save_trajectory
from robotsim.motion.schema import load_program
from robotsim.motion.timeline import compile_program
from robotsim.spatial import R_to_quat

os.environ.setdefault("MUJOCO_GL", "egl")


def _walk(tick: float) -> playback.PlaybackResult:
    model, profile = motion_profile(load_robot("humanoid17"))
    tl = compile_program(load_program("walk_forward"), model, "walk_forward")
    return play(model, tl, profile.soles, "fixed_tick", tick=tick)


def test_chunked_link_arrays_equal_the_whole_run(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    res = _walk(0.01)
    P = res.T_world_root[:, None] @ res.model.fk_all(res.samples.q)  # the whole run at once
    monkeypatch.setattr(playback, "POSE_CHUNK", 7)
    assert res.ticks + 1 > 10 * 7
    assert np.array_equal(res.com, com_world(res.model, P))
    save_trajectory(res, tmp_path / "trajectory.npz")
    with np.load(tmp_path / "trajectory.npz") as z:
        assert sorted(z.files) == sorted(["t", "q", "joint_names", "link_names", "link_pos",
                                          "link_quat", "T_world_root", "support", "foot_names",
                                          "sole_heights"])  # fmt: skip
        assert np.array_equal(z["link_pos"], P[..., :3, 3])
        assert np.array_equal(z["link_quat"], R_to_quat(P[..., :3, :3]))
        assert np.array_equal(z["q"], res.samples.q) and np.array_equal(z["t"], res.samples.t)
        assert list(z["link_names"]) == list(res.model.link_names)
        assert np.array_equal(z["sole_heights"], res.heights)
    monkeypatch.setattr("robotsim.motion.report.SIGNAL_CHUNK", 50)
    record_playback(res, tmp_path / "runs.sqlite", "walk")
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        table = next(t for t in ("samples", "signals", "signal_values") if t in tables)
        rows = db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    names = len(res.model.joint_names) + 6 + 1 + len(res.foot_names)
    replay = 7 + len(res.model.joint_names)  # base.x..base.qz and q.<joint> (docs/export.md)
    assert rows in (res.ticks + 1, (res.ticks + 1) * (names + replay))


def test_writing_a_long_trajectory_peaks_far_below_its_link_poses(tmp_path: Path) -> None:
    res = _walk(0.008)
    save_trajectory(_walk(0.05), tmp_path / "warm.npz")
    whole = (res.ticks + 1) * len(res.model.link_names) * 16 * 8  # (N+1, L, 4, 4) float64
    assert res.ticks + 1 > 4 * playback.POSE_CHUNK
    tracemalloc.start()
    try:
        save_trajectory(res, tmp_path / "trajectory.npz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < whole / 2, (peak, whole)  # about 3.6 MB at any length (one chunk)
    with np.load(tmp_path / "trajectory.npz") as z:
        assert z["link_pos"].shape == (res.ticks + 1, len(res.model.link_names), 3)
