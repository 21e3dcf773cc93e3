"""Distances at one instant against the run's per-volume-pair curves (every volume pair
computed, no bound skipping any): the pair distances and each volume's nearest distance
are the same numbers, for three robots with mixed shapes (box, capsule, ellipsoid)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robotsim.clearance import PlacedRobot, Scene, instant_distances, run
from robotsim.clearance.scenario import load_scenario
from robotsim.spatial import make_T, rot_z

TOL = 1e-9  # m: same kernel, same inputs; only the batch differs


@pytest.fixture(scope="module")
def three_fitted():
    """The fitted two-PUMA scenario and a third arm, a copy of A beside B."""
    loaded = load_scenario("two_puma_fitted_volumes")
    a, b = loaded.scene.robots
    c = PlacedRobot("C", a.model, a.volumes, make_T(rot_z(-math.pi / 2), [0.65, 0.9, 0.0]))
    trajs = dict(loaded.trajectories, C=loaded.trajectories["A"])
    return Scene((a, b, c), loaded.scene.contact_threshold), trajs, loaded.dt


def reference(res, robots, k):
    """Each volume's nearest distance at sample ``k``, from the run's volume-pair curves."""
    out = {r.name: np.full(len(r.volumes), np.inf) for r in robots}
    for name, pair in res.pairs.items():
        ra, rb = (next(r for r in robots if r.name == n) for n in name.split("-"))
        for u in range(len(ra.volumes)):
            for v in range(len(rb.volumes)):
                d = pair.links[f"{ra.volume_label(u)}-{rb.volume_label(v)}"][k]
                out[ra.name][u] = min(out[ra.name][u], d)
                out[rb.name][v] = min(out[rb.name][v], d)
    return out


def test_instant_distances_equal_the_runs_volume_pair_curves(three_fitted):
    scene, trajs, dt = three_fitted
    res = run(scene, trajs, 4 * dt, link_pairs=True)
    assert set(res.pairs) == {"A-B", "A-C", "B-C"}
    touching = 0
    for k in range(len(res.times)):
        t = float(res.times[k])
        qs = {n: tr.q(np.array([t]))[0] for n, tr in trajs.items()}
        now = instant_distances(scene.robots, qs)
        for name, pair in res.pairs.items():
            assert now.pairs[name] == pytest.approx(pair.distance[k], abs=TOL), (name, t)
        want = reference(res, scene.robots, k)
        for r in scene.robots:
            np.testing.assert_allclose(now.volumes[r.name], want[r.name], atol=TOL, rtol=0)
            assert not now.volumes[r.name].flags.writeable
        touching += int(np.sum(now.volumes["A"] <= scene.contact_threshold))
    assert touching > 0  # the samples include contacts


def test_a_lone_robot_has_no_distance(three_fitted):
    scene, trajs, _ = three_fitted
    a = scene.robots[0]
    now = instant_distances((a,), {"A": trajs["A"].q(np.array([0.0]))[0]})
    assert now.pairs == {} and np.all(np.isinf(now.volumes["A"]))


def test_a_pair_farther_than_a_third_robot_still_gets_its_distance(three_fitted):
    """A and B each have C nearer than each other: their own pair is still exact (the
    bound that skips volume pairs is taken per other robot, not over all of them)."""
    from robotsim.clearance import LinkVolume
    from robotsim.model.geometry import Sphere
    from robotsim.spatial import trans

    model = three_fitted[0].robots[0].model
    ball = (LinkVolume(model.link_names[0], Sphere(0.1)),)
    robots = tuple(PlacedRobot(n, model, ball, trans([x, 0.0, 0.0]))
                   for n, x in (("A", 0.0), ("C", 1.0), ("B", 2.0)))  # fmt: skip
    now = instant_distances(robots, {r.name: np.zeros(model.nq) for r in robots})
    assert now.pairs == pytest.approx({"A-C": 0.8, "A-B": 1.8, "C-B": 0.8}, abs=TOL)
    np.testing.assert_allclose(now.volumes["A"], [0.8], atol=TOL)
