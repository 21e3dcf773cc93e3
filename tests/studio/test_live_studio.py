"""The studio follows the live parameters (issue 13 item 9): its clock runs at the
time scale the keyboard or gamepad sets (simulated seconds per wall second, checked on
a driven wall clock, no real timing), and a playing motion changes speed level live
from the keypress on — the same poses, sooner or later — with the levels shown in the
Motion tab and the parameters in the Live parameters section."""

from __future__ import annotations

import pytest
import yaml

from robotsim.studio.clock import SimClock
from robotsim.teleop import InputSnapshot
from robotsim.teleop.keys import HeldKeys


class WallClock:
    """A wall clock the test moves by hand (s)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Keys:
    """Keys pressed by the test, polled like the page keyboard."""

    def __init__(self) -> None:
        self.held = HeldKeys()

    def poll(self) -> InputSnapshot:
        return self.held.snapshot()


@pytest.fixture
def live(studio):
    """The studio on a driven wall clock with a test keyboard on ``keyboard_studio``."""
    studio.clear()
    studio.add_robot("puma560")
    wall = WallClock()
    saved = studio.clock.wall
    studio.clock.wall = wall
    keys = Keys()
    studio.live.add("test keys", keys.poll)
    yield studio, wall, keys
    studio.live.remove("test keys")
    studio.clock.wall = saved
    studio.play(False)
    for name in ("time_scale", "speed_level_shift"):
        setattr(studio.params, name, 0.0 if name == "speed_level_shift" else 1.0)
    studio.clear()


def tap(studio, keys: Keys, key: str) -> None:
    """One press and release, read by the studio's device poll as its loop does."""
    keys.held.down(key)
    studio.live.poll()
    keys.held.up(key)
    studio.live.poll()


def run_wall(studio, wall: WallClock, seconds: float) -> int:
    """The update loop for ``seconds`` of wall time, one round per ``dt``; ticks run."""
    ran = 0
    for _ in range(round(seconds / studio.dt)):
        wall.now += studio.dt
        studio.live.poll()
        ran += studio.run_due()
    return ran


def test_the_clock_runs_at_the_time_scale_the_keys_set(live):
    studio, wall, keys = live
    studio.reset()
    studio.play(True)
    studio.run_due()  # the first call starts the wall count
    assert run_wall(studio, wall, 1.0) == 60
    assert studio.time == pytest.approx(1.0)
    tap(studio, keys, "]")
    assert studio.params.time_scale == 2.0
    assert run_wall(studio, wall, 1.0) == 120
    assert studio.time == pytest.approx(3.0)
    assert studio.real_time_factor == pytest.approx(2.0, rel=0.02)
    for _ in range(3):
        tap(studio, keys, "[")
    assert studio.params.time_scale == 0.25
    assert run_wall(studio, wall, 1.0) == 15
    assert studio.time == pytest.approx(3.25)
    studio.play(False)  # paused wall time does not count
    wall.now += 5.0
    assert studio.run_due() == 0
    studio.play(True)
    studio.run_due()
    assert run_wall(studio, wall, 0.5) == pytest.approx(7, abs=1)
    live_panel = studio.panels["live"]
    live_panel.refresh()
    assert "time ×0.25" in live_panel.readout.content
    assert "test keys" in live_panel.readout.content


def test_a_loop_that_fell_behind_does_not_burst():
    wall = WallClock()
    clock = SimClock(0.01, wall=wall)
    clock.playing = True
    clock.due()
    wall.now += 2.0  # two stalled seconds
    assert clock.due() == 2
    wall.now += 0.1  # woken 0.1 s late (a loaded machine): caught up, real time kept
    assert clock.due() == 10
    wall.now += 1.5  # later than the 1 s it catches up: a stall again
    assert clock.due() == 2
    clock.time_scale = 4.0
    wall.now += 0.01
    assert clock.due() == 4


MOTION = {
    "format": "robotsim-motion/1",
    "name": "nod",
    "interpolation": "linear",
    "keyframes": [
        {"name": "k0", "targets": {"joint2": 0}, "speed": 4},
        {"name": "k1", "targets": {"joint2": 10}, "speed": 4},
        {"name": "k2", "targets": {"joint2": 0}, "speed": 4, "hold": 0.2},
    ],
}  # moves of T(4) = 0.5 s (T(8) = 0.25 s), far below puma560's joint speed limits


@pytest.fixture
def playing(live, tmp_path):
    studio, _wall, keys = live
    path = tmp_path / "nod.yaml"
    path.write_text(yaml.safe_dump(MOTION, sort_keys=False))
    panel = studio.panels["motion"]
    panel.load(path)
    panel.play()
    yield studio, panel, keys
    panel.stop()
    panel.new()


def joint2_deg(studio) -> float:
    view = studio.robot("puma560")
    return float(view.q[view.model.joint_index("joint2")]) * 180.0 / 3.141592653589793


def test_a_faster_level_from_the_start_plays_the_same_poses_sooner(playing):
    studio, panel, keys = playing
    player = panel.player
    assert player.recorded_end() == pytest.approx(1.2)  # 0.5 + 0.5 + 0.2 s
    for _ in range(4):
        tap(studio, keys, "m")
    assert studio.params.speed_level_shift == 4
    assert player.recorded_end() == pytest.approx(0.7)  # level 8: 0.25 + 0.25 + 0.2 s
    for _ in range(21):  # 0.35 s: k1 reached at 0.25 s, then 0.1 of k2's 0.25 s
        studio.tick()
    assert joint2_deg(studio) == pytest.approx(10 * (1 - 0.4), abs=1e-9)
    assert player.level() == (4, 8)
    panel.refresh_readout()
    assert "speed level 4 → **8**" in panel.readout.content
    while studio.playing:
        studio.tick()
    assert player.finished and studio.time == pytest.approx(0.7, abs=studio.dt)
    assert joint2_deg(studio) == pytest.approx(0.0, abs=1e-9)


def test_a_level_change_mid_move_applies_from_the_press_and_scrubbing_shows_it(playing):
    studio, panel, keys = playing
    player = panel.player
    for _ in range(15):  # 0.25 s: halfway into k1 at level 4
        studio.tick()
    assert joint2_deg(studio) == pytest.approx(5.0, abs=1e-9)
    for _ in range(4):
        tap(studio, keys, "m")
    # the other half of k1 at level 8 (0.125 s), k2 at level 8, the hold
    assert player.recorded_end() == pytest.approx(0.25 + 0.125 + 0.25 + 0.2)
    for _ in range(3):  # 0.05 s of the remaining 0.125 s
        studio.tick()
    assert joint2_deg(studio) == pytest.approx(5.0 + 5.0 * 0.05 / 0.125, abs=1e-9)
    while studio.playing:
        studio.tick()
    assert player.finished and studio.time == pytest.approx(0.825, abs=studio.dt)
    # scrubbing back shows what was shown: level 4 before the press, 8 after it
    studio.seek(0.2)
    assert joint2_deg(studio) == pytest.approx(4.0, abs=1e-9)
    studio.seek(0.3)
    assert joint2_deg(studio) == pytest.approx(5.0 + 5.0 * 0.05 / 0.125, abs=1e-9)
    # back to the recorded levels: replaying from here plays on at level 4
    for _ in range(4):
        tap(studio, keys, "n")
    studio.play(True)
    studio.tick()
    assert player.recorded_end() == pytest.approx(
        0.3 + (0.5 - 0.5 * (5.0 + 5.0 * 0.05 / 0.125) / 10) + 0.5 + 0.2, abs=studio.dt
    )
