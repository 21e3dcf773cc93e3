"""Evenly spread directions on the unit sphere (a Fibonacci lattice)."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["fibonacci_sphere"]


def fibonacci_sphere(n: int) -> np.ndarray:
    """``n`` unit vectors ``(n, 3)`` spread evenly over the sphere (golden-angle spiral,
    equal-area bands in z)."""
    k = np.arange(n) + 0.5
    z = 1 - 2 * k / n
    phi = math.pi * (1 + 5**0.5) * k
    s = np.sqrt(1 - z * z)
    return np.stack([s * np.cos(phi), s * np.sin(phi), z], axis=1)
