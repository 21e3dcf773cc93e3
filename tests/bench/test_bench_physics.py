"""``robotsim bench physics``: the unqueued real-time factor (run-queue wait taken out)."""

from __future__ import annotations

import sys

import pytest

from robotsim.bench import physics


@pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="the *_unqueued figures read /proc/self/task/TID/schedstat, which only Linux has",
)
def test_rtf_unqueued_takes_out_only_the_wait_for_a_core() -> None:
    q0 = physics._queued_s()
    wall, cpu, unqueued = physics._rtf(physics._soccer_data(), 0.5)
    assert physics._queued_s() >= q0 >= 0.0
    assert wall > 0 and cpu > 0
    assert unqueued >= wall  # the same simulated time over at most the same wall time
