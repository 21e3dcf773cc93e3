"""A live driver's recording is bounded (issue 17): past its share of the memory budget
the frame log keeps every second frame (the stride doubles), so the time slider still
spans the whole run, at a coarser resolution, and the latest tick stays exact."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.budget import memory_budget
from robotsim.studio.drivers import FRAME_LOG_SHARE, FrameLog, frame_bytes


def test_the_log_thins_past_its_cap_and_still_spans_the_run() -> None:
    one = frame_bytes({"r": np.zeros((8, 4, 4))})
    log = FrameLog(max_bytes=40 * one)
    n = 10_000
    for k in range(n):
        log.add(k * 0.01, {"r": np.full((8, 4, 4), float(k))})
        assert log.nbytes <= log.max_bytes
    assert len(log) <= 40 and log.stride >= n // 40 and log.count == n
    assert log.times[0] == 0.0 and log.end == pytest.approx((n - 1) * 0.01)
    for k in range(0, n, 37):  # every time shows a frame at or before it, < stride back
        shown = int(log.at(k * 0.01)["r"][0, 0, 0])
        assert shown <= k and k - shown < log.stride
    assert int(log.at(log.end)["r"][0, 0, 0]) == n - 1  # the latest tick, exactly
    assert log.resolution == pytest.approx(log.stride * 0.01)
    log.clear()
    assert len(log) == 0 and log.stride == 1 and log.nbytes == 0


def test_the_default_cap_is_a_share_of_the_memory_budget() -> None:
    with memory_budget("1G"):
        assert FrameLog().max_bytes == 1024**3 // FRAME_LOG_SHARE


@pytest.mark.slow
def test_a_mobile_studio_run_stays_bounded_and_scrubbable(studio) -> None:  # type: ignore[no-untyped-def]
    studio.open("soccer_obstacles")
    d, view = studio.driver, studio.robot("omni")
    d.log.max_bytes = 24 * frame_bytes(d.log.frames[0])
    d.trace_points = 30  # the Mobile panel's traces thin out too
    shown = {0: view.link_poses().copy()}
    ticks = 400
    for k in range(1, ticks + 1):
        studio.step()
        shown[k] = view.link_poses().copy()
        assert d.log.nbytes <= d.log.max_bytes
    log = d.log
    assert len(log) <= 24 and log.stride >= 16
    assert studio.recorded_end() == pytest.approx(ticks * studio.dt)
    world_t = d.run.world.time
    assert len(d.t) <= 30 and d.trace_stride >= 2 and np.all(np.diff(d.t) > 0)
    assert world_t - d.t[-1] < d.trace_stride * d.run.tick + 1e-9  # up to the latest
    assert len(d.error["omni"]) == len(d.wheels["omni"]) == len(d.t)
    assert d.ticks == round(world_t / d.run.tick)
    for k in (0, 1, 57, 200, 333, ticks - 1, ticks):  # the slider spans the whole run
        t = studio.seek(k * studio.dt)
        assert t == pytest.approx(k * studio.dt)
        match = [j for j in range(k + 1) if np.array_equal(view.link_poses(), shown[j])]
        assert match and k - max(match) < log.stride  # a recorded tick at most a stride back
    np.testing.assert_array_equal(view.link_poses(), shown[ticks])  # the latest, exactly
    studio.seek(300 * studio.dt)
    for _ in range(ticks - 300):  # Play after the scrub replays the coarse recording
        studio.step()
    assert d.run.world.time == world_t
    np.testing.assert_array_equal(view.link_poses(), shown[ticks])
    studio.step()  # then simulates on
    assert d.run.world.time > world_t
