"""Broad phase: axis-aligned bounding boxes and sweep-and-prune.

``aabb`` gives the tight world-axis box of a placed primitive; :func:`sweep_and_prune`
returns the pairs of boxes whose gap is at most ``margin`` (sort along the axis of
largest spread, sweep, then check the other two axes). Cost ``O(n log n + k)`` for
``k`` reported pairs instead of ``n^2``.
"""

from __future__ import annotations

import numpy as np

from robotsim.geometry import support as sp

__all__ = ["aabb", "aabb_gap", "bounding_radius", "sweep_and_prune"]


def aabb(
    kind: int, size: np.ndarray, R: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)`` ``(..., 3)`` of a placed primitive (see :mod:`.support` for packing)."""
    if kind == sp.SPHERE:
        half = np.broadcast_to(size[..., :1], c.shape)
    elif kind == sp.CAPSULE:
        half = np.abs(R[..., :, 2]) * size[..., 2:3] + size[..., :1]
    elif kind == sp.BOX:
        half = np.einsum("...ij,...j->...i", np.abs(R), size)
    else:
        half = np.sqrt(np.einsum("...ij,...j->...i", R**2, size**2))
    return c - half, c + half


def bounding_radius(kind: int, size: np.ndarray) -> np.ndarray:
    """Radius of the smallest centred sphere containing the primitive ``(...)``."""
    if kind == sp.CAPSULE:
        return size[..., 0] + size[..., 2]
    if kind == sp.BOX:
        return np.linalg.norm(size, axis=-1)
    return size.max(axis=-1)


def aabb_gap(lo_a: np.ndarray, hi_a: np.ndarray, lo_b: np.ndarray, hi_b: np.ndarray) -> np.ndarray:
    """Euclidean distance between boxes (0 if they overlap), a lower bound of the
    distance between anything inside them."""
    gap = np.maximum(0.0, np.maximum(lo_a - hi_b, lo_b - hi_a))
    return np.linalg.norm(gap, axis=-1)


def sweep_and_prune(lo: np.ndarray, hi: np.ndarray, margin: float = 0.0) -> np.ndarray:
    """Index pairs ``(k, 2)`` (``i < j``) of boxes ``lo, hi (n, 3)`` whose gap along every
    axis is at most ``margin`` (a superset of the pairs closer than ``margin``)."""
    n = len(lo)
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64)
    axis = int(np.argmax(hi.max(0) - lo.min(0)))
    order = np.argsort(lo[:, axis], kind="stable")
    los = lo[order, axis]
    his = hi[order, axis] + margin
    # for each box, the boxes starting before it ends (+ margin) in sorted order
    ends = np.searchsorted(los, his, side="right")
    pairs = []
    for k in range(n):
        if ends[k] > k + 1:
            others = order[k + 1 : ends[k]]
            i = order[k]
            ok = np.all((lo[others] <= hi[i] + margin) & (lo[i] <= hi[others] + margin), axis=1)
            for j in others[ok]:
                pairs.append((min(i, j), max(i, j)))
    if not pairs:
        return np.zeros((0, 2), dtype=np.int64)
    return np.unique(np.array(pairs, dtype=np.int64), axis=0)
