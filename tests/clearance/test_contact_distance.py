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
from robotsim.shipped import shipped_dir
from robotsim.spatial import make_T

SCENARIO = shipped_dir("scenario") / "three_puma_clearance.yaml"


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


# ------------------------------------------------------------------ volumes: paper
def test_paper_volumes_on_every_link_of_the_puma() -> None:
    """The paper's construction gives the column, the upper arm and the forearm (its
    Fig. 4); the forearm's is the paper's end-link ellipsoid (250/120/125 mm)."""
    from robotsim.clearance.paper_volumes import paper_link_volumes
    from robotsim.clearance.volumes import paper_puma_end_link

    puma = load_robot("puma560")
    vols = {v.link: v for v in paper_link_volumes(puma)}
    assert list(vols) == ["base_link", "link2", "link3"]
    fore, paper = vols["link3"], paper_puma_end_link()
    np.testing.assert_allclose(fore.shape.radii, paper.shape.radii, rtol=2e-3)
    # centre within a3 / 2 = 1 cm of the paper's link midpoint, long axis along z3
    assert np.linalg.norm(fore.T_link_volume[:3, 3] - paper.T_link_volume[:3, 3]) < 0.0102
    assert fore.T_link_volume[2, 2] > 0.99
    # column: from the floor to the shoulder (d1 = 0.672 m), long semi-axis 0.389 m
    col = vols["base_link"]
    np.testing.assert_allclose(col.T_link_volume[:3, 3], [0, 0, 0.67183 / 2])
    assert col.shape.radii[2] == pytest.approx(0.250 * 0.67183 / 0.4318)
    # every segment's ends lie inside its ellipsoid (the ellipsoid encloses its link)
    for v in vols.values():
        z = v.T_link_volume[:3, 2] * v.shape.radii[2] / 1.158
        for end in (v.T_link_volume[:3, 3] + z, v.T_link_volume[:3, 3] - z):
            local = v.T_link_volume[:3, :3].T @ (end - v.T_link_volume[:3, 3])
            assert np.sum((local / np.array(v.shape.radii)) ** 2) <= 1.0


def test_three_pumas_with_paper_volumes_only_a_b_collide(tmp_path, capsys) -> None:
    import json

    import yaml

    from robotsim.cli import main

    data = yaml.safe_load(SCENARIO.read_text())
    for r in data["robots"]:
        r["volumes"] = "paper"
    p = tmp_path / "paper.yaml"
    p.write_text(yaml.safe_dump(data))
    out = tmp_path / "out"
    assert main(["clearance", str(p), "--out", str(out), "--dt", "0.02", "--link-pairs",
                 "--json"]) == 0  # fmt: skip
    pairs = json.loads(capsys.readouterr().out)["pairs"]
    assert pairs["A-B"]["collision_intervals"] and pairs["A-B"]["closest"] == ["link3", "link3"]
    assert not pairs["A-C"]["collision_intervals"] and not pairs["B-C"]["collision_intervals"]
    # per link pair: 3 x 3 volume pairs per robot pair, only the forearms of A and B touch
    ab = pairs["A-B"]["link_pairs"]
    assert len(ab) == 9 and ab["link3-link3"]["min_distance"] < 0
    assert all(v["min_distance"] > 0 for k, v in ab.items() if k != "link3-link3")
    vols = json.loads((out / "volumes.json").read_text())["robots"]
    assert [v["link"] for v in vols["C"]] == ["base_link", "link2", "link3"]
    assert vols["A"][2]["type"] == "ellipsoid" and len(vols["A"][2]["radii"]) == 3
    saved = json.loads((out / "intervals.json").read_text())
    assert saved["pairs"]["B-C"]["link_pairs"] == pairs["B-C"]["link_pairs"]
