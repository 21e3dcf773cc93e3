"""A walk scenario in the studio: the physics walk follows the clock, the Walk panel's
sliders steer it, the planned footsteps are drawn, stop stands it still."""

from __future__ import annotations

import pytest

from robotsim.shipped import shipped_dir
from robotsim.studio.walk.driver import WalkDriver

WALK = shipped_dir("scenario") / "walk_commands.yaml"

pytestmark = pytest.mark.slow


@pytest.fixture
def walking(studio, tmp_path):
    f = tmp_path / "walk_here.yaml"  # no scheduled commands: the panel steers
    f.write_text(
        "format: robotsim-scenario/1\nkind: walk\nname: walk_here\nrobot: humanoid17\n"
        "duration: 60\n"
    )
    studio.open(f)
    yield studio
    studio.clear()


def test_the_shipped_walk_opens(studio):
    studio.open(WALK)
    assert isinstance(studio.driver, WalkDriver) and len(studio.driver.commands) == 4
    studio.clear()


def test_the_walk_follows_the_clock_and_the_sliders(walking):
    d = walking.driver
    assert isinstance(d, WalkDriver)
    panel = walking.panels["walk"]
    assert "humanoid17" in panel.status.content
    # humanoid17's legs have no hip yaw: the page says Q/E cannot turn it
    assert d.limits[2] == 0 and "turn none (its steps cannot turn)" in d.status()
    panel.vx.value = 0.1  # steer from the panel (before the file's first command)
    panel.send_sliders()
    for _ in range(150):  # 2.5 s of studio ticks
        walking.tick()
    walking.push()
    sim = d.sim
    assert sim.t == pytest.approx(walking.clock.t, abs=d.sim.dt + 1e-9)
    assert not sim.fell
    x0 = d.sim.base.pose[0, 3]
    assert d._footprints, "the planned footsteps are drawn"
    view = walking.robots["humanoid17"]
    assert abs(view.scene_link_poses()[0, 0] - x0) < 1e-9  # the view shows the physics
    for _ in range(120):
        walking.tick()
    assert d.sim.base.pose[0, 3] > x0 + 0.05  # it walked on
    panel.stop.value = None  # the Stop button's handler
    for s in (panel.vx, panel.vy, panel.wz):
        s.value = 0
    panel.send_sliders()
    for _ in range(240):
        walking.tick()
    assert not d.driver.engine.walking and not d.sim.fell
    walking.reset()
    assert d.sim.t == 0.0


def _post_key(port: int, token: str, origin: str, kind: str, key: str) -> int:
    """A key event as the studio page posts it (real HTTP over a real socket)."""
    import socket

    body = f'{{"type": "{kind}", "key": "{key}"}}'.encode()
    head = (f"POST /keys?k={token} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: {origin}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")  # fmt: skip
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head.encode() + body)
        return int(s.recv(4096).decode().split()[1])


def _ticks(studio, n: int) -> None:  # type: ignore[no-untyped-def]
    """``n`` studio ticks, with the clock event the studio's loop sends every 0.25 s
    (the panels read their devices on it)."""
    for k in range(n):
        if k % 15 == 0:
            studio.emit("clock")
        studio.tick()


def test_the_page_keys_walk_it_and_letting_go_stops_it(walking):
    """The Walk tab's Keyboard: W held in the page (posted as the page's script posts
    it) walks the robot forward with its footsteps drawn; released, it stands."""
    d = walking.driver
    panel = walking.panels["walk"]
    panel.use_keyboard(True)
    try:
        kb = panel.keyboard
        origin = f"http://127.0.0.1:{walking.port}"
        assert _post_key(kb.port, kb.token, "http://evil.example", "down", "w") == 403
        x0 = d.sim.base.pose[0, 3]
        assert _post_key(kb.port, kb.token, origin, "down", "w") == 204
        _ticks(walking, 180)  # 3 s
        assert d.driver.engine.command[0] > 0 and d._footprints
        assert not d.sim.fell and d.sim.base.pose[0, 3] > x0 + 0.05
        assert _post_key(kb.port, kb.token, origin, "up", "w") == 204
        _ticks(walking, 240)
        assert d.driver.engine.command == (0.0, 0.0, 0.0)
        assert not d.driver.engine.walking and not d.sim.fell
    finally:
        panel.use_keyboard(False)


def test_a_gamepad_stick_walks_it_and_the_speed_step_scales_it(walking):
    """The Walk tab's Gamepad (SDL through pygame, a virtual pad SDL sees as a USB one):
    the left stick pushed forward asks the cruise speed, the clock starts playing by
    itself, the base walks forward; the speed-down button halves the command; the right
    stick turns it; the stick let go stops the walk."""
    from robotsim.teleop import VirtualGamepad

    d = walking.driver
    panel = walking.panels["walk"]
    walking.play(False)
    panel.use_gamepad(True)  # opens SDL's joysticks: the virtual pad is plugged in after
    try:
        with VirtualGamepad(naxes=4, nbuttons=8, nhats=1) as pad:
            pad.set_axis(1, -1.0)  # left stick fully forward (SDL y is +1 down)
            panel.poll_devices()
            assert d.velocity == pytest.approx((d.cruise[0], 0.0, 0.0))
            assert walking.playing, "steering a paused studio plays its clock"
            x0, y0 = d.sim.base.pose[:2, 3]
            _ticks(walking, 180)  # 3 s
            x1, y1 = d.sim.base.pose[:2, 3]
            assert not d.sim.fell and x1 > x0 + 0.05 and abs(y1 - y0) < 0.5 * (x1 - x0)
            assert d._footprints, "the planned footsteps are drawn"
            pad.set_button(4, True)  # L1: one speed level down (x0.5)
            panel.poll_devices()
            pad.set_button(4, False)
            panel.poll_devices()
            assert d.velocity[0] == pytest.approx(0.5 * d.cruise[0])
            pad.set_axis(1, 0.0)
            pad.set_axis(3, -1.0)  # right stick left: turn left (positive yaw rate)
            panel.poll_devices()
            assert d.velocity[0] == 0.0 and d.velocity[2] == pytest.approx(0.5 * d.cruise[2])
            pad.set_axis(3, 0.0)
            panel.poll_devices()
            assert d.velocity == (0.0, 0.0, 0.0)
            _ticks(walking, 240)
            assert not d.driver.engine.walking and not d.sim.fell
    finally:
        panel.use_gamepad(False)
        walking.play(False)
