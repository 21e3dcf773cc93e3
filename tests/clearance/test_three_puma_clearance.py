"""The seed paper's three-robot experiment and interval refinement."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.clearance import run
from robotsim.clearance.scenario import load_scenario
from robotsim.shipped import shipped_dir

SCENARIO = shipped_dir("scenario") / "three_puma_clearance.yaml"


@pytest.fixture(scope="module")
def scenario():  # type: ignore[no-untyped-def]
    return load_scenario(SCENARIO)


@pytest.fixture(scope="module")
def result(scenario):  # type: ignore[no-untyped-def]
    return run(scenario.scene, scenario.trajectories, scenario.dt)


def test_only_a_and_b_collide(result) -> None:  # type: ignore[no-untyped-def]
    ab, ac, bc = result.pairs["A-B"], result.pairs["A-C"], result.pairs["B-C"]
    assert len(ab.collision_intervals) == 1
    assert ac.collision_intervals == () and bc.collision_intervals == ()
    # robust margins, not just the sign
    assert ab.min_distance < -0.05
    assert ac.min_distance > 0.3 and bc.min_distance > 0.2


def test_curve_shapes_match_the_paper(result) -> None:  # type: ignore[no-untyped-def]
    t = result.times
    ab, ac, bc = result.pairs["A-B"], result.pairs["A-C"], result.pairs["B-C"]
    for p in (ab, ac):  # falls then rises: an interior minimum well below both ends
        assert 0.25 * t[-1] < p.t_min < 0.75 * t[-1]
        assert p.distance[0] - p.min_distance > 0.2 and p.distance[-1] - p.min_distance > 0.2
        k = int(np.argmin(p.distance))
        assert np.all(np.diff(p.distance[: k + 1]) <= 1e-12)
        assert np.all(np.diff(p.distance[k:]) >= -1e-12)
    assert np.all(np.diff(bc.distance) <= 1e-12)  # B-C only approach
    assert bc.distance[0] - bc.distance[-1] > 0.4
    t0, t1 = ab.collision_intervals[0]
    assert t0 < ab.t_min < t1
    # the interval ends are contact times: distance = threshold there
    assert ab.distance[np.searchsorted(t, t0) - 1] > 0 and ab.distance[np.searchsorted(t, t1)] > 0


def test_interval_ends_do_not_depend_on_the_step(scenario, result) -> None:  # type: ignore[no-untyped-def]
    ref = np.array(result.pairs["A-B"].collision_intervals)
    for dt in (0.0137, 0.05, 0.1):
        other = run(scenario.scene, scenario.trajectories, dt)
        got = np.array(other.pairs["A-B"].collision_intervals)
        np.testing.assert_allclose(got, ref, atol=2 * result.time_tol)
        assert other.pairs["A-B"].min_distance == pytest.approx(ab_min(result), abs=1e-6)


def ab_min(result) -> float:  # type: ignore[no-untyped-def]
    return result.pairs["A-B"].min_distance


def test_a_contact_shorter_than_the_step_is_found(scenario, result) -> None:  # type: ignore[no-untyped-def]
    # a threshold just above A-C's minimum: contact lasts a few ms, far less than dt
    from robotsim.clearance.scene import Scene

    thr = result.pairs["A-C"].min_distance + 1e-5
    scene = Scene(scenario.scene.robots, contact_threshold=thr)
    fine = run(scene, scenario.trajectories, 0.0005).pairs["A-C"].collision_intervals
    coarse = run(scene, scenario.trajectories, 0.1).pairs["A-C"].collision_intervals
    assert len(fine) == 1 and len(coarse) == 1
    assert 0 < fine[0][1] - fine[0][0] < 0.1
    np.testing.assert_allclose(coarse, fine, atol=2e-6)


def test_link_pair_curves_on_request(scenario) -> None:  # type: ignore[no-untyped-def]
    res = run(scenario.scene, scenario.trajectories, 0.05, link_pairs=True)
    links = res.pairs["A-B"].links
    assert links is not None and list(links) == ["link3-link3"]
    np.testing.assert_allclose(links["link3-link3"], res.pairs["A-B"].distance)


def test_common_rigid_motion_of_the_world_changes_nothing(scenario, result) -> None:  # type: ignore[no-untyped-def]
    from robotsim.clearance.scene import PlacedRobot, Scene
    from robotsim.spatial import make_T, rpy_to_R

    W = make_T(rpy_to_R([0.3, -0.2, 1.0]), [2.0, -1.0, 0.5])
    moved = Scene(
        tuple(
            PlacedRobot(r.name, r.model, r.volumes, W @ r.T_world_base)
            for r in scenario.scene.robots
        )
    )
    res = run(moved, scenario.trajectories, scenario.dt)
    for name, p in result.pairs.items():
        np.testing.assert_allclose(res.pairs[name].distance, p.distance, atol=1e-9)


def test_paper_method_same_contacts_larger_gaps(scenario, result) -> None:  # type: ignore[no-untyped-def]
    paper = run(scenario.scene, scenario.trajectories, scenario.dt, method="paper")
    for name, p in result.pairs.items():
        q = paper.pairs[name]
        sep = p.distance > 1e-9
        # separated: the paper's value is a distance between two surface points, never less
        assert np.all(q.distance[sep] >= p.distance[sep] - 1e-9)
        np.testing.assert_allclose(q.collision_intervals, p.collision_intervals, atol=1e-5)
    assert paper.pairs["A-C"].min_distance - result.pairs["A-C"].min_distance > 0.03


def test_fitted_whole_arm_volumes_branch_and_bound_is_exact() -> None:
    from robotsim.geometry import shape_distance

    sc = load_scenario(SCENARIO.parent / "two_puma_fitted_volumes.yaml")
    res = run(sc.scene, sc.trajectories, 0.05, link_pairs=True)
    pair = res.pairs["A-B"]
    curves = np.array(list(pair.links.values()))
    assert len(pair.links) == 25
    np.testing.assert_allclose(curves.min(axis=0), pair.distance, atol=1e-12)
    # independent check at a few times: every volume pair by shape_distance
    A, B = sc.scene.robots
    for k in (0, 20, 35, 50):
        t = res.times[k]
        Pa = A.volume_poses(sc.trajectories["A"].q(t))
        Pb = B.volume_poses(sc.trajectories["B"].q(t))
        d = min(
            shape_distance(va.shape, Pa[i], vb.shape, Pb[j]).distance
            for i, va in enumerate(A.volumes)
            for j, vb in enumerate(B.volumes)
        )
        assert pair.distance[k] == pytest.approx(float(d), abs=1e-12)
    assert len(pair.collision_intervals) == 2
