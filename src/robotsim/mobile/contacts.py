"""Which robot touches something it must not: an obstacle, a scenario object or
another robot. The tables are built once per world; each check is two lookups per
active contact."""

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

    def touching(self) -> np.ndarray:
        """``(n,)`` bool: robot i touches something it must not now."""
        d = self.world.data
        touching = np.zeros(self.n + 1, dtype=bool)  # last slot: "nobody"
        if d.ncon:
            geom = d.contact.geom
            touching[self._hit1[geom[:, 0], geom[:, 1]]] = True
            touching[self._hit2[geom[:, 0], geom[:, 1]]] = True
        return touching[:-1]
