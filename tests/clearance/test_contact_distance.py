"""The paper's contact-distance curve (seed 004, Fig. 10) and robot paths (Fig. 9)."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.clearance import run
from robotsim.clearance.contact import contact_curves
from robotsim.clearance.report import end_paths, write_outputs
from robotsim.clearance.scenario import load_scenario
from robotsim.clearance.scene import PlacedRobot, Scene
from robotsim.clearance.trajectory import JointQuintic, Trajectory
from robotsim.clearance.volumes import LinkVolume
from robotsim.model import Sphere, load_robot
from robotsim.spatial import make_T
from tests.clearance.test_clearance_scenario_cli import SCENARIO


@pytest.fixture(scope="module")
def three():  # type: ignore[no-untyped-def]
    sc = load_scenario(SCENARIO)
    result = run(sc.scene, sc.trajectories, 0.02, t_end=sc.t_end)
    return sc, result, contact_curves(sc.scene, sc.trajectories, result.times)


def test_contact_distance_is_a_curve_meeting_the_distance_exactly_at_contact(three) -> None:
    sc, result, curves = three
    assert set(curves) == {"A-B", "A-C", "B-C"}
    for name, c in curves.items():
        d = result.pairs[name].distance
        # The centre distance reaches the contact distance exactly where the signed
        # distance reaches the threshold (0 here): same sign at every sample.
        assert np.array_equal(c.in_contact, d <= sc.scene.contact_threshold), name
        # It moves with the ellipsoids' orientations: not a constant line. Bounded by the
        # semi-axes: between 2 x 0.120 and 2 x 0.250 m.
        assert np.ptp(c.contact) > 0.005, name
        assert np.all((c.contact >= 0.24 - 1e-9) & (c.contact <= 0.50 + 1e-9)), name
    assert curves["A-B"].in_contact.any()
    assert not curves["A-C"].in_contact.any() and not curves["B-C"].in_contact.any()
    # Where A and B first touch, their centre distance equals the contact distance.
    t0 = result.pairs["A-B"].collision_intervals[0][0]
    at = contact_curves(sc.scene, sc.trajectories, np.array([t0]))["A-B"]
    assert at.centre[0] == pytest.approx(at.contact[0], abs=1e-6)


def test_spheres_touch_at_the_sum_of_their_radii() -> None:
    puma = load_robot("puma560")
    robots = []
    for name, x, r in (("A", 0.0, 0.1), ("B", 0.9, 0.17)):
        robots.append(PlacedRobot(name, puma, (LinkVolume("link3", Sphere(r)),),
                                  make_T(None, [x, 0.0, 0.0])))  # fmt: skip
    scene = Scene(tuple(robots), contact_threshold=0.01)
    q0, q1 = puma.zero(), puma.q_from({"joint1": 1.0, "joint2": 0.5})
    traj = {n: Trajectory([JointQuintic(q0, q1 if n == "A" else q0, 2.0)]) for n in "AB"}
    c = contact_curves(scene, traj, np.linspace(0, 2, 21))["A-B"]
    np.testing.assert_allclose(c.contact, 0.1 + 0.17 + 0.01, atol=1e-10)


def test_cli_outputs_paths_and_contact_csv(three, tmp_path) -> None:
    sc, result, curves = three
    paths = write_outputs(result, tmp_path, sc.scene, sc.trajectories)
    for key in ("paths_png", "png"):
        png = paths[key].read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    rows = np.loadtxt(paths["contact_csv"], delimiter=",", skiprows=1)
    header = paths["contact_csv"].read_text().splitlines()[0]
    assert header == "t,A-B:centre,A-B:contact,A-C:centre,A-C:contact,B-C:centre,B-C:contact"
    np.testing.assert_allclose(rows[:, 2], curves["A-B"].contact, atol=1e-8)
    # Fig. 9: A and B's wrist centres run on the scenario's straight lines in z = 0.8 m.
    ends = end_paths(sc.scene, sc.trajectories, result.times)
    np.testing.assert_allclose(ends["A"][[0, -1]], [[0.55, -0.35, 0.8], [0.67, 0.35, 0.8]],
                               atol=1e-6)  # fmt: skip
    np.testing.assert_allclose(ends["B"][:, 2], 0.8, atol=1e-6)
    assert np.ptp(ends["C"][:, 2]) > 0.1  # C leaves that plane
