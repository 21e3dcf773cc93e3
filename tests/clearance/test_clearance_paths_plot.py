"""paths.png's direction arrows: long enough to see on a quintic move."""

from __future__ import annotations

import numpy as np

from robotsim.clearance.report import arrow_tail
from robotsim.clearance.trajectory import quintic_scale


def test_arrow_spans_a_length_not_a_count_of_samples() -> None:
    """A 0.6 m straight line with quintic timing, 401 samples: the last twelfth of the
    samples (the old tail) covers 2.8 mm, an arrow nobody sees; the tail is now 0.14 m
    (a tenth of a 1.4 m drawing) back along the path."""
    s = quintic_scale(np.linspace(0.0, 1.0, 401))
    p = np.stack([0.45 + 0.1 * s, -0.3 + 0.6 * s, np.full_like(s, 0.4)], axis=1)
    old = len(p) - len(p) // 12
    assert np.linalg.norm(p[-1] - p[old]) < 3e-3
    tail = arrow_tail(p, 0.14)
    along = np.sum(np.linalg.norm(np.diff(p[tail:], axis=0), axis=1))
    assert 0.14 <= along < 0.15  # the last point that far back, not further
    assert arrow_tail(p, 5.0) == 0  # a path shorter than the arrow: from its start
    assert arrow_tail(p[:1], 0.1) == 0
