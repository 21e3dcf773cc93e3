"""Clearance scenarios in the studio: robots on their trajectories, each volume coloured
by its own distance (red in contact), distance curves with a cursor at the scene time."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.errors import ScenarioError
from robotsim.shipped import shipped_dir
from robotsim.studio.clearance.driver import (
    CONTACT_RGB,
    FAR_RGB,
    NEAR_RGB,
    ClearanceDriver,
    distance_rgb,
)
from robotsim.studio.clearance.panel import CURSOR_RGB

SCENARIOS = shipped_dir("scenario")
THREE = SCENARIOS / "three_puma_clearance.yaml"
FITTED = SCENARIOS / "two_puma_fitted_volumes.yaml"
EDGE = 1e-3  # s: ticks this close to an interval end are not checked


@pytest.fixture
def three(studio):
    studio.open(THREE)
    yield studio
    studio.clear()


def inside(t: float, intervals) -> bool | None:
    """True/False, or None within EDGE of an interval end."""
    for a, b in intervals:
        if abs(t - a) < EDGE or abs(t - b) < EDGE:
            return None
    return any(a <= t <= b for a, b in intervals)


def test_open_computes_the_clearance_and_draws_the_volumes(three):
    d = three.driver
    assert isinstance(d, ClearanceDriver)
    assert list(three.robots) == ["A", "B", "C"]
    assert set(d.result.pairs) == {"A-B", "A-C", "B-C"}
    assert len(d.result.pairs["A-B"].collision_intervals) == 1
    assert all(len(h) == 1 for h in d.volumes.values())  # one ellipsoid per arm
    # the robots stand where the scenario puts them
    for r in d.robots:
        np.testing.assert_allclose(three.robots[r.name].link_poses()[0], r.T_world_base, atol=1e-9)
    panel = three.panels["clearance"]
    assert panel.plot is not None and panel.plot.image.shape[0] > 100
    assert "three_puma_clearance" in panel.status.content
    assert "A-B" in panel.readout.content and "collisions" in panel.readout.content


def test_volumes_are_red_exactly_inside_the_collision_interval(three):
    d = three.driver
    ab = d.result.pairs["A-B"].collision_intervals
    seen = {True: 0, False: 0}
    while not d.finished:
        three.tick()
        t = three.clock.t
        want = inside(min(t, d.end), ab)
        if want is None:
            continue
        seen[want] += 1
        for robot in ("A", "B"):
            assert (d.volume_rgb[robot, "link3"] == CONTACT_RGB) == want, (robot, t)
            assert (d.robot_rgb[robot] == CONTACT_RGB) == want, (robot, t)
            (h,) = d.volumes[robot]
            assert tuple(h.color) == d.volume_rgb[robot, "link3"]
        assert d.volume_rgb["C", "link3"] != CONTACT_RGB  # C never touches anyone
        assert (d.now["A-B"] <= d.threshold) == want
    assert seen[True] > 20 and seen[False] > 100
    assert not three.clock.playing  # the run paused at its end


def test_live_distance_matches_the_computed_curve(three):
    d = three.driver
    res = d.result
    for k in (0, 100, 173, 204, 300, 400):
        d.apply(three, float(res.times[k]))
        for name, pair in res.pairs.items():
            assert d.now[name] == pytest.approx(pair.distance[k], abs=1e-6)


def test_the_cursor_follows_the_scene_time(three):
    panel = three.panels["clearance"]
    plot = panel.plot
    for _ in range(75):
        three.tick()
    three.step()  # emits the clock: the panel moves the cursor
    t = three.clock.t
    assert panel.cursor_t == pytest.approx(t)
    img = panel.plot_image.image
    mid = (plot.y0 + plot.y1) // 2
    col = plot.column(t)
    assert tuple(img[mid, col]) == CURSOR_RGB
    assert plot.column(0.0) == pytest.approx(plot.x0, abs=1)
    assert plot.column(d_end := three.driver.end) == pytest.approx(plot.x1, abs=1)
    assert col == pytest.approx(plot.x0 + t / d_end * (plot.x1 - plot.x0), abs=1)
    three.reset()
    assert panel.cursor_t == 0.0 and three.driver.t == 0.0
    assert tuple(panel.plot_image.image[mid, plot.column(t)]) != CURSOR_RGB


def test_distance_colours():
    assert distance_rgb(-0.1) == CONTACT_RGB
    assert distance_rgb(0.0) == CONTACT_RGB
    assert distance_rgb(0.005, threshold=0.01) == CONTACT_RGB
    assert distance_rgb(1e-6) == NEAR_RGB
    assert distance_rgb(5.0) == FAR_RGB
    assert distance_rgb(float("inf")) == FAR_RGB
    mid = distance_rgb(0.25)
    assert mid not in (NEAR_RGB, FAR_RGB, CONTACT_RGB)


def test_fitted_volumes_follow_the_links_and_use_the_threshold(studio):
    studio.open(FITTED)
    try:
        d = studio.driver
        assert isinstance(d, ClearanceDriver) and d.threshold == pytest.approx(0.01)
        assert {n: len(h) for n, h in d.volumes.items()} == {"A": 5, "B": 5}
        (a, b), _ = d.result.pairs["A-B"].collision_intervals
        studio.clock.steps = round(0.5 * (a + b) / studio.clock.dt) - 1
        studio.step()
        assert a < studio.clock.t < b
        assert d.robot_rgb["A"] == CONTACT_RGB == d.robot_rgb["B"]
        assert d.now["A-B"] <= 0.01
        curve = d.result.pairs["A-B"].distance  # the live distance is the exact one
        for k in (0, 60, 140, 170, 250, len(curve) - 1):
            d.apply(studio, float(d.result.times[k]))
            assert d.now["A-B"] == pytest.approx(curve[k], abs=1e-6)
    finally:
        studio.clear()


def test_a_bad_clearance_file_leaves_the_scene(studio, tmp_path):
    studio.open("puma560")
    bad = tmp_path / "bad.yaml"
    bad.write_text(THREE.read_text().replace("radii: [0.120", "radii: [-0.120", 1))
    with pytest.raises(ScenarioError, match=r"bad.yaml: robots\[0\].volumes\[0\].radii"):
        studio.open(bad)
    assert list(studio.robots) == ["puma560"]
    studio.clear()


def test_end_link_paths_are_drawn_as_labelled_polylines(three):
    """The paper's Fig. 9 in the studio: one polyline per robot through its end frame's
    positions over the run, in its own colour, labelled, removed with the scene."""
    from robotsim.clearance.report import end_paths
    from robotsim.studio.clearance.driver import PATH_RGB

    d = three.driver
    assert set(d.path_handles) == {"A", "B", "C"}
    for k, r in enumerate(d.robots):
        line, label, end = d.path_handles[r.name]
        p = d.paths[r.name]
        assert p.ndim == 2 and p.shape[1] == 3 and len(p) > 50
        # the segments chain the path points, in the robot's colour
        np.testing.assert_allclose(line.points[:, 0], p[:-1], atol=1e-6)
        np.testing.assert_allclose(line.points[:, 1], p[1:], atol=1e-6)
        assert np.all(np.asarray(line.colors) == PATH_RGB[k])
        assert label.text == f"path {r.name}"
        np.testing.assert_allclose(label.position, p[0], atol=1e-6)
        np.testing.assert_allclose(end.position, p[-1], atol=1e-6)
        # the end of the path is where the robot's end frame is at the end of the run
        ref = end_paths(d.loaded.scene, d.loaded.trajectories, np.array([0.0, d.end]))
        np.testing.assert_allclose(p[[0, -1]], ref[r.name], atol=1e-6)
        assert np.ptp(p, axis=0).max() > 0.05  # the arm really moves
    # the three paths differ (A/B/C are distinct arms)
    assert not np.allclose(d.paths["A"][-1], d.paths["B"][-1])
    panel = three.panels["clearance"]
    panel.show_paths.value = False
    d.set_paths_visible(False)
    assert not any(h.visible for hs in d.path_handles.values() for h in hs)
    d.set_paths_visible(True)
    kept = {id(h) for h in three.objects}  # removed with the scene
    assert all(id(h) in kept for hs in d.path_handles.values() for h in hs)


def test_each_volume_shows_its_own_distance(studio):
    """Inside an A-B collision only the touching links are red: a volume far from
    everything keeps its own colour. Each volume's distance is its nearest volume of the
    other arm as the run computes it (its per-link curves), and the nearest volume's is
    the pair's distance."""
    from robotsim.clearance import run

    studio.open(FITTED)
    try:
        d = studio.driver
        res = d.result
        (a, b), _ = res.pairs["A-B"].collision_intervals
        k = int(np.searchsorted(res.times, 0.5 * (a + b)))
        t = float(res.times[k])
        assert a < t < b
        d.apply(studio, t)  # a sample time of the run (the studio's ticks may miss it)
        now = d.now
        d.apply(studio, t)
        assert d.now is now  # the same time is not computed again
        L = d.loaded
        links = run(L.scene, L.trajectories, L.dt, t_start=t, t_end=t + 2 * L.dt,
                    link_pairs=True).pairs["A-B"].links  # fmt: skip
        A, B = d.robots
        for r, side in ((A, 0), (B, 1)):
            want = [min(c[0] for name, c in links.items() if name.split("-")[side] == label)
                    for label in d.labels[r.name]]  # fmt: skip
            np.testing.assert_allclose(d.volume_distance[r.name], want, atol=1e-9, rtol=0)
            assert d.volume_distance[r.name].min() == pytest.approx(
                res.pairs["A-B"].distance[k], abs=1e-9
            )
            red = [lab for lab, dist in zip(d.labels[r.name], want, strict=True)
                   if dist <= d.threshold]  # fmt: skip
            assert red, r.name  # some link of each arm touches the other
            for label, h, dist in zip(d.labels[r.name], d.volumes[r.name], want, strict=True):
                rgb = d.volume_rgb[r.name, label]
                assert (rgb == CONTACT_RGB) == (dist <= d.threshold), (r.name, label, dist)
                assert rgb == distance_rgb(dist, d.threshold) == tuple(h.color)
            assert d.robot_rgb[r.name] == CONTACT_RGB
        # A's shoulder box stays far from B's arm: not red while A's forearm touches
        assert d.volume_distance["A"][0] > 0.2
        assert d.volume_rgb["A", "link1"] not in (CONTACT_RGB, NEAR_RGB)
    finally:
        studio.clear()


def test_plan_section_plans_and_opens_the_planned_scenario(three):
    """The Clearance tab plans the open scenario (replan, margin 2 cm): certified
    collision free, files in the workspace, before/after shown; the planned scenario
    opens with its robots on the new trajectories and every pair clear."""
    section = three.panels["clearance"].plan
    before = three.driver.result.pairs["A-B"].min_distance
    s = section.run("replan", 0.02, budget_s=30)
    assert s["collision_free"] and s["certified"] and s["min_distance_lower_bound_m"] > 0.02
    assert section.paths["scenario"].is_relative_to(three.workspace.root)
    assert section.image.visible and section.image.image.shape[0] > 100
    assert "Collision free" in section.result.content and section.open_button.visible
    (c,) = s["changes"]  # the replan's timing, against the same path rest to rest
    assert f"rest to rest {c['rest_to_rest_added_time_s']:+.2f} s" in section.result.content
    section.open_planned()
    d = three.driver
    assert isinstance(d, ClearanceDriver) and before < 0
    assert all(not p.collision_intervals for p in d.result.pairs.values())
    assert min(p.min_distance for p in d.result.pairs.values()) > 0.02


def test_plan_runs_in_the_background_and_says_why_not(three):
    section = three.panels["clearance"].plan
    section.method.value = "delay"
    section.start()
    section.wait(120)
    assert not section.busy and section.summary is not None
    assert not section.summary["collision_free"]
    assert (
        "Not collision free" in section.result.content
        and "no start delay" in section.result.content
    )
