"""Obstacle layouts of a mobile scenario: fixed positions or random from the seed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from robotsim.errors import ScenarioError
from robotsim.mobile.schema import MobileScenario

if TYPE_CHECKING:
    from robotsim.mobile.types import RobotSetup

__all__ = ["place_obstacles"]


def place_obstacles(
    sc: MobileScenario, robots: list[RobotSetup], source: str, seed: int
) -> np.ndarray:
    """The obstacles ``(N, 3)`` ``[x, y, radius]`` (m): the fixed positions (checked
    against every start and goal), or a random layout drawn from ``seed`` that keeps
    clear of them."""
    ob = sc.obstacles
    r = ob.diameter / 2
    if ob.layout == "fixed":
        pts = np.array(ob.positions, dtype=float).reshape(-1, 2)
        for i, p in enumerate(pts):
            for rb in robots:
                for label, q in (("start", rb.start), ("goal", rb.goal)):
                    gap = float(np.hypot(*(p - q[:2]))) - r - rb.radius
                    if gap < 0:
                        raise ScenarioError(
                            f"{source}: obstacles.positions[{i}]: obstacle at ({p[0]:g}, "
                            f"{p[1]:g}) overlaps the {label} of robot {rb.name!r} at "
                            f"({q[0]:g}, {q[1]:g}) by {-gap:.2f} m"
                        )
        return np.column_stack([pts, np.full(len(pts), r)]) if len(pts) else np.zeros((0, 3))
    rnd = ob.random
    rng = np.random.default_rng(seed)
    (x0, y0), (x1, y1) = rnd.region
    keep = [q[:2] for rb in robots for q in (rb.start, rb.goal)]
    clear = [rnd.keep_clear + r + rb.radius for rb in robots for _ in (0, 1)]
    placed: list[np.ndarray] = []
    for _ in range(20000):
        if len(placed) == rnd.count:
            break
        p = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
        if any(np.hypot(*(p - q)) < c for q, c in zip(keep, clear)):
            continue
        if any(np.hypot(*(p - q)) < 2 * r + rnd.min_gap for q in placed):
            continue
        placed.append(p)
    if len(placed) < rnd.count:
        raise ScenarioError(
            f"{source}: obstacles.random: placed only {len(placed)} of "
            f"{rnd.count} obstacles in the region with min_gap "
            f"{rnd.min_gap:g} m; enlarge the region or lower the count"
        )
    pts = np.array(placed).reshape(-1, 2)
    return np.column_stack([pts, np.full(len(pts), r)]) if len(pts) else np.zeros((0, 3))
