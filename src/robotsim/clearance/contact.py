"""The paper's contact-distance curve (seed 004, section 3 and Fig. 10).

The paper follows the distance between the robots' end-link volumes and compares it,
sample by sample, with their *contact distance*: how far apart the two volumes would be
when just touching, for their orientations at that moment. Collision is where the
distance curve falls to the contact-distance curve. Both move with the robots, so the
contact distance is a curve, not a line.

We measure both between the volume centres, along the line joining them:

- ``centre``: ``D(t) = |c_B - c_A|`` (m), the centres of the pair's closest volumes
  (the volume pair with the smallest signed distance at that sample);
- ``contact``: ``rho(t)``, the centre distance along the same direction ``u`` at which
  the two volumes, with their current orientations, are exactly at the contact
  threshold. With ``K = A0 + (-B0)`` (both volumes centred at the origin), the signed
  distance of the pair is the signed distance of ``c_B - c_A`` to ``K``, which grows
  monotonically along any ray from the origin; so ``rho`` is found by bisection on the
  exact signed distance (:func:`robotsim.geometry.shapes.packed_distance`), and
  ``D <= rho`` exactly when the pair's signed distance is at most the threshold.

For two spheres ``rho = r_A + r_B``; for ellipsoids it depends on their orientations
relative to the centre line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from robotsim.clearance.scene import Scene
from robotsim.clearance.trajectory import Trajectory
from robotsim.geometry.broadphase import bounding_radius
from robotsim.geometry.shapes import packed_distance

__all__ = ["ContactCurve", "contact_curves"]

#: Bisection steps: the bracket (at most a few metres) shrinks below 1e-12 m.
_STEPS = 48


@dataclass(frozen=True, eq=False)
class ContactCurve:
    """One robot pair's Fig. 10 curves at the sample times ``(T,)``.

    Attributes:
        name: ``"A-B"``.
        centre: centre distance of the closest volumes ``(T,)`` (m).
        contact: contact distance along the same line ``(T,)`` (m).
        volumes: labels ``(of A, of B)`` of the closest volumes ``(T, 2)``.
    """

    name: str
    centre: np.ndarray
    contact: np.ndarray
    volumes: np.ndarray

    @property
    def in_contact(self) -> np.ndarray:
        """``centre <= contact`` per sample ``(T,)`` (bool)."""
        return self.centre <= self.contact


def contact_curves(
    scene: Scene, trajectories: Mapping[str, Trajectory], times: np.ndarray
) -> dict[str, ContactCurve]:
    """Centre and contact distances of every robot pair at ``times (T,)`` (s)."""
    t = np.asarray(times, dtype=np.float64)
    poses = {r.name: r.volume_poses(trajectories[r.name].q(t)) for r in scene.robots}
    out: dict[str, ContactCurve] = {}
    robots = list(scene.robots)
    for i, ra in enumerate(robots):
        for rb in robots[i + 1 :]:
            name = f"{ra.name}-{rb.name}"
            out[name] = _pair(ra, rb, poses[ra.name], poses[rb.name], scene.contact_threshold,
                              name)  # fmt: skip
    return out


def _pair(ra, rb, Pa, Pb, threshold: float, name: str) -> ContactCurve:  # type: ignore[no-untyped-def]
    ka, sa = ra.packed
    kb, sb = rb.packed
    T = Pa.shape[0]
    best = np.full(T, np.inf)
    which = np.zeros((T, 2), dtype=np.int64)
    for a in range(len(ka)):
        for b in range(len(kb)):
            d, *_ = packed_distance(
                ka[a], np.broadcast_to(sa[a], (T, 3)).copy(), Pa[:, a, :3, :3], Pa[:, a, :3, 3],
                kb[b], np.broadcast_to(sb[b], (T, 3)).copy(), Pb[:, b, :3, :3], Pb[:, b, :3, 3],
            )  # fmt: skip
            better = d < best
            best = np.where(better, d, best)
            which[better] = (a, b)
    ia, ib = which[:, 0], which[:, 1]
    rows = np.arange(T)
    Ta, Tb = Pa[rows, ia], Pb[rows, ib]
    ca, cb = Ta[:, :3, 3], Tb[:, :3, 3]
    r = cb - ca
    centre = np.linalg.norm(r, axis=1)
    u = np.where(centre[:, None] > 1e-12, r / np.maximum(centre, 1e-300)[:, None],
                 np.array([1.0, 0.0, 0.0]))  # fmt: skip
    sizes_a, sizes_b = sa[ia], sb[ib]
    kinds_a = np.array(ka)[ia]
    kinds_b = np.array(kb)[ib]
    reach = _reach(kinds_a, sizes_a) + _reach(kinds_b, sizes_b)
    lo = np.zeros(T)
    hi = reach + max(threshold, 0.0) + 1e-9
    for _ in range(_STEPS):
        mid = 0.5 * (lo + hi)
        d = _distance_at(kinds_a, sizes_a, Ta, kinds_b, sizes_b, Tb, ca + mid[:, None] * u)
        above = d > threshold
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    contact = 0.5 * (lo + hi)
    labels = np.array([[ra.volume_label(a), rb.volume_label(b)] for a, b in which])
    for arr in (centre, contact):
        arr.setflags(write=False)
    return ContactCurve(name, centre, contact, labels)


def _reach(kinds: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Bounding radius about the volume's centre, per sample ``(T,)`` (m)."""
    return np.array([bounding_radius(k, s) for k, s in zip(kinds, sizes, strict=True)])


def _distance_at(kinds_a, sizes_a, Ta, kinds_b, sizes_b, Tb, cb_new):  # type: ignore[no-untyped-def]
    """Signed distance with B's volume moved to centres ``cb_new (T, 3)``."""
    out = np.empty(len(kinds_a))
    for ka in np.unique(kinds_a):
        for kb in np.unique(kinds_b):
            m = (kinds_a == ka) & (kinds_b == kb)
            if not m.any():
                continue
            d, *_ = packed_distance(int(ka), sizes_a[m], Ta[m, :3, :3], Ta[m, :3, 3],
                                    int(kb), sizes_b[m], Tb[m, :3, :3], cb_new[m])  # fmt: skip
            out[m] = d
    return out
