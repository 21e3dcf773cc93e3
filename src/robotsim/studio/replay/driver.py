"""A recorded run replayed in the studio: play, pause and scrub what a run store holds.

:func:`open_run` reads one run of a run store (:func:`robotsim.export.load_replay`: the
same tracks the MCAP, Rerun and HTML exports write, so the studio shows exactly what
they show) and loads it as the studio's scene: each recorded robot at its first sample,
the scene's objects drawn, and a :class:`ReplayDriver` that shows the recorded sample at
or before the studio's time (nothing is interpolated or simulated). The driver is
scrubbable (``recorded_end``/``show_at``: the Simulation tab's time slider spans the
whole run) and pauses the studio at the run's end.

A run still being written, a missing run or one without a recorded 3D scene is refused
with a one-line error before the scene changes.

Targets (:func:`parse_run_target`): a run store (a ``.sqlite``/``.db`` file, a folder
holding ``runs.sqlite``, or a ``postgresql://`` URL) with an optional ``#RUN`` (an id or
``last``, the default).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.errors import InputError

if TYPE_CHECKING:
    from robotsim.export.replay import Replay, Track
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["ReplayDriver", "open_run", "parse_run_target"]

_STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


def parse_run_target(target: str | Path) -> tuple[str, str] | None:
    """``(store, run)`` when ``target`` names a run store (see the module doc), else
    None. ``run`` is ``last`` unless ``#RUN`` follows."""
    text = str(target).strip()
    store, _, run = text.partition("#")
    run = run.strip() or "last"
    if store.startswith(("postgresql://", "postgresql+psycopg://", "sqlite:///")):
        return store, run
    path = Path(store)
    if path.suffix.lower() in _STORE_SUFFIXES and (path.is_file() or "#" in text):
        return store, run
    if path.is_dir() and (path / "runs.sqlite").is_file():
        return str(path / "runs.sqlite"), run
    return None


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name) or "object"


class ReplayDriver:
    """Shows a :class:`robotsim.export.replay.Replay` at the studio's time (see the
    module doc). ``end``: the last recorded time (s)."""

    name = "replay"

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.t0, self.end = replay.time_span()
        self.robots = [tr for tr in replay.robots if tr.moving]
        self.objects = [tr for tr in replay.tracks if tr.kind == "object"]
        self._object_nodes: dict[str, Any] = {}
        self.shown: float | None = None

    # -- scrubbing -------------------------------------------------------------------
    def recorded_end(self) -> float:
        return self.end

    def show_at(self, studio: Studio, t: float) -> None:
        """Every robot and moving object at its sample at or before ``t`` (s)."""
        from robotsim.spatial import R_to_quat

        for tr in self.robots:
            view = studio.find_robot(tr.name)
            if view is None:
                continue
            i = int(tr.index_at(t))
            view.set_link_poses(tr.T_world[i])
        for tr in self.objects:
            node = self._object_nodes.get(tr.name)
            if node is None or not tr.moving:
                continue
            T = tr.T_world[int(tr.index_at(t)), 0]
            node.wxyz = R_to_quat(T[:3, :3])
            node.position = T[:3, 3].copy()
        self.shown = float(t)

    # -- the Driver protocol -----------------------------------------------------------
    def attach(self, studio: Studio) -> None:
        self.show_at(studio, self.t0)

    def reset(self, studio: Studio) -> None:
        self.show_at(studio, self.t0)

    def step(self, studio: Studio, t: float, dt: float) -> None:
        del dt
        self.show_at(studio, min(float(t), self.end))
        if t >= self.end:
            studio.halt()  # the run is over: pause there (scrub or reset to replay)

    # -- drawing -----------------------------------------------------------------------
    def draw(self, studio: Studio) -> list[Any]:
        """The objects' shapes, each under a frame (the driver moves those of moving
        objects); returns the frames (their shapes go with them)."""
        from robotsim.spatial import R_to_quat
        from robotsim.studio.shapes import geometry_mesh

        scene = studio.scene
        handles: list[Any] = []
        for k, tr in enumerate(self.objects):
            T = tr.T_world[0, 0]
            node = scene.add_frame(
                f"/replay/{k}_{_safe(tr.name)}",
                show_axes=False,
                wxyz=R_to_quat(T[:3, :3]),
                position=T[:3, 3].copy(),
            )
            handles.append(node)
            self._object_nodes[tr.name] = node
            for frame in tr.frames:
                for j, vis in enumerate(frame.visuals):
                    try:
                        mesh = geometry_mesh(vis.geometry)
                    except InputError:
                        continue  # not drawable (a degenerate size)
                    rgba = np.clip(np.asarray(vis.rgba, float), 0.0, 1.0)
                    Ts = np.asarray(vis.T_frame_shape)
                    scene.add_mesh_simple(  # removed with its frame
                        f"/replay/{k}_{_safe(tr.name)}/visual_{j}",
                        np.asarray(mesh.vertices, np.float32),
                        np.asarray(mesh.faces, np.uint32),
                        color=tuple(int(c * 255 + 0.5) for c in rgba[:3]),
                        opacity=None if rgba[3] >= 1.0 else float(rgba[3]),
                        wxyz=R_to_quat(Ts[:3, :3]),
                        position=Ts[:3, 3].copy(),
                    )
        return handles


def _scene_robot(tr: Track) -> Any:
    from robotsim.studio.interface import SceneRobot

    q = None if tr.q is None or not len(tr.q) else np.nan_to_num(tr.q[0])
    return SceneRobot(tr.model, name=tr.name, T_world_base=tr.T_world[0, 0], q=q)  # type: ignore[arg-type]


def open_run(studio: Studio, store: str | Path, run: int | str = "last") -> str:
    """Replace the studio's scene with run ``run`` of the run store ``store`` (a file,
    a folder with ``runs.sqlite`` or a database URL), ready to play. Returns the
    studio's one-line description."""
    from robotsim.export.replay import load_replay
    from robotsim.recording import RunStore, normalize_db

    url = normalize_db(str(store))
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///") :]).is_file():
        raise InputError(f"{store}: no run store there (robotsim run ... --out DIR writes one)")
    with RunStore(url) as db:
        replay = load_replay(db, run)
    replay.require_scene("replay in the studio")
    driver = ReplayDriver(replay)
    robots = [_scene_robot(tr) for tr in driver.robots]
    title = f"run {replay.info.id} ({replay.info.scenario}, {driver.end - driver.t0:.3g} s)"
    return studio.load_scene(title, robots, draw=driver.draw, driver=driver, camera=replay.view)
