"""A time typed into the number box beside the studio's time slider stays typed.

The page sends the value on every keystroke and viser applies it to the slider before
it runs the panel's callback on another thread. The loop's periodic readout refresh
(or the seek of the previous keystroke) used to run in between, write the current time
back into the slider and so make the callback seek to the old time: the typed value
reverted. These tests replay that order of events on a real studio.
"""

from __future__ import annotations

import time

import pytest


def _wait_seeked(panel, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while panel.seeking:
        assert time.monotonic() < deadline, "the typed time was never sought"
        time.sleep(0.01)


@pytest.fixture
def recorded(studio):
    """soccer_obstacles with 1 s recorded, paused at 0 s."""
    studio.open("soccer_obstacles")
    for _ in range(60):
        studio.step()
    studio.seek(0.0)
    sim = studio.panels["sim"]
    assert sim.slider.value == 0.0 and sim.slider.max == pytest.approx(1.0)
    return studio, sim


def test_a_refresh_between_the_typed_value_and_its_callback_keeps_it(recorded):
    studio, sim = recorded
    sim.slider.value = 0.5  # viser applies the page's message ...
    sim.refresh()  # ... the loop's readout refresh runs before the callback ...
    assert sim.slider.value == 0.5  # (it used to write 0.0 back here)
    sim.typed(sim.slider.value)  # ... and the callback reads the slider
    _wait_seeked(sim)
    assert studio.time == pytest.approx(0.5) and not studio.playing
    assert sim.slider.value == pytest.approx(0.5)
    sim.refresh()
    assert sim.slider.value == pytest.approx(0.5)


def test_keystrokes_seek_to_the_last_value_typed(recorded):
    studio, sim = recorded
    for text in ("0", "0.7", "0.75"):  # "0." is partial: the page does not send it
        sim.slider.value = float(text)
        sim.typed(float(text))
        sim.refresh()
    _wait_seeked(sim)
    assert studio.time == pytest.approx(0.75)
    assert sim.slider.value == pytest.approx(0.75)


def test_a_typed_time_after_opening_another_scenario(recorded):
    studio, sim = recorded
    studio.open("pid_p_vs_pd")
    assert sim.slider.value == 0.0
    for _ in range(120):
        studio.step()
    studio.seek(0.0)
    end = studio.recorded_end()
    assert end == pytest.approx(2.0) and sim.slider.max == pytest.approx(2.0)
    sim.slider.value = 1.5
    sim.refresh()
    sim.typed(1.5)
    _wait_seeked(sim)
    assert studio.time == pytest.approx(1.5) and sim.slider.value == pytest.approx(1.5)
    # a time beyond the run is clamped to its end, and the slider says so
    sim.slider.value = 99.0
    sim.typed(99.0)
    _wait_seeked(sim)
    assert studio.time == pytest.approx(end, abs=studio.dt)
    assert sim.slider.value == pytest.approx(min(round(studio.time, 2), sim.slider.max))
