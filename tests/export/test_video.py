"""``robotsim export RUN --format mp4|gif``: real MuJoCo offscreen frames of the
recorded poses, encoded with PyAV (H.264) and Pillow (GIF), read back by a decoder."""

from __future__ import annotations

import av
import numpy as np
import pytest
from PIL import Image

from robotsim.cli import main
from robotsim.export import ExportError, load_replay
from robotsim.export.video import ReplayRenderer, frame_times, write_video
from robotsim.recording import Recorder, RunStore


@pytest.fixture(scope="module")
def replay(soccer_db):
    with RunStore(soccer_db) as store:
        return load_replay(store, "last")


def _robot_pixels(img: np.ndarray) -> int:
    """Pixels neither field green nor black background: the robot's grey and yellow."""
    r, g, b = (img[..., k].astype(int) for k in range(3))
    green = (g > r + 15) & (g > b + 15)
    dark = img.max(axis=-1) < 30
    return int((~green & ~dark).sum())


def test_frames_show_the_robot_where_the_run_has_it(replay) -> None:
    """A camera looking straight down at the robot's start: the robot is there at the
    start and has driven out of the picture by the end (a renderer ignoring the
    recorded poses would show it at the start all along)."""
    omni = replay.track("omni")
    x0, y0 = omni.T_world[0, 0, :2, 3]
    x1, y1 = omni.T_world[-1, 0, :2, 3]
    assert np.hypot(x1 - x0, y1 - y0) > 0.6
    cam = f"fixed:{x0},{y0 + 0.01},1.2,{x0},{y0},0"
    renderer = ReplayRenderer(replay, 96, 96, cam)
    try:
        first = renderer.frame(float(omni.t[0]))
        last = renderer.frame(float(omni.t[-1]))
    finally:
        renderer.close()
    assert first.shape == (96, 96, 3) and first.dtype == np.uint8
    assert _robot_pixels(first) > 300, _robot_pixels(first)
    assert _robot_pixels(last) < 20, _robot_pixels(last)


def test_mp4_decodes_with_the_frames_asked_for(soccer_db, tmp_path) -> None:
    out = tmp_path / "soccer.mp4"
    rc = main(
        [
            "export",
            "last",
            "--db",
            str(soccer_db),
            "--format",
            "mp4",
            "--out",
            str(out),
            "--width",
            "160",
            "--height",
            "120",
            "--fps",
            "10",
            "--camera",
            "follow:omni",
        ]
    )
    assert rc == 0
    with av.open(str(out)) as c:
        stream = c.streams.video[0]
        assert stream.codec_context.name == "h264"
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
    assert len(frames) == 20  # 0 .. 1.98 s at 10 fps
    assert frames[0].shape == (120, 160, 3)
    # the time overlay differs from frame to frame, the scene below it is drawn
    assert np.abs(frames[0][:12, :60].astype(int) - frames[15][:12, :60]).max() > 60
    assert frames[5][60:].std() > 5


def test_gif_holds_every_frame(replay, tmp_path) -> None:
    out = write_video(replay, tmp_path / "s.gif", "gif", 80, 60, fps=5, speed=2.0)
    with Image.open(out) as im:
        assert im.format == "GIF" and im.size == (80, 60)
        assert im.n_frames == len(frame_times(replay, 5, 2.0)) == 5
        assert im.info["duration"] == 200


def test_bad_video_options_are_one_line_errors(replay, tmp_path) -> None:
    with pytest.raises(ExportError, match="even"):
        write_video(replay, tmp_path / "a.mp4", "mp4", 161, 120)
    with pytest.raises(ExportError, match="fixed needs six numbers"):
        write_video(replay, tmp_path / "a.mp4", "mp4", 160, 120, camera="fixed:1,2")
    with pytest.raises(Exception, match="robot to follow"):
        write_video(replay, tmp_path / "a.mp4", "mp4", 160, 120, camera="follow:nobody")
    with pytest.raises(ExportError, match="valid: studio"):
        write_video(replay, tmp_path / "a.mp4", "mp4", 160, 120, camera="orbit")
    assert not list(tmp_path.iterdir())


def test_a_run_without_a_scene_cannot_be_filmed(tmp_path, capsys) -> None:
    db = tmp_path / "db"
    with Recorder(db) as rec:
        rec.start_run("signals only")
        rec.signal("bot", 0.0, ("x",), [1.0])
    rc = main(["export", "last", "--db", str(db), "--format", "mp4", "--out", str(tmp_path)])
    assert rc == 2
    assert "recorded no 3D scene" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]


def test_export_takes_the_max_memory_its_errors_name(soccer_db, tmp_path, capsys) -> None:
    """A GIF over the memory budget names ``--max-memory``: ``robotsim export`` takes it
    (the budget it sets is the one the refusal quotes), and nothing is written."""
    from robotsim.budget import DEFAULT_MAX_MEMORY, current_budget, set_budget

    gif = tmp_path / "big.gif"
    args = ["export", "last", "--db", str(soccer_db), "--format", "gif", "--out", str(gif)]
    try:
        assert main([*args, "--max-memory", "4M"]) == 2
        err = capsys.readouterr().err
        assert "more than the budget of 4.0 MB" in err and "--max-memory" in err
        assert err.count("\n") == 1 and not gif.exists()
        assert main([*args, "--width", "32", "--height", "24", "--fps", "2"]) == 0
        assert current_budget() == DEFAULT_MAX_MEMORY  # not given: the default again
    finally:
        set_budget(None)
