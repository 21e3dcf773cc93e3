"""Exact distances at one instant: each robot pair's distance (the minimum over its
volume pairs, the value :func:`robotsim.clearance.run` samples) and each volume's
distance to the nearest volume of any other robot (which links touch).

Every volume pair goes through the same kernel as the run,
:func:`robotsim.geometry.shapes.packed_distance`, batched: the pairs of all robot
pairs are grouped by their two shape kinds, one call per kind pair (the kernels of
mixed shapes cost about as much for one pair as for twenty). Bounding spheres skip the
pairs that can be the nearest of neither volume within the other's robot: a pair whose
sphere lower bound is at least both volumes' nearest centre distance to the other robot
(an upper bound of that distance, each volume's centre lying inside it). The skipped
pairs change no minimum, so every distance returned is exact.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from robotsim.clearance.scene import PlacedRobot
from robotsim.geometry.broadphase import bounding_radius
from robotsim.geometry.shapes import packed_distance

__all__ = ["InstantDistances", "instant_distances"]


@dataclass(frozen=True, eq=False)
class InstantDistances:
    """Exact signed distances (m) at one set of configurations.

    Attributes:
        pairs: ``"A-B"`` (scene order) -> the robot pair's distance.
        volumes: robot name -> ``(nvol,)`` read-only: each volume's distance to the
            nearest volume of any other robot (``inf`` when there is no other robot).
    """

    pairs: Mapping[str, float]
    volumes: Mapping[str, np.ndarray]


def instant_distances(
    robots: Sequence[PlacedRobot], qs: Mapping[str, np.ndarray]
) -> InstantDistances:
    """Exact distances of ``robots`` at configurations ``qs`` (robot name -> ``(nq,)``)."""
    names = [r.name for r in robots]
    # one row per volume of the scene: its robot's index, kind, size, world pose
    owner = np.concatenate([np.full(len(r.volumes), i) for i, r in enumerate(robots)])
    kind = np.concatenate([np.asarray(r.packed[0], dtype=np.int64) for r in robots])
    size = np.concatenate([r.packed[1] for r in robots])  # (nv, 3)
    P = np.concatenate([r.volume_poses(np.asarray(qs[r.name], dtype=float)) for r in robots])
    rad = np.array([float(bounding_radius(int(k), z)) for k, z in zip(kind, size, strict=True)])
    centre = P[:, :3, 3]
    gap = np.linalg.norm(centre[:, None] - centre[None, :], axis=-1)
    other = owner[:, None] != owner[None, :]
    # upper[g, r]: volume g's nearest centre of robot r, >= its distance to robot r
    upper = np.stack([gap[:, owner == r].min(axis=1) for r in range(len(robots))], axis=1)
    lower = gap - rad[:, None] - rad[None, :]
    need = (
        other
        & np.triu(np.ones_like(other), 1)
        & ((lower < upper[:, owner]) | (lower < upper[:, owner].T))
    )
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for g, h in zip(*np.nonzero(need), strict=True):  # g < h: owner[g] < owner[h]
        kg, kh = int(kind[g]), int(kind[h])
        uv = (int(g), int(h)) if kg <= kh else (int(h), int(g))
        groups.setdefault((min(kg, kh), max(kg, kh)), []).append(uv)
    best = np.full(len(owner), np.inf)
    pair_best: dict[tuple[int, int], float] = {}
    for (ka, kb), members in groups.items():  # one batched call per kind pair
        g, h = np.array(members).T
        d, *_ = packed_distance(
            ka, size[g], P[g, :3, :3], P[g, :3, 3], kb, size[h], P[h, :3, :3], P[h, :3, 3]
        )
        np.minimum.at(best, g, d)
        np.minimum.at(best, h, d)
        for x, y, dxy in zip(owner[g], owner[h], d, strict=True):
            ij = (int(min(x, y)), int(max(x, y)))
            pair_best[ij] = min(pair_best.get(ij, math.inf), float(dxy))
    pairs = {f"{names[i]}-{names[j]}": pair_best.get((i, j), math.inf)
             for i in range(len(robots)) for j in range(i + 1, len(robots))}  # fmt: skip
    volumes = {}
    for i, name in enumerate(names):
        v = best[owner == i].copy()
        v.setflags(write=False)
        volumes[name] = v
    return InstantDistances(pairs, volumes)
