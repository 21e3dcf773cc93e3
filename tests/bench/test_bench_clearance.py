"""``robotsim bench clearance``'s figures: the keys the performance notes quote."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.bench.clearance import _ellipsoids


def test_ellipsoid_figures_include_wall_and_cpu_throughput() -> None:
    out = _ellipsoids(quick=True)
    for key in (
        "ellipsoid_pairs_per_s",
        "ellipsoid_pairs_per_s_1thread",
        "ellipsoid_pairs_per_s_1thread_cpu",
        "ellipsoid_separated_us",
        "ellipsoid_overlapping_us",
    ):
        assert out[key] > 0, key
    assert out["ellipsoid_overlapping_fraction"] == 0.5


def test_core_ellipsoid_figures_per_kind_and_side() -> None:
    from robotsim.bench.clearance import _core

    out = _core(quick=True)
    for kind in ("capsule", "box"):
        for side in ("separated", "overlapping"):
            assert out[f"{kind}_ellipsoid_{side}_us"] > 0, (kind, side)


def test_core_pairs_overlap_and_separate_as_documented() -> None:
    from robotsim.bench.clearance import core_pairs
    from robotsim.geometry.core_ellipsoid import box_ellipsoid, capsule_ellipsoid

    for kind, fn in (("capsule", capsule_ellipsoid), ("box", box_ellipsoid)):
        d = fn(*core_pairs(kind, 200))[0]
        assert np.all(d[0::2] < 0) and np.all(d[1::2] > 0), kind


@pytest.mark.slow
def test_fitted_volumes_figures() -> None:
    from robotsim.bench.clearance import _fitted

    out = _fitted(repeats=1, warm_up=False)
    for key in (
        "fitted_volumes_s",
        "fitted_volumes_cpu_s",
        "fitted_volumes_cli_s",
        "fitted_volumes_cli_cpu_s",
    ):
        assert out[key] > 0, key
