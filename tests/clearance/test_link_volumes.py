"""Bounding volumes on links: the paper's PUMA ellipsoid, fitted volumes contain the
link geometry, and the fits themselves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robotsim.clearance import PlacedRobot, fit_link_volume, paper_puma_end_link
from robotsim.geometry import fit
from robotsim.model import load_robot
from robotsim.model.geometry import Box, Capsule, Ellipsoid, Mesh, Shape, Sphere

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"


def test_paper_end_link_ellipsoid_is_the_forearm_midpoint() -> None:
    puma = load_robot("puma560")
    vol = paper_puma_end_link()
    assert vol.link == "link3" and vol.shape == Ellipsoid((0.120, 0.125, 0.250))
    robot = PlacedRobot("A", puma, (vol,))
    q = np.radians([[10, -40, 30, 20, 10, 0], [0, 0, 0, 0, 0, 0]])
    T = robot.volume_poses(q)[:, 0]
    elbow = puma.fk(q, "link3")[:, :3, 3]
    wrist = puma.fk(q, "link4")[:, :3, 3]
    np.testing.assert_allclose(T[:, :3, 3], (elbow + wrist) / 2, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(wrist - elbow, axis=1), 0.4318, atol=1e-12)
    # the 250 mm semi-axis lies along the forearm
    axis = T[:, :3, 2]
    np.testing.assert_allclose(
        np.abs(np.einsum("ni,ni->n", axis, wrist - elbow)), 0.4318, atol=1e-12
    )


def inside(points: np.ndarray, vol, tol: float = 1e-9) -> bool:  # type: ignore[no-untyped-def]
    T = vol.T_link_volume
    local = (points - T[:3, 3]) @ T[:3, :3]
    g = vol.shape
    if isinstance(g, Ellipsoid):
        return bool(np.all(np.linalg.norm(local / g.radii, axis=1) <= 1 + tol))
    if isinstance(g, Sphere):
        return bool(np.all(np.linalg.norm(local, axis=1) <= g.radius + tol))
    if isinstance(g, Box):
        return bool(np.all(np.abs(local) <= np.array(g.size) / 2 + tol))
    z = np.clip(local[:, 2], -g.length / 2, g.length / 2)
    return bool(np.all(np.linalg.norm(local - np.c_[0 * z, 0 * z, z], axis=1) <= g.radius + tol))


@pytest.mark.parametrize("kind", ["ellipsoid", "sphere", "capsule", "box"])
def test_fitted_volumes_contain_every_puma_link(kind: str) -> None:
    puma = load_robot("puma560")
    for link in ("link2", "link3"):
        vol = fit_link_volume(puma, link, kind)
        pts = fit.shape_points(puma.link(link).visuals)
        assert inside(pts, vol)


def test_min_volume_ellipsoid_of_a_box_is_the_circumscribed_sphere_scaled() -> None:
    h = np.array([0.3, 0.2, 0.1])
    corners = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)]) * h
    c, _, radii = fit.min_volume_ellipsoid(corners + np.array([1, 2, 3]), tol=1e-9)
    np.testing.assert_allclose(c, [1, 2, 3], atol=1e-6)
    # the MVEE of a box has semi-axes sqrt(3) * half extents along the box axes
    np.testing.assert_allclose(np.sort(radii), np.sort(np.sqrt(3) * h), rtol=1e-4)


def test_fits_of_flat_and_single_point_sets_do_not_fail() -> None:
    square = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.0]])
    c, _, radii = fit.min_volume_ellipsoid(square)
    assert np.isclose(np.sort(radii)[0], 1e-6) and np.allclose(c, [0.5, 0.5, 0])
    _, _, radii = fit.min_volume_ellipsoid([[1.0, 2.0, 3.0]])
    assert np.all(radii > 0)


def test_fit_to_a_real_mesh_fixture_contains_its_vertices() -> None:
    meshes = sorted((FIXTURES).rglob("*.obj"))
    assert meshes, "the Panda OBJ fixtures are expected in ../shared/fixtures"
    shape = Shape(Mesh(meshes[0]))
    pts = fit.shape_points([shape])
    c, R, radii = fit.min_volume_ellipsoid(pts)
    local = (pts - c) @ R / radii
    assert np.linalg.norm(local, axis=1).max() <= 1 + 1e-9
    center, rho = fit.enclosing_sphere(pts)
    assert np.linalg.norm(pts - center, axis=1).max() <= rho + 1e-12


def test_primitive_surfaces_are_enclosed_not_just_their_samples() -> None:
    # the hull of the sampled points must contain the analytic sphere/capsule
    pts = fit.shape_points([Shape(Sphere(0.2)), Shape(Capsule(0.1, 0.3))])
    c, R, radii = fit.min_volume_ellipsoid(pts)
    u = np.random.default_rng(0).normal(size=(20000, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    surface = np.vstack([0.2 * u, 0.1 * u + [0, 0, 0.15], 0.1 * u - [0, 0, 0.15]])
    assert np.linalg.norm((surface - c) @ R / radii, axis=1).max() <= 1 + 1e-9


def test_volumes_given_in_the_model_are_used_unchanged() -> None:
    from robotsim.clearance import model_link_volumes
    from robotsim.errors import InputError
    from robotsim.model import RobotBuilder
    from robotsim.model.builder import xyz_rpy

    b = RobotBuilder("two")
    b.link("base", collisions=[Shape(Ellipsoid((0.1, 0.2, 0.3)), xyz_rpy([0, 0, 0.5]))])
    b.link("arm", collisions=[Shape(Mesh(Path("missing.obj")))])
    b.joint("j", "revolute", "base", "arm", origin=xyz_rpy([0, 0, 1]))
    model = b.build()
    (vol,) = model_link_volumes(model, "base")
    assert vol.shape == Ellipsoid((0.1, 0.2, 0.3)) and vol.T_link_volume[2, 3] == 0.5
    with pytest.raises(
        InputError,
        match=r"is a Mesh \(fit: model takes spheres, capsules, boxes and ellipsoids as they "
        r"are\); fit a volume to it instead: fit: capsule, ellipsoid, sphere or box",
    ):
        model_link_volumes(model, "arm")
