"""Teleoperated grasping of a non-ball object in a real Chromium (issue 24 item 4):
``robotsim teleop --object box:... --keyboard``'s studio with the left hand already
around the box (the shipped transfer's reach pose; keying the arm down is
tests/studio/test_hands_object_studio.py), G held in the page closes the fingers until
all three touch, W lifts the box, H lets it go and it falls back on the table; the
Teleop tab shows the touches, who holds it and the events."""

from __future__ import annotations

import numpy as np
import pytest
from browser_helpers import ARTIFACTS, UI_TIMEOUT_MS, free_port, wait_for

from robotsim.cli.teleop import teleop_studio
from robotsim.hands import HandsScene
from robotsim.hands.run import make_sim
from robotsim.hands.scenario_spec import load_hand_scenario
from robotsim.hands.scene import default_scene
from robotsim.hands.teleop import HandsTeleop
from robotsim.objects import load_object
from robotsim.shipped import shipped_dir
from robotsim.studio.keyboard import BrowserKeyboard

pytestmark = pytest.mark.browser


def test_page_keys_grasp_lift_and_drop_a_box(tmp_path, browser) -> None:  # type: ignore[no-untyped-def]
    spec, shipped = load_hand_scenario(shipped_dir("scenario") / "hand_ball_transfer.yaml")
    reach = next(s for s in spec.steps() if s.label == "left hand down around the ball")
    m = shipped.robot
    box = load_object("box:0.045,0.045,0.045")
    sc = default_scene(m, box)
    q0 = m.q_from({f"L_{r}": v for r, v in reach.targets.items()}, base=sc.q0)
    scene = HandsScene(m, sc.T_world_robot, q0, sc.ball, sc.tables, sc.grasp, obj=sc.obj)
    sim = make_sim(scene, "kinematic", 1 / 60, None)
    keys = BrowserKeyboard("127.0.0.1")
    tele = HandsTeleop(sim, (), True, "L", keyboard_device=keys)
    studio = teleop_studio(tele, port=free_port(), root=str(tmp_path))
    p0 = np.array(sim.snapshot().ball_position)
    ctx = None
    try:
        studio.start()
        # the test process's Chromium (tests/browser/conftest.py), a fresh profile of its own
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        page = ctx.new_page()
        page.set_default_timeout(UI_TIMEOUT_MS)
        page.goto(studio.url)
        page.get_by_text("Reset hands and ball").wait_for()
        page.get_by_text(box.name, exact=False).first.wait_for()  # the object, named
        page.mouse.click(400, 400)  # focus the 3D view, as a person would
        wait_for(lambda: keys.events > 0, "the page script to reach the key endpoint")

        page.keyboard.down("g")
        wait_for(lambda: sim.grasped["L"], "the grasp")
        page.keyboard.up("g")
        assert sim.touch["L"] == (True, True, True)
        page.get_by_text("held by L", exact=False).first.wait_for()
        page.get_by_text("touch ● ● ●", exact=False).first.wait_for()

        page.keyboard.down("w")  # the shoulder lifts the box
        wait_for(lambda: sim.snapshot().ball_position[2] > p0[2] + 0.05, "the lift")
        page.keyboard.up("w")
        wait_for(lambda: "w" not in keys.poll().keys, "W released")
        held = sim.snapshot()
        assert held.grasped_by == ("L",) and held.ball_position[2] > p0[2] + 0.05
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "41_teleop_box_lifted.png"))

        page.keyboard.down("h")  # open: the box falls back on the table
        wait_for(lambda: not sim.grasped["L"], "the release")
        page.keyboard.up("h")
        wait_for(lambda: sim.snapshot().ball_resting, "the box to land")
        end = sim.snapshot()
        assert end.ball_surface == "table" and end.ball_position[2] < p0[2] + 0.01
        page.get_by_text("landed (table)", exact=False).first.wait_for()
        types = [e.type for e in sim.observable.events]
        # (a finger opening while H is still held may touch the falling box once more)
        assert types[:5] == ["touch"] * 3 + ["grasp", "release"] and types[-1] == "landed"
        assert types.count("grasp") == 1, types
        page.screenshot(path=str(ARTIFACTS / "42_teleop_box_dropped.png"))
    finally:
        if ctx is not None:
            ctx.close()
        studio.stop()
        tele.close()
        keys.close()
