"""Which robot touches something it must not: an obstacle, a scenario object or
another robot. The tables are built once per world; each check is one lookup per
active contact (a bit mask of the robots a geom pair makes touch something forbidden,
OR-reduced), and no NumPy work at all when nothing touches or the contacts are the
same geom pairs as at the previous check (the usual case: wheels on the ground)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from robotsim.physics import World

__all__ = ["ForbiddenContacts"]


class ForbiddenContacts:
    """Contact tables of ``world`` for the robots ``robots`` (names, in order) among
    the bodies ``obstacles`` (names of obstacle and object bodies)."""

    def __init__(self, world: World, robots: Sequence[str], obstacles: Collection[str]) -> None:
        self.world = world
        m = world.model
        owner = np.full(m.nbody, -1, dtype=int)
        for i, robot in enumerate(robots):
            for b, name in enumerate(world.body_names):
                if name.startswith(robot + "/"):
                    owner[b] = i
        self.body_owner = owner
        self.geom_owner = owner[m.geom_bodyid]
        obstacle_geom = np.zeros(m.ngeom, dtype=bool)
        for g in range(m.ngeom):
            obstacle_geom[g] = world.body_names[m.geom_bodyid[g]] in obstacles
        self.geom_obstacle = obstacle_geom
        # hit tables: [geom1, geom2] -> robot index touching something it must not (a
        # robot geom against an obstacle/object or another robot), else n ("nobody")
        o = self.geom_owner
        n = self.n = len(robots)
        o1, o2 = o[:, None], o[None, :]
        ob1, ob2 = obstacle_geom[:, None], obstacle_geom[None, :]
        hit1 = (o1 >= 0) & (ob2 | ((o2 >= 0) & (o2 != o1)))
        hit2 = (o2 >= 0) & (ob1 | ((o1 >= 0) & (o1 != o2)))
        self._hit1 = np.where(hit1, np.broadcast_to(o1, hit1.shape), n)
        self._hit2 = np.where(hit2, np.broadcast_to(o2, hit2.shape), n)
        self._ngeom = int(m.ngeom)
        self._none = np.zeros(n, dtype=bool)
        self._none.setflags(write=False)
        self._last_pairs: bytes = b""
        self._last: np.ndarray = self._none
        # [geom1 * ngeom + geom2] -> bit i set: robot i touches something forbidden
        # there (robots >= 63 do not fit a mask: they take the table lookups instead)
        self._mask: np.ndarray | None = None
        if n < 63:
            bit = np.left_shift(np.int64(1), np.arange(n + 1, dtype=np.int64))
            bit[n] = 0
            self._mask = (bit[self._hit1] | bit[self._hit2]).ravel()

    def touching(self) -> np.ndarray:
        """``(n,)`` bool: robot i touches something it must not now (read-only)."""
        d = self.world.data
        nc = d.ncon
        if not nc:
            self._last_pairs, self._last = b"", self._none
            return self._none
        geom = d.contact.geom
        pairs = geom.tobytes()
        if pairs == self._last_pairs:
            return self._last
        if self._mask is not None:
            bits = int(np.bitwise_or.reduce(self._mask[geom[:, 0] * self._ngeom + geom[:, 1]]))
            if bits == 0:
                out = self._none
            else:
                out = (bits >> np.arange(self.n)) & 1 == 1
                out.setflags(write=False)
        else:
            touching = np.zeros(self.n + 1, dtype=bool)  # last slot: "nobody"
            touching[self._hit1[geom[:, 0], geom[:, 1]]] = True
            touching[self._hit2[geom[:, 0], geom[:, 1]]] = True
            out = touching[:-1]
            out.setflags(write=False)
        self._last_pairs, self._last = pairs, out
        return out
