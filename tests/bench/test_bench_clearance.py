"""``robotsim bench clearance``'s ellipsoid figures: the keys the performance notes quote."""

from __future__ import annotations

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
