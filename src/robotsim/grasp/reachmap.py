"""Hand poses the arm is known to reach, for arms too short of joints for the surface's
candidates (a 5-joint arm reaches a given point with only a few closing axes).

:class:`ReachMap` samples arm configurations once (uniform in the joint ranges) and keeps
those that put the hand's grasp centre above the table, approaching it from above
(``max_up``): their configurations and grasp frames. For an object the planner takes the
stored poses whose grasp centre lies nearest the object's centre of mass and moves each
by IK (:func:`robotsim.grasp.reach.reach`, from its stored configuration: a short move)
so that the grasp centre lands on the centre of mass with the same closing axis; what
the fingers then touch decides (it closes them at the pose reached).

A map depends only on the arm's kinematics, the hand, where the robot stands and the
table, so :meth:`ReachMap.cached` keeps the last few built (:data:`CACHE_ENTRIES`, at most
:data:`CACHE_BYTES` of arrays): every plan, trial and benchmark object of the same hand,
base pose and table reuses one (200,000 samples take ~0.4 s of forward kinematics). The
key is a digest of what the map is made from (the hand's joints, home pose, tool and
grasp frame, the forward kinematics at a few probe configurations, the base pose, the
table and the settings), never a name: two robots of the same name but other
kinematics get maps of their own.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

from robotsim.grasp.hand import GraspHand
from robotsim.hands.contact import BoxObstacle

__all__ = ["CACHE_BYTES", "CACHE_ENTRIES", "ReachMap", "cache_info", "clear_cache"]

CACHE_ENTRIES = 6  # maps kept (least recently used dropped first)
CACHE_BYTES = 192 * 2**20  # and at most this many bytes of their arrays
_CHUNK = 25_000  # configurations per forward-kinematics batch (bounds the peak memory)
_PROBES = 16  # probe configurations whose forward kinematics go into the key

_cache: OrderedDict[str, ReachMap] = OrderedDict()
_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0}


class ReachMap:
    """Reachable grasp frames over ``table`` (module docstring); world frame."""

    def __init__(
        self,
        hand: GraspHand,
        T_world_base: np.ndarray,
        table: BoxObstacle,
        samples: int = 20000,
        height: float = 0.2,
        max_up: float = 0.3,
        seed: int = 0,
    ) -> None:
        m = hand.model
        self.T_point = hand.contact_frames[len(hand.closures) // 2]
        Tb = np.asarray(T_world_base, float)
        half = np.asarray(table.size[:2]) / 2
        q_all = hand.random_arm_q(samples, seed)
        qs, Ts = [], []
        for start in range(0, samples, _CHUNK):  # chunks: the frames of one at a time
            q = q_all[start : start + _CHUNK]
            T = Tb @ m.fk(q, hand.tool) @ self.T_point
            c = T[:, :3, 3]
            above = np.all(np.abs(c[:, :2] - np.asarray(table.center[:2])) <= half, axis=1)
            above &= (c[:, 2] >= table.top) & (c[:, 2] <= table.top + height)
            above &= T[:, :3, 2] @ np.array([0.0, 0.0, 1.0]) <= max_up
            qs.append(q[above])
            Ts.append(T[above])
        self.q = np.concatenate(qs) if qs else np.zeros((0, m.nq))
        self.T = np.concatenate(Ts) if Ts else np.zeros((0, 4, 4))
        self.hand = hand
        self.T_world_base = Tb
        self._tree = None

    def __len__(self) -> int:
        return len(self.q)

    @property
    def nbytes(self) -> int:
        """Bytes of the stored configurations and frames."""
        return int(self.q.nbytes + self.T.nbytes)

    def tree(self):  # type: ignore[no-untyped-def]
        """A k-d tree of the stored grasp centres (built once, kept with the map)."""
        if self._tree is None:
            from scipy.spatial import cKDTree

            self._tree = cKDTree(self.T[:, :3, 3])
        return self._tree

    def nearest(self, target: np.ndarray, count: int, radius: float = 0.1) -> np.ndarray:
        """Indices of up to ``count`` stored frames whose grasp centre lies nearest
        ``target`` ``(3,)`` (world, within ``radius`` m)."""
        d = np.linalg.norm(self.T[:, :3, 3] - np.asarray(target), axis=1)
        idx = np.argsort(d)[:count]
        return idx[d[idx] <= radius]

    @classmethod
    def cached(
        cls,
        hand: GraspHand,
        T_world_base: np.ndarray,
        table: BoxObstacle,
        samples: int = 20000,
        height: float = 0.2,
        max_up: float = 0.3,
        seed: int = 0,
    ) -> ReachMap:
        """The map of these inputs, built once and kept (module doc)."""
        key = _key(hand, T_world_base, table, samples, height, max_up, seed)
        with _lock:
            hit = _cache.get(key)
            if hit is not None:
                _cache.move_to_end(key)
                _stats["hits"] += 1
                return hit
        mp = cls(hand, T_world_base, table, samples, height, max_up, seed)
        with _lock:
            _stats["misses"] += 1
            _cache[key] = mp
            _cache.move_to_end(key)
            while len(_cache) > 1 and (
                len(_cache) > CACHE_ENTRIES or sum(v.nbytes for v in _cache.values()) > CACHE_BYTES
            ):
                _cache.popitem(last=False)
        return mp


def _key(
    hand: GraspHand,
    T_world_base: np.ndarray,
    table: BoxObstacle,
    samples: int,
    height: float,
    max_up: float,
    seed: int,
) -> str:
    m = hand.model
    h = hashlib.sha1()
    probes = hand.random_arm_q(_PROBES, seed + 7_919)
    parts = [
        repr((hand.tool, tuple(hand.arm_joints), m.nq, samples, height, max_up, seed)),
        np.asarray(hand.home, float).tobytes(),
        np.asarray(hand.contact_frames[len(hand.closures) // 2], float).tobytes(),
        np.asarray(m.lower, float).tobytes(),
        np.asarray(m.upper, float).tobytes(),
        np.round(m.fk(probes, hand.tool), 12).tobytes(),
        np.asarray(T_world_base, float).tobytes(),
        np.asarray([*table.center, *table.size], float).tobytes(),
    ]
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
    return h.hexdigest()


def cache_info() -> dict[str, int]:
    """Maps kept, their bytes, and the hits and misses so far."""
    with _lock:
        return {"entries": len(_cache), "bytes": sum(v.nbytes for v in _cache.values()),
                **_stats}  # fmt: skip


def clear_cache() -> None:
    """Forget every map kept (and the counts)."""
    with _lock:
        _cache.clear()
        _stats.update(hits=0, misses=0)
