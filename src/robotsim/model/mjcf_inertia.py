"""Body masses and inertias as MuJoCo's compiler makes them, for the MJCF reader.

An ``<inertial>`` as given, or (``inertiafromgeom``) the sum of the body's primitive
geoms (``inertiagrouprange`` only): each geom's mass is its ``mass`` or ``density``
times its volume, its inertia MuJoCo's formula for the shape (a capsule: a cylinder and
two hemispheres sharing the mass by volume), moved to the body's centre of mass. All
bodies at once (NumPy); ``settotalmass`` scales everything last.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from robotsim.model.mjcf_xml import Compiler, Quat, Unsupported
from robotsim.spatial import quat_to_R

__all__ = ["PRIMITIVES", "MassSource", "body_inertias"]

PRIMITIVES = ("sphere", "capsule", "ellipsoid", "cylinder", "box")


class MassSource(Protocol):
    """What the reader collected: bodies (world first) and geoms."""

    comp: Compiler
    b_name: list[str]
    b_njnt: list[int]
    b_parent: list[int]
    b_inertial: list[tuple[float, list[float], np.ndarray] | None]  # (mass, com, inertia)
    g_body: list[int]
    g_type: list[str]
    g_size: list[list[float]]
    g_pos: list[list[float]]
    g_quat: list[Quat]
    g_mass: list[float]  # nan: density times volume
    g_density: list[float]
    g_col: list[tuple[int, int, int]]  # contype, conaffinity, group


def _geom_inertia(
    r: MassSource, use_geoms: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Body mass, centre of mass and inertia (about it) from the primitive geoms of the
    bodies in ``use_geoms`` (MuJoCo's formulas; geoms in ``inertiagrouprange`` only)."""
    nbody = len(r.b_name)
    lo, hi = r.comp.inertiagrouprange
    body = np.array(r.g_body, int)
    group = np.array([c[2] for c in r.g_col], int)
    take = use_geoms[body] & (group >= lo) & (group <= hi) if len(body) else np.zeros(0, bool)
    idx = np.nonzero(take)[0]
    kinds = [r.g_type[i] for i in idx]
    if any(k not in PRIMITIVES for k in kinds):
        raise Unsupported("inertia from a mesh or plane geom (MuJoCo computes it)")
    mass_b = np.zeros(nbody)
    com_b = np.zeros((nbody, 3))
    inertia_b = np.zeros((nbody, 3, 3))
    if not len(idx):
        return mass_b, com_b, inertia_b
    with np.errstate(all="ignore"):  # absurd sizes overflow: the caller falls back
        _sum_geoms(r, idx, kinds, body, mass_b, com_b, inertia_b)
    return mass_b, com_b, inertia_b


def _sum_geoms(r: MassSource, idx: np.ndarray, kinds: list[str], body: np.ndarray,
               mass_b: np.ndarray, com_b: np.ndarray, inertia_b: np.ndarray) -> None:  # fmt: skip
    s = np.array([r.g_size[i] for i in idx], float)
    code = np.array([PRIMITIVES.index(k) for k in kinds])
    sph, cap, ell, cyl, box = (code == c for c in range(5))
    rad, half = s[:, 0], s[:, 1]
    vol = np.zeros(len(idx))
    vol[sph] = 4.0 / 3.0 * np.pi * rad[sph] ** 3
    vol[cap] = np.pi * rad[cap] ** 2 * 2 * half[cap] + 4.0 / 3.0 * np.pi * rad[cap] ** 3
    vol[cyl] = np.pi * rad[cyl] ** 2 * 2 * half[cyl]
    vol[ell] = 4.0 / 3.0 * np.pi * s[ell, 0] * s[ell, 1] * s[ell, 2]
    vol[box] = 8.0 * s[box, 0] * s[box, 1] * s[box, 2]
    given = np.array([r.g_mass[i] for i in idx])
    m = np.where(np.isnan(given), np.array([r.g_density[i] for i in idx]) * vol, given)
    d = np.zeros((len(idx), 3))  # principal moments about the geom's centre
    d[sph] = (0.4 * m[sph] * rad[sph] ** 2)[:, None]
    h, rr = 2 * half, rad
    # capsule: a cylinder and two hemispheres, mass shared by volume (MuJoCo's split)
    ms = np.where(cap, m * 4 * rr / (4 * rr + 3 * h), 0.0)
    mc = m - ms
    cap_x = mc * (3 * rr**2 + h**2) / 12 + ms * (2 * rr**2 / 5 + h**2 / 4 + 3 * h * rr / 8)
    cap_z = mc * rr**2 / 2 + ms * 2 * rr**2 / 5
    d[cap] = np.stack([cap_x, cap_x, cap_z], axis=1)[cap]
    cyl_x = m * (3 * rr**2 + h**2) / 12
    d[cyl] = np.stack([cyl_x, cyl_x, m * rr**2 / 2], axis=1)[cyl]
    a2 = s**2
    d[ell] = (m[:, None] / 5 * (a2[:, [1, 0, 0]] + a2[:, [2, 2, 1]]))[ell]
    d[box] = (m[:, None] / 3 * (a2[:, [1, 0, 0]] + a2[:, [2, 2, 1]]))[box]
    pos = np.array([r.g_pos[i] for i in idx], float)
    R = quat_to_R(np.array([r.g_quat[i] for i in idx], float))
    b = body[idx]
    np.add.at(mass_b, b, m)
    np.add.at(com_b, b, m[:, None] * pos)
    ok = mass_b > 0
    com_b[ok] /= mass_b[ok, None]
    dp = pos - com_b[b]
    I = (R * d[:, None, :]) @ np.swapaxes(R, -1, -2)
    I += m[:, None, None] * (np.einsum("ni,ni->n", dp, dp)[:, None, None] * np.eye(3)
                             - dp[:, :, None] * dp[:, None, :])  # fmt: skip
    np.add.at(inertia_b, b, I)


def body_inertias(r: MassSource) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every body's mass (kg), centre of mass and inertia about it (body frame):
    the ``<inertial>``, or its geoms' (``inertiafromgeom``), scaled by
    ``settotalmass``; :class:`Unsupported` where MuJoCo computes (mesh geoms) or
    checks (a massless moving body, a degenerate inertia) something else."""
    nbody = len(r.b_name)
    explicit = np.array([x is not None for x in r.b_inertial], bool)
    mode = r.comp.inertiafromgeom
    use_geoms = np.full(nbody, mode == "true") | ((mode == "auto") & ~explicit)
    if mode == "true":  # MuJoCo keeps the <inertial> of a body without geoms
        lo, hi = r.comp.inertiagrouprange
        has_geoms = np.zeros(nbody, bool)
        counted = np.zeros(nbody, bool)
        for b, (_, _, group) in zip(r.g_body, r.g_col):
            has_geoms[b] = True
            counted[b] |= lo <= group <= hi
        if np.any(explicit & has_geoms & ~counted):
            raise Unsupported("inertiafromgeom with an <inertial> and only uncounted geoms")
        use_geoms &= has_geoms | ~explicit
    use_geoms[0] = False
    mass, com, inertia = _geom_inertia(r, use_geoms)
    for bid in np.nonzero(explicit & ~use_geoms)[0]:
        m, c, I = r.b_inertial[bid]  # type: ignore[misc]
        mass[bid], com[bid], inertia[bid] = m, c, I
    if r.comp.settotalmass > 0:  # MuJoCo's last step: scale every body to the total
        total = float(mass.sum())
        if not total > 0:
            raise Unsupported("settotalmass on a model without mass")
        mass *= r.comp.settotalmass / total
        inertia *= r.comp.settotalmass / total
    # MuJoCo refuses a moving body without mass or inertia: let it say so
    if not (np.isfinite(inertia).all() and np.isfinite(com).all() and np.isfinite(mass).all()):
        raise Unsupported("an inertia too large for floating point")
    ev = np.linalg.eigvalsh(inertia)
    thin = use_geoms & (mass > 0) & (ev[:, 0] <= 1e-12 * ev[:, 2])
    moving = np.array(r.b_njnt) > 0
    # MuJoCo's test: a moving body needs mass and inertia (> mjMINVAL, 1e-15; here with
    # a margin) of its own or in a body welded below it
    full = (mass > 1e-12) & (ev[:, 0] > 1e-12)
    carried = full.copy()
    parent = np.array(r.b_parent, int)
    for bid in range(nbody - 1, 0, -1):  # children come after their parents
        if carried[bid] and not moving[bid]:
            carried[parent[bid]] = True
    bad = thin | (moving & ~carried)
    if np.any(bad):
        which = r.b_name[int(np.argmax(bad))]
        raise Unsupported(f"body {which!r}: a massless moving body or a degenerate inertia")
    return mass, com, inertia
