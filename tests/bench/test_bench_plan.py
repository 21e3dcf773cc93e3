"""``robotsim bench plan``'s pieces: the dense oracle against a plain dense sampling,
the missed-collision count on a few scenes, the cost ratio's keys, the smooth timing
of replanned paths against the same paths rest to rest."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.bench.plan import _cost_ratio, _oracle_scenes, _replan_random, dense_oracle
from robotsim.clearance import paper_puma_end_link, run
from robotsim.clearance.random_scene import random_scene
from robotsim.model import load_robot


def test_dense_oracle_is_the_exact_sampled_minimum() -> None:
    scene, trajs = random_scene(13, load_robot("puma560"), (paper_puma_end_link(),), 3)
    oracle = dense_oracle(scene, trajs, step=1e-3)
    plain = run(scene, trajs, 1e-3)
    for name, p in plain.pairs.items():
        assert oracle[name] == pytest.approx(float(np.min(p.distance)), abs=1e-12)


def test_oracle_scenes_count_no_missed_collision() -> None:
    out = _oracle_scenes(3)
    assert out["pairs"] == 9 and out["missed_collisions"] == 0
    assert out["lower_bound_violations"] == 0


def test_cost_ratio_keys() -> None:
    out = _cost_ratio(1)
    assert out["certified_cost_ratio"] > 0 and out["sampled_cpu_s"] > 0


def test_random_replan_smooth_is_never_later_than_rest_to_rest() -> None:
    """On random 3-PUMA scenes the smooth timing saves time over the same paths rest
    to rest (it is never later by construction: the saving is >= 0)."""
    out = _replan_random(4)
    assert out["random_replan_problems"] >= out["random_replan_solved"] >= 1
    assert out["random_replan_saved_median_s"] >= 0
    assert (
        out["random_replan_added_time_median_s"]
        <= out["random_replan_rest_to_rest_added_time_median_s"]
    )
    assert sum(out["random_replan_timing"].values()) == out["random_replan_solved"]
