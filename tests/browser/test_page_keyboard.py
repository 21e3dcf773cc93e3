"""The studio page's keyboard drives an arm (robotsim teleop --keyboard, page source):
the panel shows the held key and the key table, and viser's camera keys stay still."""

from __future__ import annotations

import time
from functools import partial

import numpy as np
import pytest
from browser_helpers import ARTIFACTS, free_port

from robotsim.hands.run import make_sim
from robotsim.hands.scene import default_scene
from robotsim.hands.teleop import HandsTeleop
from robotsim.model import load_robot
from robotsim.studio import Studio
from robotsim.studio.app import SceneRobot
from robotsim.studio.drivers import PoseTour
from robotsim.studio.hands.driver import ROBOT_NAME, HandsDriver
from robotsim.studio.hands.panel import HandsPanel
from robotsim.studio.keyboard import BrowserKeyboard
from robotsim.studio.panels import Tab, default_tabs

pytestmark = pytest.mark.browser


def _settled_camera(client, still_s: float = 1.5, timeout_s: float = 60.0) -> np.ndarray:
    """The client's camera position once it has not changed for ``still_s`` seconds
    (the studio's initial framing and the page's resize reach it at their own pace on a
    loaded machine)."""
    last = np.array(client.camera.position)
    since = time.monotonic()
    deadline = since + timeout_s
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = np.array(client.camera.position)
        if not np.allclose(now, last, atol=1e-9):
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= still_s:
            break
    return last


def test_keys_held_in_the_page_move_the_left_shoulder(browser) -> None:  # type: ignore[no-untyped-def]
    sim = make_sim(default_scene(load_robot("dual_arm_hands")), "kinematic", 1 / 60, None)
    keys = BrowserKeyboard("127.0.0.1")
    tele = HandsTeleop(sim, (), True, "L", keyboard_device=keys)
    driver = HandsDriver(tele, ROBOT_NAME)
    tabs = [Tab("Teleop", "device-gamepad", partial(HandsPanel, teleop=tele)),
            *default_tabs()]  # fmt: skip
    drivers = {PoseTour.name: PoseTour, driver.name: lambda: driver}
    studio = Studio(port=free_port(), dt=sim.dt, tabs=tabs, drivers=drivers)
    try:
        robot = SceneRobot(sim.model, ROBOT_NAME, sim.scene.T_world_robot, sim.snapshot().q)
        studio.load_scene("teleop", [robot], driver=driver)
        studio.play(True)
        studio.start()
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            page = ctx.new_page()
            page.goto(studio.url)
            page.get_by_text("Reset hands and ball").wait_for(timeout=60_000)
            page.mouse.click(400, 400)  # focus the 3D view, as a person would
            deadline = time.monotonic() + 60
            while keys.events == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert keys.events > 0, "the page script never reached the key endpoint"
            j = sim.model.joint_index("L_shoulder_x")
            before = float(sim.snapshot().q[j])
            client = studio.clients()[0]
            deadline = time.monotonic() + 60  # the page reports its camera
            while client.camera._state.update_timestamp == 0.0 and time.monotonic() < deadline:
                time.sleep(0.05)
            camera = _settled_camera(client)  # the page's first camera moves are over
            page.keyboard.down("w")
            # the panel shows the held key live
            page.get_by_text("held: W").first.wait_for(timeout=60_000)
            deadline = time.monotonic() + 60
            while "w" not in keys.poll().keys and time.monotonic() < deadline:
                time.sleep(0.02)
            assert "w" in keys.poll().keys
            deadline = time.monotonic() + 60  # held until the joint moved (20 deg/s)
            while float(sim.snapshot().q[j]) - before < np.deg2rad(6) and (
                time.monotonic() < deadline
            ):
                time.sleep(0.05)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "16_teleop_held_w_camera_still.png"))
            page.keyboard.up("w")
            deadline = time.monotonic() + 60
            while keys.poll().keys and time.monotonic() < deadline:
                time.sleep(0.02)
            after = float(sim.snapshot().q[j])
            assert not keys.poll().keys  # released
            assert after - before > np.deg2rad(5)  # held until it moved
            page.get_by_text("held: none").first.wait_for(timeout=60_000)
            page.wait_for_timeout(1000)
            # viser's camera keys (W flies forward) did not move the camera
            np.testing.assert_allclose(client.camera.position, camera, atol=1e-6)
            assert page.get_by_text("L_shoulder_x +").first.is_visible()  # the key table
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "15_teleop_page_keyboard.png"))
        finally:
            ctx.close()
    finally:
        studio.stop()
        keys.close()
