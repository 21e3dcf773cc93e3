"""The studio's time line: Step advances exactly one tick, Pause stops at once, the time
slider shows the recorded state of mobile, hands, clearance and motion runs, and Play
after a scrub replays the recording before it simulates on."""

from __future__ import annotations

import socket
import time

import numpy as np
import pytest

from robotsim.errors import InputError
from robotsim.studio import Studio
from robotsim.studio.drivers import FrameLog


def test_frame_log_returns_the_latest_frame_not_after_t():
    log = FrameLog()
    assert log.end == 0.0 and not log.covers(0.0)
    for k in range(4):
        log.add(k * 0.1, k)
    assert log.at(0.0) == 0 and log.at(0.1) == 1 and log.at(0.25) == 2 and log.at(9.0) == 3
    assert log.at(-1.0) == 0
    assert log.covers(0.3) and not log.covers(0.31)
    with pytest.raises(ValueError, match="not after"):
        log.add(0.3, 9)


def test_step_is_one_tick_and_the_slider_replays_a_mobile_run(studio):
    studio.open("soccer_obstacles")
    d, view = studio.driver, studio.robot("omni")
    assert studio.recorded_end() == 0.0
    shown = {}
    for k in range(1, 31):
        studio.step()
        assert studio.clock.steps == k and studio.time == pytest.approx(k * studio.dt)
        shown[k] = view.link_poses().copy()
    assert studio.recorded_end() == pytest.approx(30 * studio.dt)
    world_t = d.run.world.time
    assert studio.seek(10.4 * studio.dt) == pytest.approx(10 * studio.dt)
    assert not studio.playing
    np.testing.assert_allclose(view.link_poses(), shown[10], atol=1e-12)
    assert shown[10][0, 0, 3] != shown[30][0, 0, 3] or shown[10][0, 1, 3] != shown[30][0, 1, 3]
    sim = studio.panels["sim"]
    assert not sim.slider.disabled and sim.slider.value == pytest.approx(studio.time, abs=0.006)
    assert sim.slider.max == pytest.approx(round(30 * studio.dt, 2))
    for k in range(11, 31):  # Play after a scrub replays the recording first
        studio.step()
        np.testing.assert_allclose(view.link_poses(), shown[k], atol=1e-12)
    assert d.run.world.time == world_t  # nothing was simulated again
    studio.step()  # then simulates on
    assert d.run.world.time > world_t and studio.clock.steps == 31
    assert studio.seek(99.0) == pytest.approx(studio.recorded_end())  # clamped
    assert studio.seek(-5.0) == 0.0


def test_clearance_slider_stops_inside_the_collision(studio):
    studio.open("three_puma_clearance")
    d = studio.driver
    assert studio.recorded_end() == pytest.approx(d.end)  # the whole run, before playing
    a, b = d.result.pairs["A-B"].collision_intervals[0]
    t = studio.seek(0.5 * (a + b))
    assert a <= t <= b and studio.clock.steps == round(t / studio.dt)
    assert d.volume_rgb["A", "link3"] == (220, 40, 40) == d.volume_rgb["B", "link3"]
    assert studio.panels["clearance"].cursor_t == pytest.approx(t)
    studio.seek(d.end)
    assert d.finished
    studio.seek(0.0)
    assert not d.finished and d.volume_rgb["A", "link3"] != (220, 40, 40)


def test_hands_script_is_recorded_and_scrubbed(studio):
    studio.open("hand_ball_transfer")
    d = studio.driver
    view = studio.robot("hands")
    qs, balls = {}, {}
    for k in range(1, 41):
        studio.step()
        qs[k] = view.q.copy()
        balls[k] = np.array(d.ball.position)
    assert not np.allclose(qs[5], qs[40])
    studio.seek(5 * studio.dt)
    np.testing.assert_allclose(view.q, qs[5])
    np.testing.assert_allclose(d.ball.position, balls[5])
    sim_q = np.asarray(d.sim.snapshot().q)
    np.testing.assert_allclose(sim_q, qs[40])  # the simulation itself stays at the end
    studio.step()
    np.testing.assert_allclose(view.q, qs[6])


def test_motion_playback_is_scrubbed(studio):
    studio.clear()
    studio.add_robot("humanoid17")
    editor = studio.panels["motion"]
    editor.new()
    editor.speed.value = 8
    editor.capture()
    studio.set_joint("humanoid17", "left_shoulder_pitch", 0.6)
    editor.capture()
    editor.play()
    studio.play(False)
    p = editor.player.prepared
    assert studio.recorded_end() == pytest.approx(p.duration)
    i = len(p.t) // 2
    studio.seek(p.t[i])
    np.testing.assert_allclose(studio.robot("humanoid17").q, p.q[i])
    assert not editor.player.finished
    studio.seek(p.duration)
    assert editor.player.finished
    editor.stop()
    editor.new()


def test_pose_tour_has_nothing_to_scrub(studio):
    studio.load_default()
    assert studio.recorded_end() is None
    assert studio.panels["sim"].slider.disabled
    with pytest.raises(InputError, match="no recorded run"):
        studio.seek(1.0)


def test_pause_stops_the_loop_at_once():
    st = Studio(port=_free_port())
    st.open("three_puma_clearance")
    st.start()
    try:
        st.play(True)
        deadline = time.monotonic() + 30
        while st.clock.steps < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        st.play(False)
        steps = st.clock.steps
        time.sleep(0.2)
        assert steps >= 5 and st.clock.steps == steps  # no tick after play(False) returned
    finally:
        st.stop()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
