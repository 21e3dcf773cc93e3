"""``robotsim bench export``: the read-backs behind ``replay_max_pose_error_m`` find
an exact export exact, and a wrong one wrong."""

from __future__ import annotations

import dataclasses

import numpy as np

from robotsim.bench.export import _mcap_poses, _pose_error, _rerun_poses
from robotsim.cli import main
from robotsim.export import export_file, load_replay
from robotsim.export.rerun_file import entity_path
from robotsim.recording import RunStore


def test_pose_error_of_mcap_and_rerun_exports(tmp_path) -> None:
    assert main(["run", "soccer_obstacles", "--out", str(tmp_path), "--duration", "1"]) == 0
    with RunStore(tmp_path) as store:
        replay = load_replay(store, "last")
        mcap = export_file(store, "last", "mcap", tmp_path / "r.mcap")
        rrd = export_file(store, "last", "rerun", tmp_path / "r.rrd")
    assert _pose_error(replay, _mcap_poses(mcap), lambda n: n) < 1e-12
    rerun = _rerun_poses(rrd)
    err = _pose_error(replay, rerun, lambda n: "/" + entity_path(n))
    assert 0 < err < 1e-6  # float32: not zero, but under a micrometre on the field
    # the same check on a replay whose robot is 1 mm off says so
    omni = replay.track("omni")
    moved = omni.T_world.copy()
    moved[:, :, 0, 3] += 1e-3
    shifted = dataclasses.replace(replay, tracks=(dataclasses.replace(omni, T_world=moved),))
    assert abs(_pose_error(shifted, _mcap_poses(mcap), lambda n: n) - 1e-3) < 1e-9
    assert np.isfinite(err)
