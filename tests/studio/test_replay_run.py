"""A stored run replayed in the studio: opened from its run store (the CLI's target,
the Open tab's fields), the robots where the run store has them at every scrubbed
time, play running to the run's end and pausing there; bad targets refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.errors import InputError
from robotsim.export import load_replay
from robotsim.recording import Recorder, RunStore
from robotsim.studio.replay import ReplayDriver, parse_run_target


@pytest.fixture(scope="module")
def soccer_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.getbasetemp() / "replayed"
    assert main(["run", "soccer_obstacles", "--out", str(out), "--duration", "1"]) == 0
    return out / "runs.sqlite"


def test_targets_name_a_store_and_a_run(soccer_run: Path) -> None:
    assert parse_run_target(f"{soccer_run}#3") == (str(soccer_run), "3")
    assert parse_run_target(str(soccer_run)) == (str(soccer_run), "last")
    assert parse_run_target(str(soccer_run.parent)) == (str(soccer_run), "last")
    assert parse_run_target("postgresql://u@h/db#2") == ("postgresql://u@h/db", "2")
    assert parse_run_target("puma560") is None
    assert parse_run_target(str(soccer_run.parent / "nothing.yaml")) is None


def test_a_stored_run_replays_and_scrubs(studio, soccer_run: Path) -> None:
    said = studio.open(f"{soccer_run}#last")
    assert said.startswith("run ") and "omni" in said
    driver = studio.driver_as(ReplayDriver)
    assert driver is not None
    with RunStore(soccer_run) as store:
        replay = load_replay(store, "last")
    track = replay.robots[0]
    assert studio.recorded_end() == pytest.approx(track.t[-1])
    view = studio.robot(track.name)
    for t in (0.0, 0.37, 0.8, 5.0):
        shown = studio.seek(t)
        i = int(track.index_at(shown))
        np.testing.assert_array_equal(view.link_poses(), track.T_world[i])
    # the robot moved during the run: the poses shown differ between start and end
    studio.seek(0.0)
    start = view.scene_link_poses()[0, :3].copy()
    studio.seek(track.t[-1])
    assert np.linalg.norm(view.scene_link_poses()[0, :3] - start) > 0.05
    # play from near the end runs to it and pauses there
    studio.seek(track.t[-1] - 5 * studio.dt)
    studio.play(True)
    for _ in range(20):
        if studio.playing:
            studio.tick()
    assert not studio.playing and studio.time == pytest.approx(track.t[-1], abs=studio.dt)
    np.testing.assert_array_equal(view.link_poses(), track.T_world[-1])


def test_the_open_tab_replays_a_run_store_folder(studio, soccer_run: Path) -> None:
    files = studio.panels["open"]
    files.open_run(str(soccer_run.parent), "1")
    assert studio.title.startswith("run 1 ")
    with pytest.raises(InputError, match="no run store"):
        files.open_run(str(soccer_run.parent / "missing"), "1")


def test_missing_running_and_sceneless_runs_are_refused(studio, soccer_run, tmp_path) -> None:
    title = studio.title
    with pytest.raises(InputError, match="unknown run"):
        studio.open(f"{soccer_run}#999")
    db = tmp_path / "open.sqlite"
    rec = Recorder(db)
    rec.start_run("open")
    rec.signal("bot", 0.0, ("x",), [1.0])
    rec.flush()
    try:
        with pytest.raises(InputError, match="still being written"):
            studio.open(str(db))
    finally:
        rec.finish("completed")
        rec.close()
    with pytest.raises(InputError, match="no 3D scene"):
        studio.open(str(db))
    assert studio.title == title  # the scene stayed as it was
