"""``deepest_point``: the centre of a convex sole's largest inscribed circle, against
shapes whose answer is known by hand."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.motion.balance import deepest_point, polygon_margin


def test_rectangle_gives_its_centre_and_half_width() -> None:
    rect = np.array([[-0.05, -0.03], [0.07, -0.03], [0.07, 0.03], [-0.05, 0.03]])
    p, r = deepest_point(rect)
    np.testing.assert_allclose(p, [0.01, 0.0], atol=1e-12)  # the middle of the segment
    assert r == pytest.approx(0.03, abs=1e-12)


def test_right_triangle_gives_its_incircle() -> None:
    a, b = 0.3, 0.4  # legs; the inradius of a right triangle is (a + b - c) / 2
    tri = np.array([[0.0, 0.0], [a, 0.0], [0.0, b]])
    p, r = deepest_point(tri)
    rin = (a + b - np.hypot(a, b)) / 2
    assert r == pytest.approx(rin, abs=1e-9)
    np.testing.assert_allclose(p, [rin, rin], atol=1e-9)
    assert polygon_margin(tri, p) == pytest.approx(r, abs=1e-9)


def test_on_a_line_the_middle_across() -> None:
    # a trapezoid narrow at the heel (x = -0.1) and wide at the toe (x = 0.1)
    trap = np.array([[-0.1, -0.01], [0.1, -0.03], [0.1, 0.05], [-0.1, 0.01]])
    p, r = deepest_point(trap, x=0.0)
    assert p[0] == 0.0
    # edges at x = 0: y = -0.02 (slope -0.1) and y = 0.03 (slope 0.2); equal
    # perpendicular distances (y + 0.02) c1 = (0.03 - y) c2 with c = cos(atan(slope))
    c1, c2 = np.cos(np.arctan(0.1)), np.cos(np.arctan(0.2))
    y = (0.03 * c2 - 0.02 * c1) / (c1 + c2)
    assert p[1] == pytest.approx(y, abs=1e-9)
    assert r == pytest.approx(polygon_margin(trap, p), abs=1e-9)
    assert deepest_point(trap)[1] > r  # further forward there is more room
