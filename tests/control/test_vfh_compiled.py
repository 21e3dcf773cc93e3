"""The compiled VFH decision equals its NumPy form on random scenes, bit for bit."""

from __future__ import annotations

import numpy as np

from robotsim.control.avoidance import VFH


def test_compiled_vfh_equals_numpy_form() -> None:
    rng = np.random.default_rng(4)
    modes = set()
    for k in range(3000):
        n = int(rng.integers(1, 12))
        obs = np.column_stack(
            [rng.uniform(-4, 4, n), rng.uniform(-4, 4, n), rng.uniform(0.1, 0.6, n)]
        )
        vfh = VFH(robot_radius=rng.uniform(0.1, 0.4), safety=rng.uniform(0.0, 0.4),
                  sectors=int(rng.choice([36, 72, 90])))  # fmt: skip
        pos = [*rng.uniform(-3, 3, 2), 0.0]
        goal = rng.uniform(-5, 5, 2)
        prev = None if k % 3 == 0 else float(rng.uniform(-np.pi, np.pi))
        d1, f1 = vfh(pos, goal, obs, prev)
        d2, f2 = vfh.decide_numpy(pos, goal, obs, prev)
        assert np.array_equal(d1, d2) and f1 == f2, (k, d1, d2, f1, f2)
        modes.add(
            (f1 == 0.15, bool(np.allclose(d1, (goal - pos[:2]) / np.hypot(*(goal - pos[:2])))))
        )
    assert len(modes) >= 3  # head for the goal, detour, boxed in all occur
