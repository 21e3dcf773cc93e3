"""``robotsim export RUN --format mp4|gif``: the run rendered offscreen, with a time
overlay.

The replay's scene is compiled once into a MuJoCo model of posed shapes: one free
body per visual shape (a link's or a moving object's), static bodies for static
objects, the ground and a field box. Nothing is ever stepped: each video frame puts
every shape where the recorded poses say (the sample at or before the frame's time),
recomputes the body poses (:meth:`robotsim.physics.World.sync_poses`) and renders with
MuJoCo's offscreen renderer on EGL (:class:`robotsim.sensors.WorldRenderer`). The same
path draws physics runs and kinematic ones: only the recorded poses matter.

MP4 is H.264 (``libx264``, 4:2:0, so width and height must be even) through PyAV;
GIF goes through Pillow (an adaptive palette per frame; the frames are held until the
file is written, so their size is checked against the memory budget first).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.budget import check as check_budget
from robotsim.export.camera import camera_path
from robotsim.export.replay import ExportError, Replay
from robotsim.spatial import R_to_quat, make_T

__all__ = ["FOVY_DEG", "ReplayRenderer", "frame_times", "write_video"]

#: Vertical field of view of the video camera (degrees).
FOVY_DEG = 45.0
#: Frames at most in one video (a budget for loops, beside the memory check).
MAX_FRAMES = 1_000_000


class ReplayRenderer:
    """Renders a replay at any time: ``frame(t)`` -> RGB ``(height, width, 3)`` uint8
    seen from ``camera`` (``studio``, ``follow:ROBOT`` or ``fixed:...``)."""

    def __init__(self, replay: Replay, width: int, height: int, camera: str = "studio") -> None:
        from robotsim.physics import Body, Joint, Plane, Scene, World
        from robotsim.sensors import WorldRenderer

        replay.require_scene("a video")
        self.replay = replay
        self.width, self.height = int(width), int(height)
        self.fovy = FOVY_DEG
        self.camera = camera_path(replay, camera, math.radians(FOVY_DEG))
        bodies: list[Any] = []
        moving: list[tuple[int, int, np.ndarray, str]] = []  # track, frame, T_frame_shape
        for ti, tr in enumerate(replay.tracks):
            for fi, f in enumerate(tr.frames):
                for v in f.visuals:
                    name = f"shape{len(bodies)}"
                    T0 = tr.T_world[0, fi] @ v.T_frame_shape
                    if tr.moving:
                        bodies.append(
                            Body(name, v.geometry, T0, joint=Joint("free"), mass=1.0, rgba=v.rgba)
                        )
                        moving.append((ti, fi, np.asarray(v.T_frame_shape), name))
                    else:
                        bodies.append(Body(name, v.geometry, T0, rgba=v.rgba))
        ground = replay.ground
        plane = None if ground is None else Plane()
        if ground is not None and ground.get("size"):  # a field: its box is the ground
            sx, sy = (float(s) for s in ground["size"])
            rgba = tuple(float(c) for c in ground.get("rgba") or (0.8, 0.8, 0.8, 1.0))
            bodies.append(
                Body("ground_field", _box(sx, sy), make_T(None, [0, 0, -0.006]), rgba=rgba)  # type: ignore[arg-type]
            )
            plane = None
        lo, hi = replay.view
        radius = max(1.0, float(np.linalg.norm(hi - lo)))
        self._far = 20.0 * radius + 50.0
        self.world = World(Scene(bodies=tuple(bodies), ground=plane, name="replay"))
        m = self.world.model
        # speed over polish: no multisampling (reading a 4x multisampled frame back
        # costs four times the rendering in software GL), coarser round shapes, and a
        # brighter headlight instead of shadows
        m.vis.quality.offsamples = 0
        m.vis.quality.numslices, m.vis.quality.numstacks = 16, 8
        m.vis.headlight.ambient[:] = 0.35
        m.vis.headlight.diffuse[:] = 0.55
        adr = np.array(
            [int(m.jnt_qposadr[m.body_jntadr[self.world.body(n).id]]) for *_, n in moving],
            dtype=np.intp,
        )
        self._pos_idx = adr[:, None] + np.arange(3)
        self._quat_idx = adr[:, None] + np.arange(3, 7)
        self._moving = moving
        self._T_fs = np.array([T for _, _, T, _ in moving]).reshape(-1, 4, 4)
        self._renderer = WorldRenderer(self.world, self.width, self.height)

    def pose(self, t: float) -> None:
        """Put every shape where the replay has it at time ``t`` (s)."""
        if not self._moving:
            self.world.sync_poses()
            return
        tracks = self.replay.tracks
        idx = {ti: int(tracks[ti].index_at(t)) for ti in {m[0] for m in self._moving}}
        Tw = np.array([tracks[ti].T_world[idx[ti], fi] for ti, fi, _, _ in self._moving])
        Ts = Tw @ self._T_fs
        qpos = self.world.data.qpos
        qpos[self._pos_idx] = Ts[:, :3, 3]
        qpos[self._quat_idx] = R_to_quat(Ts[:, :3, :3])
        self.world.sync_poses()

    def frame(self, t: float) -> np.ndarray:
        """The picture at time ``t`` (s), RGB ``(height, width, 3)`` uint8."""
        self.pose(t)
        eye, target = self.camera(t)
        fwd = np.asarray(target, float) - np.asarray(eye, float)
        fwd /= np.linalg.norm(fwd)
        left = np.cross([0.0, 0.0, 1.0], fwd)
        if np.linalg.norm(left) < 1e-9:  # looking straight down or up
            left = np.array([0.0, 1.0, 0.0])
        left /= np.linalg.norm(left)
        up = np.cross(fwd, left)
        R = np.column_stack([fwd, left, up])
        dist = float(np.linalg.norm(np.asarray(target) - np.asarray(eye)))
        near = max(0.01, min(0.2, 0.02 * dist))
        rgb, _ = self._renderer.render(
            R,
            np.asarray(eye, float),
            self.width,
            self.height,
            self.fovy,
            near,
            self._far,
            depth=False,
        )
        return rgb

    def close(self) -> None:
        self._renderer.close()


def _box(sx: float, sy: float) -> Any:
    from robotsim.model.geometry import Box

    return Box((sx, sy, 0.012))


def frame_times(replay: Replay, fps: float, speed: float) -> np.ndarray:
    """The simulated time (s) of every video frame: from the first recorded time to
    the last, ``speed`` simulated seconds per second of video at ``fps``."""
    t0, t1 = replay.time_span()
    n = math.floor((t1 - t0) * fps / speed + 1e-9) + 1
    if n > MAX_FRAMES:
        raise ExportError(
            f"the video would have {n} frames (more than {MAX_FRAMES}); use a lower "
            "--fps or a higher --speed"
        )
    return t0 + np.arange(n) * (speed / fps)


class _Overlay:
    """The simulated time drawn in the top-left corner."""

    def __init__(self, height: int) -> None:
        from PIL import ImageFont

        self.size = max(10, height // 28)
        try:
            self.font = ImageFont.load_default(size=self.size)
        except TypeError:  # an old Pillow without sizes
            self.font = ImageFont.load_default()

    def draw(self, rgb: np.ndarray, t: float) -> np.ndarray:
        from PIL import Image, ImageDraw

        text = f"t = {t:.2f} s"
        pad = self.size // 3
        h = min(rgb.shape[0], self.size + 3 * pad)
        w = min(rgb.shape[1], int(self.size * 0.62 * len(text)) + 2 * pad)
        patch = Image.fromarray(np.ascontiguousarray(rgb[:h, :w]))
        d = ImageDraw.Draw(patch)
        d.rectangle((0, 0, w, h), fill=(20, 20, 24))
        d.text((pad, pad), text, fill=(255, 255, 255), font=self.font)
        rgb[:h, :w] = np.asarray(patch)
        return rgb


def _frames(renderer: ReplayRenderer, times: np.ndarray) -> Iterator[np.ndarray]:
    overlay = _Overlay(renderer.height)
    for t in times:
        yield overlay.draw(renderer.frame(float(t)), float(t))


def write_video(
    replay: Replay,
    path: str | os.PathLike[str],
    fmt: str = "mp4",
    width: int = 640,
    height: int = 480,
    fps: float = 30.0,
    camera: str = "studio",
    speed: float = 1.0,
) -> Path:
    """Render the replay into an MP4 or GIF file at ``path``."""
    replay.require_scene(f"--format {fmt}")
    if not (fps > 0 and speed > 0):
        raise ExportError(f"--fps and --speed must be > 0, got {fps} and {speed}")
    if fmt == "mp4" and (width % 2 or height % 2):
        raise ExportError(
            f"--width {width} --height {height}: an mp4 (H.264 4:2:0) needs even sizes"
        )
    times = frame_times(replay, fps, speed)
    if fmt == "gif":
        check_budget(
            f"a GIF of {len(times)} frames of {width} x {height}",
            float(len(times)) * width * height * 1.1,
            "use a lower --fps, a smaller --width/--height or a higher --speed (or mp4)",
        )
    path = Path(path)
    renderer = ReplayRenderer(replay, width, height, camera)
    try:
        if fmt == "mp4":
            _write_mp4(path, _frames(renderer, times), width, height, fps)
        elif fmt == "gif":
            _write_gif(path, _frames(renderer, times), fps)
        else:
            raise ExportError(f"--format {fmt!r}: a video is mp4 or gif")
    finally:
        renderer.close()
    return path


def _write_mp4(
    path: Path, frames: Iterator[np.ndarray], width: int, height: int, fps: float
) -> None:
    """Encode on a thread of its own while the next frames render (PyAV encodes
    without the GIL); a failure on either side stops both and is raised here."""
    import queue
    import threading

    import av

    rate = Fraction(fps).limit_denominator(1001)
    todo: queue.Queue[np.ndarray | None] = queue.Queue(maxsize=4)
    failed: list[BaseException] = []

    def encode(container: Any, stream: Any) -> None:
        try:
            while (rgb := todo.get()) is not None:
                frame = av.VideoFrame.from_ndarray(rgb, format="rgb24")
                for packet in stream.encode(frame):
                    container.mux(packet)
            for packet in stream.encode():
                container.mux(packet)
        except BaseException as exc:  # reported on the rendering thread
            failed.append(exc)
            while todo.get() is not None:  # let the renderer finish putting
                pass

    with av.open(str(path), mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=rate)
        stream.width, stream.height = width, height
        stream.pix_fmt = "yuv420p"
        stream.options = {"preset": "ultrafast", "crf": "23"}
        worker = threading.Thread(target=encode, args=(container, stream), name="mp4-encoder")
        worker.start()
        try:
            for rgb in frames:
                if failed:
                    break
                todo.put(rgb)
        finally:
            todo.put(None)
            worker.join()
        if failed:
            raise ExportError(f"mp4 encoding failed: {failed[0]}") from failed[0]


def _write_gif(path: Path, frames: Iterator[np.ndarray], fps: float) -> None:
    from PIL import Image

    images = [
        Image.fromarray(rgb).quantize(colors=256, method=Image.Quantize.MEDIANCUT) for rgb in frames
    ]
    if not images:
        raise ExportError("the run has no frames to show")
    ms = max(20, round(1000.0 / fps))  # GIF delays are in hundredths; browsers floor at 20 ms
    images[0].save(
        path,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=ms,
        loop=0,
        optimize=False,
    )
