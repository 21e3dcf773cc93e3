"""Contact sensors on links: foot force (with the centre of pressure) and touch.

Both read MuJoCo's contacts as the last physics step solved them (the forces that acted
over that step): every contact one of whose geoms belongs to a covered link's body
contributes its force (``mj_contactForce``, turned out of the contact frame; the force
on the link, whichever side of the contact it is on) applied at the contact point.

:class:`ForceSensor` fields, one row per covered link (in the order of ``links`` in
:meth:`meta`), in that link's sensor frame (a foot: its sole frame, z out of the sole):
``force`` ``(n, 3)`` N, the total contact force on the link; ``normal`` ``(n,)`` N, the
sum of the contacts' normal forces; ``cop`` ``(n, 3)`` m, the centre of pressure (the
contact points weighted by their normal forces; NaN without contact); ``pose`` ``(n,
7)`` each sensor frame in the world (``x, y, z, qw, qx, qy, qz``).

:class:`TouchSensor` fields: ``force`` ``(n,)`` N, the normal force on each link (noise
added, never below 0), ``touch`` ``(n,)`` bool: in contact, with at least the spec's
``threshold``. :meth:`TouchSensor.only_with` counts only contacts with given geoms (the
object a hand grasps, not the table).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from robotsim.sensors.mount import Mount
from robotsim.sensors.types import Sensor, pose7

__all__ = ["ForceSensor", "TouchSensor", "link_contacts"]


def link_contacts(
    model: Any,
    data: Any,
    geom_site: np.ndarray,
    nsites: int,
    counterpart: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Contact totals per site now: force ``(nsites, 3)`` N (world frame, on the link),
    normal force ``(nsites,)`` N, the normal-force-weighted sum of contact points
    ``(nsites, 3)`` (divide by the normal force for the centre of pressure) and the
    number of contacts ``(nsites,)``. ``geom_site`` ``(ngeom,)``: the site each geom
    counts for, -1 for none; ``counterpart`` ``(ngeom,)`` bool: only contacts with
    these geoms count (None: any)."""
    import mujoco

    force = np.zeros((nsites, 3))
    normal = np.zeros(nsites)
    moment = np.zeros((nsites, 3))
    count = np.zeros(nsites, dtype=np.int64)
    n = data.ncon
    if n == 0:
        return force, normal, moment, count
    con = data.contact
    g = con.geom[:n]
    s1, s2 = geom_site[g[:, 0]], geom_site[g[:, 1]]
    if counterpart is not None:  # a site's contact counts when the other geom qualifies
        s1 = np.where(counterpart[g[:, 1]], s1, -1)
        s2 = np.where(counterpart[g[:, 0]], s2, -1)
    idx = np.flatnonzero((s1 >= 0) | (s2 >= 0))
    if idx.size == 0:
        return force, normal, moment, count
    f6 = np.zeros(6)
    frames = con.frame[:n]
    pos = con.pos[:n]
    for i in idx.tolist():
        mujoco.mj_contactForce(model, data, i, f6)
        f_on_2 = frames[i].reshape(3, 3).T @ f6[:3]  # rows: normal (geom1 -> geom2), tangents
        fn = float(f6[0])
        for site, sign in ((int(s1[i]), -1.0), (int(s2[i]), 1.0)):
            if site >= 0:
                force[site] += sign * f_on_2
                normal[site] += fn
                moment[site] += fn * pos[i]
                count[site] += 1
    return force, normal, moment, count


class _ContactBase(Sensor):
    deferred = True

    def __init__(self, world: Any, mount: Mount, seed: int, data: Any = None) -> None:
        m = world.model
        self.sites = mount.sites
        bodies = [world.body(s.body).id for s in self.sites]
        geom_site = np.full(m.ngeom, -1, dtype=np.int64)
        body_of = np.asarray(m.geom_bodyid)
        for k, b in enumerate(bodies):
            geom_site[body_of == b] = k
        self._geom_site = geom_site
        self._bodies = np.array(bodies, dtype=np.intp)
        T = np.array([s.T_link_sensor for s in self.sites], dtype=np.float64)
        self._R_bs, self._p_bs_all = T[:, :3, :3], T[:, :3, 3]
        self._std = float(mount.spec.noise.force_std)
        self._counterpart: np.ndarray | None = None
        super().__init__(world, mount, seed, data)

    def only_with(self, geoms: Any) -> None:
        """Count only contacts with the geoms ``geoms`` (ids; None: any), e.g. an
        object a hand grasps rather than the table it rests on."""
        if geoms is None:
            self._counterpart = None
            return
        mask = np.zeros(self.world.model.ngeom, dtype=bool)
        mask[np.asarray(list(geoms), dtype=np.int64)] = True
        self._counterpart = mask

    def meta(self) -> dict[str, Any]:
        out = super().meta()
        out["links"] = [s.link for s in self.sites]
        out["T_link_sensor"] = [np.asarray(s.T_link_sensor).tolist() for s in self.sites]
        return out

    def frames(self) -> tuple[np.ndarray, np.ndarray]:
        """Each site's sensor frame in the world: rotations ``(n, 3, 3)``, origins ``(n,
        3)`` m."""
        d = self.data
        R_wb = d.xmat[self._bodies].reshape(-1, 3, 3)
        p = d.xpos[self._bodies] + np.einsum("nij,nj->ni", R_wb, self._p_bs_all)
        return R_wb @ self._R_bs, p

    def _totals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        w = self.world
        return link_contacts(w.model, w.data, self._geom_site, len(self.sites), self._counterpart)


class ForceSensor(_ContactBase):
    type = "force"

    def reading_bytes(self) -> int:
        return 14 * 8 * len(self.sites)  # force, normal, cop, pose

    def sample(self) -> dict[str, np.ndarray]:
        force_w, normal, moment, _ = self._totals()
        R, p = self.frames()
        force = np.einsum("nji,nj->ni", R, force_w)  # R^T f per site
        cop = np.full((len(self.sites), 3), np.nan)
        on = normal > 1e-9
        if on.any():
            cw = moment[on] / normal[on, None]
            cop[on] = np.einsum("nji,nj->ni", R[on], cw - p[on])
        if self._std > 0:
            force += self.rng.normal(0.0, self._std, force.shape)
        poses = np.array([pose7(Ri, pi) for Ri, pi in zip(R, p)])
        return {"force": force, "normal": normal, "cop": cop, "pose": poses}


class TouchSensor(_ContactBase):
    type = "touch"

    def reading_bytes(self) -> int:
        return 9 * len(self.sites)  # force, touch

    def meta(self) -> dict[str, Any]:
        out = super().meta()
        out["threshold"] = float(self.mount.spec.threshold)
        return out

    def sample(self) -> dict[str, np.ndarray]:
        _, normal, _, count = self._totals()
        force = normal.copy()
        if self._std > 0:
            force = np.maximum(force + self.rng.normal(0.0, self._std, force.shape), 0.0)
        return {"force": force, "touch": (count > 0) & (force >= self.mount.spec.threshold)}
