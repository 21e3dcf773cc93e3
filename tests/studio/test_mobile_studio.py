"""Mobile scenarios in the studio: physics driver, poses from MuJoCo, goals, map."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from robotsim.errors import InputError
from robotsim.shipped import shipped_dir
from robotsim.studio.mobile.driver import MobileDriver
from robotsim.studio.mobile.panel import ground_point

SCENARIOS = shipped_dir("scenario")
SOCCER = SCENARIOS / "soccer_obstacles.yaml"


@pytest.fixture
def soccer(studio):
    studio.open(SOCCER)
    yield studio
    studio.clear()


def test_open_builds_the_field_and_the_physics_driver(soccer):
    d = soccer.driver
    assert isinstance(d, MobileDriver)
    assert list(soccer.robots) == ["omni"]
    # field + its soccer markings (the lines of the 2D map) + 8 obstacles + start and goal
    assert d.sc.field.markings == "soccer"
    assert len(soccer.objects) == 2 + len(d.obstacles) + 2
    base = soccer.robots["omni"].scene_link_poses()[0]
    np.testing.assert_allclose(base[:2], [-9.0, -5.0], atol=1e-3)
    panel = soccer.panels["mobile"]
    assert panel.map.image.shape[0] > 100  # the map was drawn
    assert panel.robot.value == "omni"


def test_playing_steps_the_physics_and_the_view_follows(soccer):
    d = soccer.driver
    view = soccer.robots["omni"]
    start = d.error["omni"] or [np.hypot(14.5, 10.0)]
    for _ in range(120):  # 2 s
        soccer.tick()
    soccer.push()
    assert d.run.world.time == pytest.approx(soccer.clock.t, abs=d.run.tick)
    assert d.error["omni"][-1] < start[0] - 0.5  # it drives toward the goal
    body = d.run.world.state().pose("omni/base")
    np.testing.assert_allclose(view.scene_link_poses()[0, :3], body[:3, 3], atol=1e-9)
    assert len(d.wheels["omni"][-1]) == 3
    soccer.reset()
    assert d.run.world.time == 0.0 and soccer.clock.t == 0.0


def test_goals_move_on_the_field_only(soccer):
    panel = soccer.panels["mobile"]
    panel.set_goal("omni", (1.0, 2.0))
    np.testing.assert_allclose(soccer.driver.goals["omni"][:2], [1.0, 2.0])
    np.testing.assert_allclose(soccer.driver.goal_markers["omni"].position[:2], [1.0, 2.0])
    with pytest.raises(InputError, match="off the field"):
        panel.set_goal("omni", (30.0, 0.0))
    soccer.reset()  # a moved goal survives a reset
    np.testing.assert_allclose(soccer.driver.goals["omni"][:2], [1.0, 2.0])


def test_ground_point_of_a_click_ray():
    np.testing.assert_allclose(ground_point([0, 0, 2], [0.6, 0, -0.8]), [1.5, 0, 0])
    assert ground_point([0, 0, 2], [1, 0, 0]) is None  # parallel to the ground
    assert ground_point([0, 0, 2], [0, 0, 1]) is None  # pointing up


def test_two_robot_scenario(studio):
    studio.open(SCENARIOS / "pid_p_vs_pd.yaml")
    try:
        assert set(studio.robots) == {"P", "PD"}
        assert studio.panels["mobile"].robot.options == ("P", "PD")
    finally:
        studio.clear()


def test_formation_scenario_plays(studio):
    """The studio steps a formation like ``robotsim run``: the followers' goals are their
    slots at the leader's pose."""
    from robotsim.mobile.formation import slot_poses

    studio.open(SCENARIOS / "formation_soccer.yaml")
    try:
        assert set(studio.robots) == {"L", "F1", "F2"}
        for _ in range(100):  # 1.67 s at 60 Hz
            studio.tick()
        run = studio.driver.run
        f = run.formation
        assert f is not None and len(f.errors) > 50
        slots = slot_poses(run.bases[f.leader].pose(), f.offsets)
        v = run.bases[f.leader].twist()
        for k, i in enumerate(f.followers):  # the slot, led by at most |v_slot| / kp
            kp = run.controllers[i].config.gains[0].kp
            lead = (np.hypot(v[0], v[1]) + abs(v[2]) * np.hypot(*f.offsets[k])) / kp
            gap = np.hypot(*(run.controllers[i].goal[:2] - slots[k, :2]))
            assert gap <= lead + 0.05
    finally:
        studio.clear()


def _wait_map(panel) -> None:  # type: ignore[no-untyped-def]
    """Until no map is being drawn off the caller's thread."""
    deadline = time.monotonic() + 60
    while panel.map_drawing:
        assert time.monotonic() < deadline, "the map drawing never ended"
        time.sleep(0.01)


def test_the_map_shows_where_the_clock_stopped(soccer):
    """While playing, the map is drawn at most once a second; the ticks run after the
    last drawing must show once the clock stops (it stayed up to a second behind). The
    loop's order of events, replayed without its thread."""
    d = soccer.driver
    panel = soccer.panels["mobile"]
    soccer.play(True)
    panel.refresh(force=True)  # a map of now: the next is a second away while playing
    drawn = panel.map_ticks
    for _ in range(30):
        soccer.tick()
    soccer.play(False)  # the clock event of Pause
    _wait_map(panel)
    assert drawn < d.ticks == panel.map_ticks
    np.testing.assert_array_equal(panel.map.image, panel.draw_map(d, d.trajectories()))
    maps = panel.map_updates
    soccer.emit("clock")  # the loop's next clock event: nothing new to draw
    _wait_map(panel)
    assert panel.map_updates == maps


def _hold_map_drawing(panel, entered, release):  # type: ignore[no-untyped-def]
    """Make the panel's maps drawn off the loop's thread set ``entered`` and wait for
    ``release`` before drawing; returns the panel's own ``draw_map`` to put back."""
    real = panel.draw_map

    def held(driver, trajectories):  # type: ignore[no-untyped-def]
        if threading.current_thread().name == "mobile-map":
            entered.set()
            assert release.wait(30)
        return real(driver, trajectories)

    panel.draw_map = held
    return real


def test_a_slow_map_never_replaces_a_newer_one(soccer):
    """A map drawn off the loop's thread that ends after a map of a newer state (a goal
    clicked meanwhile draws one at once) is dropped, not shown over it."""
    d = soccer.driver
    panel = soccer.panels["mobile"]
    entered, release = threading.Event(), threading.Event()
    real = _hold_map_drawing(panel, entered, release)
    try:
        for _ in range(30):
            soccer.tick()
        soccer.emit("clock")  # paused, ticks since the last map: one off the caller's thread
        assert entered.wait(30)
        old = d.ticks
        for _ in range(30):
            soccer.tick()
        panel.set_goal("omni", (1.0, 2.0))  # draws the newer state at once
        assert panel.map_ticks == d.ticks > old
        release.set()
        _wait_map(panel)
        assert panel.map_ticks == d.ticks  # the older drawing was dropped
    finally:
        release.set()
        panel.draw_map = real
        _wait_map(panel)


def test_a_map_still_drawing_when_the_studio_stops_is_dropped(tmp_path):
    """Panels hear ``stop`` first: a map that ends after it never reaches the stopped
    server (viser warned of a message queued on a closed connection)."""
    from robotsim.studio import Studio

    st = Studio(port=0, root=tmp_path)
    entered, release = threading.Event(), threading.Event()
    try:
        st.open(SOCCER)
        panel = st.panels["mobile"]
        _hold_map_drawing(panel, entered, release)
        for _ in range(30):
            st.tick()
        st.emit("clock")  # paused, ticks since the last map: one off the caller's thread
        assert entered.wait(30)
        maps = panel.map_updates
        st.stop()
        release.set()
        _wait_map(panel)
        assert panel.map_updates == maps
    finally:
        release.set()
        st.stop()


def test_the_studio_driver_follows_the_live_parameters(studio):
    # seed 002's parameter entry: the gamepad's and page keyboard's presses reach the run
    studio.open(SOCCER)
    params = studio.params
    try:
        params.apply(["max_speed_down"])
        params.apply(["mass_up"])
        studio.tick()
        run = studio.driver.run
        assert run.factors == {"gain": 1.0, "max_speed": 0.8, "mass": 1.25, "friction": 1.0}
        assert any("max speed ×0.8" in line for line in studio.driver.status())
    finally:
        params.apply(["max_speed_up"])
        params.apply(["mass_down"])
        studio.clear()


def test_the_studio_saves_what_it_showed_as_an_html_replay(soccer):
    """The Mobile tab's *Save replay (HTML)*: a file in the workspace whose poses are
    the ones the studio recorded and showed."""
    import json
    import re

    d = soccer.driver
    for _ in range(30):
        soccer.tick()
    path = soccer.panels["mobile"].export_html()
    assert path is not None and path.parent == soccer.workspace.root and path.is_file()
    text = path.read_text()
    data = json.loads(
        re.search(r'id="robotsim-data" type="application/json">(.*?)</script>', text, re.S)
        .group(1)
        .replace("<\\/", "</")
    )
    track = next(t for t in data["tracks"] if t["name"] == "omni")
    import base64

    pose = np.frombuffer(base64.b64decode(track["pose"]), "<f8").reshape(-1, track["frames"], 7)
    assert len(pose) == len(d.log.times) > 1
    last = d.log.frames[-1]["omni"]
    np.testing.assert_allclose(pose[-1, :, :3], last[:, :3, 3], atol=1e-12)
    path.unlink()
