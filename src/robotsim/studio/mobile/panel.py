"""Mobile robots (seed 002): the 2D top-down map beside the 3D view (field,
obstacles, trajectories, start and goal), live plots of the distance to the goal and the
wheel speeds, and a new goal set by clicking the ground in the 3D view."""

from __future__ import annotations

import itertools
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.errors import InputError
from robotsim.studio.coalesce import Coalesced
from robotsim.studio.mobile.driver import MobileDriver
from robotsim.studio.uplots import time_plot, time_series

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["MobilePanel", "ground_point"]

_IDLE = (
    "**No mobile scenario is open.** Open a mobile scenario (Open tab → Scenario → "
    "soccer_obstacles → Open scenario) to drive robots here: a top-down map, the "
    "distance to the goal and the wheel speeds."
)
_PLACEHOLDER = np.full((8, 8, 3), 245, dtype=np.uint8)
_WHEEL_COLORS = ("#d03030", "#30a030", "#3050d0", "#a040a0", "#c08020", "#208080")
MAP_WIDTH = 4.2  # in: the map is drawn about as wide as the panel shows it (text stays legible)


def ground_point(origin: Any, direction: Any) -> np.ndarray | None:
    """Where a ray ``origin + s * direction`` (s > 0) meets the ground z = 0, or None."""
    o, d = np.asarray(origin, float), np.asarray(direction, float)
    if abs(d[2]) < 1e-9:
        return None
    s = -o[2] / d[2]
    return None if s <= 0 else o + s * d


class MobilePanel:
    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        gui = studio.gui
        self.status = gui.add_markdown(_IDLE)
        self.robot = gui.add_dropdown("Goal for", ("",), initial_value="")
        self.click_goal = gui.add_checkbox("Click ground = goal", initial_value=False,
                                           hint="Click the ground in the 3D view to send the "
                                           "chosen robot there")  # fmt: skip
        self.map = gui.add_image(_PLACEHOLDER, label="Top-down map", format="png")
        self.save_replay = gui.add_button(
            "Save replay (HTML)",
            hint="One HTML file in the workspace folder that replays what the studio has "
            "shown so far, in any browser, offline (docs/export.md)",
        )

        @self.save_replay.on_click
        @studio.guarded("save the replay")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.export_html()

        self.plot_error = time_plot(gui, "Distance to goal", "distance (m)", ("to goal (m)",))
        self.plot_wheels = time_plot(gui, "Wheel speeds", "speed (rad/s)", ("wheel",), ("red",))
        from robotsim.studio.mobile.sensors import CameraImages

        self.cameras = CameraImages(gui)  # the robots' camera images, when they have any
        self._wheel_series = 1
        self._last_map = 0.0
        self._refresh = Coalesced(self._draw)
        # the map off the caller's thread: one drawing at a time, the latest state next
        self._map_job = Coalesced(lambda _force: self._draw_map_now())
        self._map_lock = threading.Lock()  # guards _map_shown and the map (not the drawing)
        self._map_asked = itertools.count()  # map drawings numbered as they read the state
        self._map_shown = -1  # the number of the drawing shown
        self._stopped = False  # the studio stopped: no more maps reach its server
        self._clicks: list[Any] = []
        self.map_updates = 0
        self.map_ticks = -1  # physics ticks of the state the map shows
        self._shown_ticks = -1  # physics ticks shown by the last refresh

        @self.click_goal.on_update
        @studio.guarded("click to set the goal")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.set_click_mode(self.click_goal.value)

        studio.on("driver", self.on_driver)
        studio.on("robots", self.on_driver)
        studio.on("clock", self.on_clock)
        studio.on("stop", self.on_stop)
        self.show_widgets(self.driver is not None)

    def export_html(self) -> Path | None:
        """Write what the studio recorded of the mobile run (its link poses at every
        tick shown) as a one-file HTML replay in the workspace folder; returns it."""
        from robotsim.export.files import write_replay
        from robotsim.export.replay import replay_of_poses

        studio = self.studio
        driver = studio.driver_as(MobileDriver)
        if driver is None or not len(driver.log):
            studio.notify("Nothing to save", "Open a mobile scenario and play it first.")
            return None
        times = np.array(driver.log.times)
        names = [rb.name for rb in driver.robots]
        poses = {
            n: np.stack([f[n] for f in driver.log.frames])
            for n in names
            if all(n in f for f in driver.log.frames)
        }
        replay = replay_of_poses(driver.run.scene_doc(), times, poses, driver.sc.name)
        path = studio.workspace.root / f"{driver.sc.name}_replay.html"
        write_replay(replay, "html", path, {})
        studio.notify("Replay saved", str(path))
        return path

    @property
    def driver(self) -> MobileDriver | None:
        return self.studio.driver_as(MobileDriver)

    # ----------------------------------------------------------------- goals
    def set_click_mode(self, on: bool) -> None:
        scene = self.studio.scene
        for cb in self._clicks:
            scene.remove_click_callback(cb)
        self._clicks = []
        if not on:
            return

        @self.studio.guarded("set goal")
        def on_click(event) -> None:  # type: ignore[no-untyped-def]
            p = ground_point(event.ray_origin, event.ray_direction)
            if p is None:
                raise InputError("that click does not hit the ground; click the field")
            self.set_goal(self.robot.value, (p[0], p[1]))

        scene.on_click()(on_click)
        self._clicks.append(on_click)

    def set_goal(self, robot: str, xy: tuple[float, float]) -> None:
        d = self.driver
        if d is None:
            raise InputError("no mobile scenario is open")
        with self.studio.locked():
            d.set_goal(self.studio, robot, xy)
        self.refresh(force=True)

    # --------------------------------------------------------------- refresh
    def on_driver(self) -> None:
        d = self.driver
        self.cameras.attach(None if d is None else d.run.sensors)
        names = tuple(rb.name for rb in d.robots) if d is not None else ("",)
        self.robot.options = names
        if self.robot.value not in names:
            self.robot.value = names[0]
        self.refresh(force=True)

    def on_clock(self) -> None:
        d = self.driver
        if d is not None and d.ticks != self._shown_ticks:
            self.refresh()

    def refresh(self, force: bool = False) -> None:
        """Status, plots and (at most once a second unless forced) the map. One thread
        at a time; a request made during a refresh is served by a second pass."""
        self._refresh(force)

    def _draw(self, force: bool) -> None:
        d = self.driver
        self.show_widgets(d is not None)
        if d is None:
            self.status.content = _IDLE
            return
        with self.studio.locked():
            lines = d.status()
            t = np.array(d.t)
            err = np.array(d.error.get(self.robot.value, []))
            wheels = np.array(d.wheels.get(self.robot.value, []))
            names = d.wheel_names.get(self.robot.value, ())
            traj = d.trajectories() if force else []
            number = next(self._map_asked) if force else -1
            self._shown_ticks = ticks = d.ticks
        if self.cameras.rig is not d.run.sensors:  # a reset made a new run
            self.cameras.attach(d.run.sensors)
        self.cameras.update()
        state = "finished" if d.finished else f"t = {self.studio.time:.2f} s"
        self.status.content = f"{state} of {d.duration:g} s<br>" + "<br>".join(lines)
        if len(t) >= 2:
            self.plot_error.data = (t, err)
            if wheels.ndim == 2 and wheels.shape[1]:
                if self._wheel_series != wheels.shape[1]:
                    self.plot_wheels.series = time_series(names, _WHEEL_COLORS)
                    self._wheel_series = wheels.shape[1]
                self.plot_wheels.data = (t, *wheels.T)
        now = time.monotonic()
        if force:
            self._last_map = now
            self._show_map(number, self.draw_map(d, traj), ticks)
        elif now - self._last_map > 1.0 or (not self.studio.playing and self.map_ticks != ticks):
            # At most once a second while playing; once more where the clock stopped (a
            # pause, a step, the end), else the map would stay up to a second behind.
            # Off the caller's thread (the studio loop): a matplotlib map takes ~0.2 s.
            self._last_map = now
            threading.Thread(target=self._map_job, name="mobile-map", daemon=True).start()

    def show_widgets(self, visible: bool) -> None:
        """The controls, map and plots only while a mobile scenario is open."""
        widgets = (
            self.robot,
            self.click_goal,
            self.map,
            self.save_replay,
            self.plot_error,
            self.plot_wheels,
        )
        for w in widgets:
            if w.visible != visible:
                w.visible = visible

    def on_stop(self) -> None:
        """A map still being drawn is dropped (its server is about to stop); the stop
        waits (a few seconds at most) for its drawing to end and remove its temp file."""
        with self._map_lock:
            self._stopped = True
        deadline = time.monotonic() + 5.0
        while self._map_job.running and time.monotonic() < deadline:
            time.sleep(0.01)

    @property
    def map_drawing(self) -> bool:
        """A map is being drawn off the caller's thread (or another is owed)."""
        return self._map_job.running

    def _draw_map_now(self) -> None:
        try:
            with self.studio.locked():  # the driver too: a scenario opened meanwhile wins
                d = self.driver
                if d is None or self._stopped:
                    return
                traj = d.trajectories()
                number = next(self._map_asked)
                ticks = d.ticks
            self._show_map(number, self.draw_map(d, traj), ticks)
        except Exception as exc:
            self.studio.report_error("map", exc)

    def _show_map(self, number: int, img: np.ndarray, ticks: int) -> None:
        """Show drawing ``number``, unless a later one (of a newer state) is shown: a
        drawing that took longer than one asked for after it must not replace it."""
        with self._map_lock:
            if number < self._map_shown or self._stopped:
                return
            self._map_shown = number
            self.map.image = img
            self.map_ticks = ticks
            self.map_updates += 1

    def draw_map(self, d: MobileDriver, trajectories: list[dict[str, Any]]) -> np.ndarray:
        """The top-down map (the same drawing as ``robotsim run``'s map.png) as RGB."""
        from robotsim import plots
        from robotsim.studio.thumbnails import load_png

        # a file per drawing (a forced map and one off the loop's thread may be drawn at
        # once), removed as soon as it is read: no folder is left behind in the temp dir
        fd, name = tempfile.mkstemp(prefix="robotsim-map-", suffix=".png")
        os.close(fd)
        path = Path(name)
        try:
            sc = d.sc
            plots.save_map(path, sc.field.size, d.obstacles, trajectories,
                           title=sc.name, markings=sc.field.markings, width=MAP_WIDTH)  # fmt: skip
            img = load_png(path)
        finally:
            path.unlink(missing_ok=True)
        return _PLACEHOLDER if img is None else img
