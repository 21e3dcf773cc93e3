"""Mass properties: closed forms against trimesh's surface integration (Mirtich's
method, an independent computation), the parallel-axis combination, and the
plausibility test saying yes to real inertias and no to placeholders."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Sphere
from robotsim.model.robot import Inertial
from robotsim.objects.mass import (
    combine,
    judge_inertial,
    mesh_inertial,
    primitive_inertial,
    scaled_inertial,
)
from robotsim.spatial import make_T


def _fine(g) -> trimesh.Trimesh:  # type: ignore[no-untyped-def]
    if isinstance(g, Box):
        return trimesh.creation.box(extents=g.size)
    if isinstance(g, Sphere):
        return trimesh.creation.icosphere(subdivisions=6, radius=g.radius)
    if isinstance(g, Ellipsoid):
        m = trimesh.creation.icosphere(subdivisions=6, radius=1.0)
        m.vertices = m.vertices * np.asarray(g.radii)
        return m
    if isinstance(g, Cylinder):
        return trimesh.creation.cylinder(radius=g.radius, height=g.length, sections=512)
    return trimesh.creation.capsule(height=g.length, radius=g.radius, count=[128, 64])


@pytest.mark.parametrize(
    "g",
    [
        Box((0.05, 0.03, 0.08)),
        Sphere(0.03),
        Ellipsoid((0.03, 0.02, 0.05)),
        Cylinder(0.03, 0.1),
        Capsule(0.02, 0.06),
    ],
    ids=lambda g: type(g).__name__,
)
def test_primitives_match_surface_integration(g) -> None:  # type: ignore[no-untyped-def]
    exact = primitive_inertial(g, 700.0)
    m = _fine(g)
    ref = mesh_inertial(np.asarray(m.vertices), np.asarray(m.faces), 700.0)
    assert ref is not None
    # tessellations fall short of the curved solid by under 0.1 % at these resolutions
    assert exact.mass == pytest.approx(ref.mass, rel=2e-3)
    np.testing.assert_allclose(np.diag(exact.inertia), np.diag(ref.inertia), rtol=4e-3)
    np.testing.assert_allclose(ref.com, 0.0, atol=1e-9)


def test_open_surface_has_no_solid() -> None:
    m = trimesh.creation.box(extents=(0.1, 0.1, 0.1))
    assert mesh_inertial(np.asarray(m.vertices), np.asarray(m.faces[:-2]), 1000.0) is None


def test_holes_are_capped_to_the_closed_solid() -> None:
    from robotsim.objects.mass import capped_inertial

    m = trimesh.creation.cylinder(radius=0.04, height=0.1, sections=32)
    top = np.isclose(m.triangles_center[:, 2], 0.05)  # the lid: an open cup
    cup = capped_inertial(np.asarray(m.vertices), np.asarray(m.faces[~top]), 1000.0)
    full = mesh_inertial(np.asarray(m.vertices), np.asarray(m.faces), 1000.0)
    assert cup is not None and full is not None
    assert cup.mass == pytest.approx(full.mass, rel=1e-9)  # a planar hole: exact
    assert cup.mass == pytest.approx(1000 * 0.1 * 0.5 * 32 * 0.04**2 * np.sin(2 * np.pi / 32))
    np.testing.assert_allclose(cup.inertia, full.inertia, atol=1e-12)


def test_inverted_surface_is_the_same_solid() -> None:
    m = trimesh.creation.box(extents=(0.1, 0.2, 0.3))
    inv = mesh_inertial(np.asarray(m.vertices), np.asarray(m.faces[:, ::-1]), 1000.0)
    assert inv is not None and inv.mass == pytest.approx(6.0)


def test_two_halves_combine_into_the_whole() -> None:
    half = primitive_inertial(Box((0.1, 0.2, 0.3)), 500.0)
    whole = primitive_inertial(Box((0.2, 0.2, 0.3)), 500.0)
    both = combine([(half, make_T(None, [-0.05, 0, 0])), (half, make_T(None, [0.05, 0, 0]))])
    assert both.mass == pytest.approx(whole.mass)
    np.testing.assert_allclose(both.com, 0.0, atol=1e-15)
    np.testing.assert_allclose(both.inertia, whole.inertia, rtol=1e-12)


def _brick() -> tuple[Inertial, np.ndarray, float]:
    g = Box((0.05, 0.04, 0.03))
    m = trimesh.creation.box(extents=g.size)
    return primitive_inertial(g, 1000.0), np.asarray(m.vertices), 0.05 * 0.04 * 0.03


def test_a_real_inertia_is_kept() -> None:
    geo, pts, vol = _brick()
    real = scaled_inertial(geo, 0.08)  # a lighter material, same shape
    v = judge_inertial(real, geo, pts, vol, 1000.0, "brick.urdf")
    assert v.mass_source == "file" and v.inertia_source == "file" and v.warning is None
    assert v.inertial is real


def test_a_placeholder_inertia_is_refused_with_one_line() -> None:
    geo, pts, vol = _brick()
    placeholder = Inertial(0.1, np.zeros(3), np.eye(3))  # ixx = iyy = izz = 1
    v = judge_inertial(placeholder, geo, pts, vol, 1000.0, "duck.urdf")
    assert v.mass_source == "file" and v.inertia_source == "geometry"
    assert v.inertial.mass == pytest.approx(0.1)
    np.testing.assert_allclose(v.inertial.inertia, np.asarray(geo.inertia) * 0.1 / geo.mass)
    assert v.warning is not None and "\n" not in v.warning
    assert v.warning.startswith("duck.urdf: inertia 1 kg m^2 is impossible for 0.1 kg")


def test_a_vanishing_inertia_is_refused() -> None:
    geo, pts, vol = _brick()
    tiny = Inertial(0.06, np.zeros(3), np.eye(3) * 1e-9)
    v = judge_inertial(tiny, geo, pts, vol, 1000.0, "x")
    assert v.inertia_source == "geometry" and "trace" in (v.warning or "")


def test_an_implausible_mass_takes_the_geometry() -> None:
    geo, pts, vol = _brick()
    heavy = Inertial(1000.0, np.zeros(3), np.eye(3) * 0.2)  # 1e7 kg/m^3
    v = judge_inertial(heavy, geo, pts, vol, 1000.0, "x")
    assert v.mass_source == "geometry" and v.inertial is geo
    assert "kg/m^3" in (v.warning or "")


def test_a_centre_of_mass_outside_is_refused() -> None:
    geo, pts, vol = _brick()
    off = Inertial(0.06, np.array([0.5, 0, 0]), np.asarray(geo.inertia) * 0.06 / geo.mass)
    v = judge_inertial(off, geo, pts, vol, 1000.0, "x")
    assert v.inertia_source == "geometry" and "outside" in (v.warning or "")
    np.testing.assert_allclose(v.inertial.com, 0.0)


def test_no_file_mass_says_so() -> None:
    geo, pts, vol = _brick()
    v = judge_inertial(None, geo, pts, vol, 1000.0, "x.urdf")
    assert v.inertial is geo and v.warning == (
        "x.urdf: no mass in the file: mass and inertia from the geometry at 1000 kg/m^3"
    )
