"""The studio in a real browser: the page connects, renders the robot, a joint slider
moved in the page moves the robot, simulation buttons run the clock, a scenario opens
from the page and a bad file shows an error notification while the studio keeps
serving. Screenshots of each panel land in ``test-artifacts/browser/``."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from browser_helpers import UI_TIMEOUT_MS, close_notifications
from PIL import Image

pytestmark = pytest.mark.browser


def shot(page, path=None) -> np.ndarray:
    """A screenshot as an RGB array ``(H, W, 3)`` (saved to ``path`` too if given)."""
    png = page.screenshot(path=None if path is None else str(path))
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(np.int16)


def scene_area(img: np.ndarray) -> np.ndarray:
    """The 3D view left of the control panel."""
    return img[:, : int(img.shape[1] * 0.72)]


def changed_fraction(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean(np.abs(scene_area(a) - scene_area(b)).max(axis=-1) > 24))


def wait_for(cond, timeout=60.0, what="condition"):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def settled(page, wait_ms=1200) -> None:
    page.wait_for_timeout(wait_ms)  # let WebGL draw the last scene messages


def steady_shot(page, path=None, timeout=60.0) -> np.ndarray:
    """A screenshot once the 3D view has stopped changing (two in a row, 300 ms apart,
    alike): software WebGL on a loaded machine can take seconds to draw a frame."""
    last = shot(page)
    deadline = time.monotonic() + timeout
    while True:
        page.wait_for_timeout(300)
        img = shot(page)
        if changed_fraction(last, img) == 0.0:
            break
        if time.monotonic() > deadline:
            raise AssertionError("the 3D view never stopped changing")
        last = img
    if path is not None:
        shot(page, path)
    return img


def shot_until(page, cond, what, path=None, timeout=60.0) -> np.ndarray:
    """Screenshots until ``cond(img)`` holds (the page draws when it can), the last one
    saved to ``path``."""
    deadline = time.monotonic() + timeout
    while True:
        img = shot(page, path)
        if cond(img):
            return img
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what} in the page's picture")
        page.wait_for_timeout(300)


def field(page, label: str):
    """The input on the row labelled ``label`` (viser's labels do not point at it)."""
    return page.locator(
        f"xpath=//label[normalize-space()='{label}']"
        "/ancestor::div[contains(@class, 'mantine-Flex-root')][1]//input"
    )


def click_tab(page, label: str) -> None:
    page.get_by_role("tab", name=label).click()
    page.wait_for_timeout(300)


def test_page_renders_the_robot(page, studio, artifacts):
    click_tab(page, "View")
    drawn = steady_shot(page, artifacts / "01_view_panel.png")
    page.get_by_label("Visual geometry").click()  # hide the robot through the page
    wait_for(lambda: not studio.panels["view"].toggles["visual"].value, what="the toggle")
    # The robot covers a visible part of the view: hiding it changes those pixels.
    shot_until(page, lambda hidden: changed_fraction(drawn, hidden) > 0.01, "the robot hidden",
               artifacts / "02_view_panel_robot_hidden.png")  # fmt: skip
    page.get_by_label("Visual geometry").click()
    wait_for(lambda: studio.panels["view"].toggles["visual"].value, what="the toggle")
    # the checkbox value arrives before its callback has run
    wait_for(lambda: all(v.show["visual"] for v in studio.robots.values()), what="shown again")


def test_joint_slider_moves_the_robot(page, studio, artifacts):
    click_tab(page, "Pose")
    robot = studio.panels["pose"].robot.value
    view = studio.robots[robot]
    before_q = view.q.copy()
    before_nodes = view.scene_link_poses()
    before = steady_shot(page)
    label_id = page.locator("label", has_text="joint1 (°)").get_attribute("for")
    thumb = page.locator(f'[id="{label_id}"] [role="slider"]')
    thumb.focus()
    thumb.press("End")  # to the upper limit, as a user would with the keyboard
    upper = view.model.upper[0]
    wait_for(lambda: abs(view.q[0] - upper) < 1e-6, what="joint1 at its upper limit")
    wait_for(lambda: not view.dirty, what="the scene update")
    np.testing.assert_allclose(view.q[1:], before_q[1:])
    after_nodes = view.scene_link_poses()
    want = view.link_poses()
    np.testing.assert_allclose(after_nodes[:, :3], want[:, :3, 3], atol=1e-9)
    assert np.abs(after_nodes[1:, :3] - before_nodes[1:, :3]).max() > 0.05  # links moved
    shot_until(page, lambda after: changed_fraction(before, after) > 0.005, "the arm moved",
               artifacts / "03_pose_panel_joint1_moved.png")  # fmt: skip
    # The page shows the new value next to the slider.
    assert field(page, "joint1 (°)").last.input_value() == f"{np.degrees(upper):g}"


def test_play_and_pause_from_the_page(page, studio, artifacts):
    page.get_by_role("button", name="Play", exact=True).click()
    wait_for(lambda: studio.clock.t > 0.5, what="simulated time to pass")
    page.get_by_text("playing").first.wait_for(timeout=UI_TIMEOUT_MS)
    shot(page, artifacts / "04_simulation_playing.png")
    page.get_by_role("button", name="Pause", exact=True).click()
    wait_for(lambda: not studio.clock.playing, what="pause")
    t = studio.clock.t
    page.wait_for_timeout(300)
    assert studio.clock.t == t
    page.get_by_role("button", name="Reset", exact=True).click()
    wait_for(lambda: studio.clock.t == 0.0, what="reset")


def test_open_scenario_and_bad_file_from_the_page(page, studio, artifacts, tmp_path):
    scenario = tmp_path / "three_arms.yaml"
    scenario.write_text(
        "units: {angle: deg}\n"
        "robots:\n"
        "  A: {robot: puma560, base: {xyz: [0, 0, 0]}, q: [0, 45, -90, 0, 30, 0]}\n"
        "  B: {robot: puma560, base: {xyz: [1.4, 0, 0], rpy: [0, 0, 180]}}\n"
        "  C: {robot: puma560, base: {xyz: [0.7, 1.2, 0], rpy: [0, 0, -90]}}\n"
    )
    click_tab(page, "Open")
    shot(page, artifacts / "05_open_panel.png")
    field(page, "Robot file").fill(str(scenario))
    page.get_by_role("button", name="Open file", exact=True).click()
    wait_for(lambda: set(studio.robots) == {"A", "B", "C"}, what="the scenario's robots")
    np.testing.assert_allclose(studio.robots["B"].state.T_world_root[:3, 3], [1.4, 0, 0])
    page.get_by_text("scenario three_arms").first.wait_for(timeout=UI_TIMEOUT_MS)
    settled(page, 2000)
    shot(page, artifacts / "06_scenario_three_arms.png")

    field(page, "Robot file").fill(str(tmp_path / "missing.urdf"))
    page.get_by_role("button", name="Open file", exact=True).click()
    page.get_by_text("missing.urdf").first.wait_for(timeout=UI_TIMEOUT_MS)  # the notification
    page.wait_for_timeout(600)  # its slide-in animation
    shot(page, artifacts / "07_error_notification.png")
    assert set(studio.robots) == {"A", "B", "C"}  # the scene stayed, the server serves
    close_notifications(page)
    click_tab(page, "Pose")
    labels = page.locator("label", has_text="joint")
    # the page shows the first robot's six sliders once their messages have arrived
    wait_for(lambda: sum(lb.is_visible() for lb in labels.all()) == 6,
             what=f"six joint sliders (errors: {studio.errors})")  # fmt: skip
    settled(page)
    shot(page, artifacts / "08_pose_panel_scenario.png")


def test_scenario_picker_lists_and_opens_shipped_scenarios(page, studio, artifacts):
    from robotsim.studio.scenarios import list_scenarios

    shipped = [p.stem for p in list_scenarios()]
    assert shipped, "scenarios/ ships no scenario"
    click_tab(page, "Open")
    page.get_by_role("button", name="Rescan", exact=True).click()
    field(page, "Scenario").first.click()
    options = page.get_by_role("option")
    options.first.wait_for(timeout=UI_TIMEOUT_MS)
    assert sorted(o.inner_text() for o in options.all()) == sorted(shipped)
    name = shipped[0]
    page.get_by_role("option", name=name, exact=True).click()
    wait_for(lambda: studio.panels["open"].scenario.value == name, what="the choice")
    page.get_by_role("button", name="Open scenario", exact=True).click()
    page.get_by_text(f"scenario {name}").first.wait_for(timeout=UI_TIMEOUT_MS)
    assert studio.robots
    settled(page, 2000)
    shot(page, artifacts / f"09_shipped_scenario_{name}.png")


def test_motion_editor_captures_thumbnails_and_plays(page, studio, artifacts):
    studio.load_default()
    editor = studio.panels["motion"]
    editor.render_timeout = UI_TIMEOUT_MS / 1000  # a loaded machine renders slowly
    editor.new()
    robot = editor.robot.value
    click_tab(page, "Motion")
    page.get_by_role("button", name="Capture pose", exact=True).click()
    wait_for(lambda: editor.motion() is not None and len(editor.rows) == 1, what="keyframe 1")
    joint = studio.robots[robot].model.joint_names[-1]
    studio.set_joint(robot, joint, 0.5)
    page.get_by_role("button", name="Capture pose", exact=True).click()
    wait_for(lambda: len(editor.rows) == 2, what="keyframe 2")
    assert editor.last_source == "browser"  # the page rendered the thumbnails
    # the keyframe strip: both thumbnails in one picture, the keyframe list beside it
    assert editor.rows == ["pose1", "pose2"] and editor.strip.visible
    wait_for(lambda: editor.keyframe_select.value == "2. pose2", what="the new keyframe chosen")
    wait_for(lambda: field(page, "Keyframe").first.input_value() == "2. pose2", what="the page")
    settled(page, 800)
    shot(page, artifacts / "10_motion_two_keyframes.png")
    page.get_by_role("button", name="Play motion", exact=True).click()
    wait_for(lambda: editor.player is not None and editor.player.finished, timeout=60,
             what="the motion to end")  # fmt: skip
    page.get_by_text("finished").first.wait_for(timeout=UI_TIMEOUT_MS)
    settled(page, 800)
    shot(page, artifacts / "11_motion_played_to_end.png")
    editor.stop()
    editor.render_timeout = 10.0


def test_mobile_map_plots_and_goal_by_clicking_the_ground(page, studio, artifacts):
    from robotsim.studio.scenarios import list_scenarios

    soccer = next(p for p in list_scenarios() if p.stem == "soccer_obstacles")
    studio.open(soccer)
    panel = studio.panels["mobile"]
    click_tab(page, "Mobile")
    page.get_by_text("Top-down map").first.wait_for(timeout=UI_TIMEOUT_MS)
    page.get_by_role("button", name="Play", exact=True).click()
    wait_for(lambda: studio.clock.t > 2.0, timeout=60, what="the robot to drive")
    page.get_by_role("button", name="Pause", exact=True).click()
    wait_for(lambda: not studio.clock.playing, what="pause")
    panel.refresh(force=True)
    settled(page, 1500)
    shot(page, artifacts / "12_mobile_map_and_plots.png")
    before = studio.driver.goals["omni"].copy()
    page.get_by_label("Click ground = goal").click()
    # the checkbox value arrives before its callback has registered the scene click, and
    # the page only reports clicks once that registration has reached it: click again
    # until the goal moves (each click on the field sets a goal; repeats are harmless)
    wait_for(lambda: panel._clicks, what="click mode")
    moved = lambda: not np.allclose(studio.driver.goals["omni"], before)  # noqa: E731
    for _ in range(12):
        close_notifications(page)
        page.mouse.click(600, 440)  # on the field (the camera frames it left of the panel)
        try:
            wait_for(moved, timeout=5.0, what="a new goal")
            break
        except AssertionError:
            continue
    wait_for(moved, timeout=5.0, what="a new goal")
    goal = studio.driver.goals["omni"]
    assert abs(goal[0]) <= 10 and abs(goal[1]) <= 7
    settled(page, 1500)
    shot(page, artifacts / "13_mobile_goal_clicked.png")
    page.get_by_label("Click ground = goal").click()
    wait_for(lambda: not panel.click_goal.value, what="click mode off")


def test_clearance_scenario_colours_volumes_and_plots_distances(page, studio, artifacts):
    click_tab(page, "Open")
    page.get_by_role("button", name="Rescan", exact=True).click()
    field(page, "Scenario").first.click()
    page.get_by_role("option", name="three_puma_clearance", exact=True).click()
    wait_for(lambda: studio.panels["open"].scenario.value == "three_puma_clearance",
             what="the choice")  # fmt: skip
    page.get_by_role("button", name="Open scenario", exact=True).click()
    page.get_by_text("scenario three_puma_clearance").first.wait_for(timeout=UI_TIMEOUT_MS)
    driver = studio.driver
    assert driver.name == "clearance" and set(studio.robots) == {"A", "B", "C"}
    click_tab(page, "Clearance")
    page.get_by_text("Distance vs time").first.wait_for(timeout=UI_TIMEOUT_MS)
    page.get_by_role("button", name="Play", exact=True).click()
    wait_for(lambda: studio.clock.t > 0.5, timeout=60, what="the clock to run")
    page.get_by_role("button", name="Pause", exact=True).click()
    wait_for(lambda: not studio.clock.playing, what="pause")
    a, b = driver.result.pairs["A-B"].collision_intervals[0]
    studio.clock.steps = round(0.5 * (a + b) / studio.clock.dt) - 1
    studio.step()  # into the A-B collision: their ellipsoids turn red, C's does not
    assert driver.volume_rgb["A", "link3"] == (220, 40, 40) == driver.volume_rgb["B", "link3"]
    assert driver.volume_rgb["C", "link3"] != (220, 40, 40)
    assert all(tuple(h.color) == (220, 40, 40) for r in "AB" for h in driver.volumes[r])
    panel = studio.panels["clearance"]
    # The step's refresh is served at once, or by the loop's refresh running beside it.
    wait_for(lambda: panel.cursor_t == studio.clock.t, what="the cursor at the new time")
    page.get_by_text("IN CONTACT").first.wait_for(timeout=UI_TIMEOUT_MS)

    def red_drawn(img: np.ndarray) -> bool:
        scene = scene_area(img)
        red = (scene[..., 0] > 150) & (scene[..., 1] < 110) & (scene[..., 2] < 110)
        return red.sum() > 200

    shot_until(page, red_drawn, "the red ellipsoids", artifacts / "14_clearance_panel.png")
