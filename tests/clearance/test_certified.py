"""Certified clearance between samples (``clearance/certified.py``): the point-speed
bound against finite differences of the volumes' support points, the lower bound
against a dense oracle (1e-4 s sampling), a contact between two samples that the
sampled check misses, and the CLI's ``--certified``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robotsim.clearance import (
    JointQuintic,
    PlacedRobot,
    Scene,
    Trajectory,
    fit_link_volume,
    paper_puma_end_link,
    run,
)
from robotsim.clearance.certified import Motion, certified_run, interval_lower_bound
from robotsim.clearance.random_scene import random_scene
from robotsim.clearance.scenario import load_scenario, moving_links
from robotsim.clearance.trajectory import Hold
from robotsim.cli import main
from robotsim.geometry import support as sp
from robotsim.geometry.sphere_points import fibonacci_sphere
from robotsim.model import load_robot
from tests.paths import FIXTURES

PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"

# an MJCF arm: hinges about tilted axes, a body turned by euler angles, a slide joint
MJCF_ARM = """<mujoco model="tilted_arm">
  <compiler angle="radian"/>
  <worldbody>
    <body name="base" pos="0 0 0.1">
      <geom type="cylinder" size="0.05 0.05"/>
      <body name="l1" pos="0 0 0.1">
        <joint name="j1" type="hinge" axis="0 0 1" range="-3 3"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <body name="l2" pos="0.3 0 0" euler="0.3 0 0">
          <joint name="j2" type="hinge" axis="0 1 1" range="-2 2"/>
          <geom type="capsule" fromto="0 0 0 0.25 0 0.05" size="0.03"/>
          <body name="l3" pos="0.25 0 0.05">
            <joint name="j3" type="slide" axis="1 0 0" range="0 0.2"/>
            <geom type="box" size="0.05 0.03 0.02"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _support_points(motion: Motion, t: np.ndarray, dirs: np.ndarray) -> np.ndarray:
    """Support points ``(T, nv, K, 3)`` of every volume in the world directions ``dirs``:
    points of the volumes' surfaces that follow the volume rigidly."""
    P, _ = motion.at(t)
    kinds, sizes = motion.robot.packed
    out = []
    for v, kind in enumerate(kinds):
        R, c = P[:, v, :3, :3], P[:, v, :3, 3]
        # directions fixed in the volume frame, so each row is one material point
        n = np.einsum("tij,kj->tki", R, dirs)
        pts = sp.support_point(
            kind, np.broadcast_to(sizes[v], (*n.shape[:2], 3)), R[:, None], c[:, None], n
        )
        out.append(pts)
    return np.stack(out, axis=1)


@pytest.mark.parametrize("arm", ["puma", "panda", "mjcf"])
def test_point_speed_bound_holds(arm: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Every volume point moves no faster than the bound, on random joint motions of
    a PUMA (paper forearm + fitted upper arm), the Panda (capsules on every moving
    link: 8 revolute and the prismatic finger joints, one of them a mimic) and an MJCF
    arm (tilted hinge axes, a slide joint; fitted ellipsoids)."""
    if arm == "puma":
        model = load_robot("puma560")
        vols = (paper_puma_end_link(), fit_link_volume(model, "link2"))
    elif arm == "panda":
        model = load_robot(PANDA)
        vols = tuple(fit_link_volume(model, lk, "capsule") for lk in moving_links(model))
    else:
        (tmp_path / "arm.xml").write_text(MJCF_ARM)
        model = load_robot(tmp_path / "arm.xml")
        vols = tuple(fit_link_volume(model, lk, "ellipsoid") for lk in moving_links(model))
    rng = np.random.default_rng(1)
    dirs = fibonacci_sphere(24)
    lo, hi = np.maximum(model.lower, -2.5), np.minimum(model.upper, 2.5)
    worst = 0.0
    for _ in range(3):
        tr = Trajectory((JointQuintic(rng.uniform(lo, hi), rng.uniform(lo, hi), 1.0),))
        m = Motion(PlacedRobot("X", model, vols), tr)
        t0 = np.sort(rng.uniform(0, 0.95, 40))
        h = 0.01
        t1 = t0 + h
        _, L0 = m.at(t0)
        _, L1 = m.at(t1)
        bound = m.speed(t0, t1, L0, L1)
        # the fastest point over [t0, t1]: finite differences on a fine grid
        fine = t0[:, None] + np.linspace(0, h, 11)[None, :]
        pts = _support_points(m, fine.ravel(), dirs).reshape(40, 11, len(vols), len(dirs), 3)
        speed = np.linalg.norm(np.diff(pts, axis=1), axis=-1).max(axis=(1, 2, 3)) / (h / 10)
        assert np.all(speed <= bound * (1 + 1e-9)), (speed / bound).max()
        worst = max(worst, float((speed / bound).max()))
    assert worst > 0.2  # the bound is not vacuous (within a factor of 5 of the truth)


def test_interval_lower_bound_formula() -> None:
    # cones meet inside: (1 + 1 - 3) / 2; they do not: the smaller end
    np.testing.assert_allclose(
        interval_lower_bound(np.array([1.0, 1.0]), np.array([1.0, 0.2]), np.array([3.0, 0.5])),
        [-0.5, 0.2],
    )


def _short_contact() -> tuple[Scene, dict[str, Trajectory]]:
    """A sweeps its forearm through B's in 1.2 s; B holds. Sampled every 2 s (the run's
    two ends) the distances are 0.70 and 0.17 m; the contact lasts 0.24 s between."""
    m = load_robot("puma560")
    v = (paper_puma_end_link(),)
    TB = np.eye(4)
    TB[0, 3] = 1.25
    TB[:2, :2] = [[-1, 0], [0, -1]]
    qa0, qa1 = np.radians([-80, -20, -40, 0, 0, 0]), np.radians([70, -20, -40, 0, 0, 0])
    qb = np.radians([0, -20, -40, 0, 0, 0])
    scene = Scene((PlacedRobot("A", m, v), PlacedRobot("B", m, v, TB)))
    trajs = {
        "A": Trajectory((JointQuintic(qa0, qa1, 1.2), Hold(qa1, 0.8))),
        "B": Trajectory((Hold(qb, 2.0),)),
    }
    return scene, trajs


def test_contact_between_samples_is_found() -> None:
    scene, trajs = _short_contact()
    oracle = run(scene, trajs, 1e-4).pairs["A-B"]
    ((o0, o1),) = oracle.collision_intervals
    sampled = run(scene, trajs, 2.0).pairs["A-B"]
    assert sampled.collision_intervals == ()  # the sampled check misses it (its zoomed min < 0)
    cert = certified_run(scene, trajs, 2.0)
    c = cert.pairs["A-B"]
    assert cert.certified and not cert.collision_free and not c.clear
    ((c0, c1),) = c.collision_intervals
    assert c0 == pytest.approx(o0, abs=2e-4) and c1 == pytest.approx(o1, abs=2e-4)
    assert c.min_distance_lower_bound <= oracle.min_distance <= c.min_distance
    assert c.min_distance - c.min_distance_lower_bound <= 1e-3 + 1e-9


def test_no_missed_collision_against_dense_oracle() -> None:
    """Random 3-PUMA scenes checked every 1.0 s: every pair the 1e-4 s oracle sees
    collide has a certified interval over the oracle's, and every lower bound is below
    the oracle's minimum; a pair the oracle sees clear gets no interval."""
    model = load_robot("puma560")
    vols = (paper_puma_end_link(),)
    colliding = 0
    for seed in (1, 13, 21, 27):  # 13, 27: the sampled check at 1 s misses; 21: 8 mm apart
        scene, trajs = random_scene(seed, model, vols, 3)
        oracle = run(scene, trajs, 1e-4)
        cert = certified_run(scene, trajs, 1.0)
        assert cert.certified
        for name, o in oracle.pairs.items():
            c = cert.pairs[name]
            assert c.min_distance_lower_bound <= float(np.min(o.distance)) + 1e-9
            for a, b in o.collision_intervals:
                assert any(x <= a + 1e-3 and b - 1e-3 <= y for x, y in c.collision_intervals)
            if not o.collision_intervals:
                assert c.collision_intervals == () and c.clear
            colliding += bool(o.collision_intervals)
    assert colliding >= 3


def test_three_puma_certified_numbers() -> None:
    sc = load_scenario("three_puma_clearance")
    res = certified_run(sc.scene, sc.trajectories, sc.dt)
    ab, ac, bc = (res.pairs[k] for k in ("A-B", "A-C", "B-C"))
    assert res.certified and not res.collision_free  # proved: A and B collide
    assert ab.min_distance == pytest.approx(-0.1131, abs=1e-4)
    ((a, b),) = ab.collision_intervals
    assert a == pytest.approx(1.732, abs=1e-3) and b == pytest.approx(2.412, abs=1e-3)
    assert ab.min_distance_lower_bound <= ab.min_distance and not ab.clear
    assert ac.clear and 0.4778 - 1e-3 <= ac.min_distance_lower_bound <= 0.4789
    assert bc.clear and bc.min_distance_lower_bound == pytest.approx(0.3516, abs=1e-3)
    # above A-C's minimum the same check says NO
    high = certified_run(sc.scene, sc.trajectories, sc.dt, level=0.5, pairs=[("A", "C")])
    assert not high.pairs["A-C"].clear and high.pairs["A-C"].collision_intervals


def test_cli_certified_json(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(
        ["clearance", "three_puma_clearance", "--certified", "--json", "--out", str(tmp_path)]
    )
    assert code in (0, None)
    out = json.loads(capsys.readouterr().out)
    assert out["certified"] is True and out["collision_free"] is False
    ab = out["pairs"]["A-B"]
    assert ab["min_distance_lower_bound_m"] <= ab["min_distance"] < 0
    assert ab["collision_intervals"][0][0] == pytest.approx(1.732, abs=1e-3)
    assert out["pairs"]["A-C"]["certified_clear"] is True
    saved = json.loads((tmp_path / "certified.json").read_text())
    assert saved["pairs"]["A-B"]["speed_bound"] == "exact"


def test_cli_certified_refuses_paper_method(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(
        [
            "clearance",
            "three_puma_clearance",
            "--certified",
            "--method",
            "paper",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 2
    assert "--certified" in capsys.readouterr().err
