"""The studio: a viser server holding robots, a simulation clock and GUI panels.

:class:`Studio` is usable from Python (tests, notebooks, other commands such as
teleop) as well as from ``robotsim studio``. All state changes go through its methods,
which take one lock, so GUI callbacks (viser's thread pool), the update loop and API
callers never interleave half-done updates.
"""

from __future__ import annotations

import contextlib
import io
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import viser

from robotsim.errors import InputError, RobotsimError, UnknownNameError
from robotsim.model import library_names, load_robot
from robotsim.model.robot import RobotModel
from robotsim.spatial import trans
from robotsim.studio.clock import SimClock
from robotsim.studio.drivers import DRIVERS, Driver, PoseTour
from robotsim.studio.robot_view import RobotView

__all__ = ["Studio", "default_robots", "initial_q"]

_START_POSES = ("home", "stand", "ready")
_GAP = 0.5  # m between robots placed side by side


def initial_q(model: RobotModel) -> np.ndarray:
    """The pose a robot shows when added: a named home/stand/ready pose if the model
    has one, else its zero pose."""
    for name in _START_POSES:
        if name in model.poses:
            return model.pose(name)
    return model.zero()


def default_robots() -> list[str]:
    """The default scene: the PUMA 560 arm plus the humanoid, the hands and the mobile
    base when the library has them (checked at run time)."""
    have = set(library_names())
    wanted = ["puma560", "humanoid17", "dual_arm_hands", "omni3"]
    chosen = [n for n in wanted if n in have]
    return chosen or library_names()[:1]


class Studio:
    """The studio server.

    Args:
        host: address to bind (``127.0.0.1``: this machine only).
        port: TCP port; viser takes the next free one if it is busy (see :attr:`url`).
        dt: simulation step (s).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 8080, dt: float = 1.0 / 60.0):
        # viser prints its own banner; the CLI prints one clear line instead.
        with contextlib.redirect_stdout(io.StringIO()):
            self.server = viser.ViserServer(
                host=host, port=port, label="robotsim studio", verbose=False
            )
        self.host = host
        self.lock = threading.RLock()
        self.robots: dict[str, RobotView] = {}
        self.clock = SimClock(dt)
        self.driver: Driver = PoseTour()
        self.title = "empty"
        self.updates = 0
        self._listeners: dict[str, list[Callable[[], None]]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []
        self.objects: list[viser.SceneNodeHandle] = []  # static scenario objects
        self.after_push: list[Callable[[], None]] = []
        self._build_world()
        from robotsim.studio.panels import build_panels

        self.panels = build_panels(self)

    # ------------------------------------------------------------------ server
    @property
    def port(self) -> int:
        return self.server.get_port()

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    def _build_world(self) -> None:
        scene = self.server.scene
        scene.set_up_direction("+z")
        self.grid = scene.add_grid(
            "/world/grid", width=20.0, height=20.0, cell_size=0.25, section_size=1.0,
            plane="xy", cell_color=(200, 200, 200), section_color=(140, 140, 150),
        )  # fmt: skip
        # viser's default key/fill lights and its environment map light the scene;
        # extra lights wash out light-grey robots.
        scene.configure_default_lights(enabled=True, cast_shadow=True)
        # The environment map is y-up; turn it to our z-up world and dim it a little.
        c = float(np.sqrt(0.5))
        scene.configure_environment_map(
            "warehouse", environment_intensity=0.55, environment_wxyz=(c, c, 0.0, 0.0)
        )
        self.server.initial_camera.position = (3.0, -3.0, 2.0)
        self.server.initial_camera.look_at = (0.0, 0.0, 0.6)

    def start(self) -> None:
        """Start the update loop (a daemon thread)."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="studio-loop", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        with contextlib.redirect_stdout(io.StringIO()):  # viser says "Server stopped"
            self.server.stop()

    def serve_forever(self) -> None:
        """Start the loop and block until Ctrl+C (or :meth:`stop` from another thread)."""
        self.start()
        try:
            while not self._stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def _loop(self) -> None:
        next_t = time.perf_counter()
        last_readout = 0.0
        while not self._stop.is_set():
            try:
                if self.clock.playing:
                    self.tick()
                self.push()
                now = time.perf_counter()
                if now - last_readout > 0.25:
                    last_readout = now
                    self.emit("clock")
            except Exception as exc:  # the studio must keep running
                self.clock.playing = False
                self.report_error("simulation stopped", exc)
                self.emit("clock")
            next_t += self.clock.dt
            delay = next_t - time.perf_counter()
            if delay > 0:
                self._stop.wait(delay)
            else:
                next_t = time.perf_counter()  # behind: do not try to catch up

    # ----------------------------------------------------------------- events
    def on(self, event: str, callback: Callable[[], None]) -> None:
        """Call ``callback()`` on ``event``: ``robots`` (added/removed), ``state``
        (a configuration changed outside the sliders), ``clock`` (time readout)."""
        self._listeners.setdefault(event, []).append(callback)

    def emit(self, event: str) -> None:
        for cb in list(self._listeners.get(event, [])):
            try:
                cb()
            except Exception as exc:
                self.report_error(f"panel update ({event})", exc)

    def notify(self, title: str, body: str, error: bool = False) -> None:
        """Show a notification in every connected page."""
        for client in self.server.get_clients().values():
            client.add_notification(
                title, body, color="red" if error else "blue",
                auto_close_seconds=None if error else 4.0,
            )  # fmt: skip

    def report_error(self, what: str, exc: BaseException) -> None:
        """Turn an exception into a page notification (and a line in :attr:`errors`);
        internal errors also print their traceback to the terminal."""
        msg = str(exc) if isinstance(exc, RobotsimError) else f"{type(exc).__name__}: {exc}"
        self.errors.append(f"{what}: {msg}")
        if not isinstance(exc, RobotsimError):
            traceback.print_exception(exc)
        self.notify(what, msg, error=True)

    def guarded(self, what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator for GUI callbacks: errors become notifications, never crashes."""

        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                try:
                    return fn(*args, **kwargs)
                except Exception as exc:
                    self.report_error(what, exc)
                    return None

            return wrapper

        return deco

    # ---------------------------------------------------------------- robots
    def add_robot(
        self,
        robot: RobotModel | str | Path,
        name: str | None = None,
        T_world_base: np.ndarray | None = None,
        q: np.ndarray | None = None,
        on_ground: bool = False,
    ) -> RobotView:
        """Add a robot (a model, a library name or a model file).

        Without ``T_world_base`` the robot is placed beside the others along +y, its
        lowest point on the ground. ``on_ground`` lowers or lifts a robot placed at
        ``T_world_base`` so its lowest point is on the ground (mobile bases given a 2D
        start). Returns its :class:`RobotView`.
        """
        model = robot if isinstance(robot, RobotModel) else load_robot(robot)
        q0 = initial_q(model) if q is None else np.asarray(q, float)
        with self.lock:
            name = self._unique(name or model.name)
            T0 = None if T_world_base is None else np.asarray(T_world_base, dtype=float)
            view = RobotView(self.server, name, model, T0, q0)
            if T_world_base is None:
                b = view.world_bounds()
                y = 0.0
                if self.robots:
                    y_max = max(v.world_bounds()[1, 1] for v in self.robots.values())
                    y = y_max + _GAP - b[0, 1]
                z = -b[0, 2] if (model.floating or b[0, 2] < -1e-6) else 0.0
                view.initial_T_world_root = trans([0.0, y, z])
                view.reset()
            elif on_ground:
                view.initial_T_world_root = trans([0.0, 0.0, -view.world_bounds()[0, 2]]) @ T0
                view.reset()
            self.robots[name] = view
            view.push(force=True)
        self.emit("robots")
        return view

    def _unique(self, base: str) -> str:
        safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in base) or "robot"
        name, k = safe, 2
        while name in self.robots:
            name, k = f"{safe}_{k}", k + 1
        return name

    def remove_robot(self, name: str) -> None:
        with self.lock:
            view = self.robot(name)
            view.remove()
            del self.robots[name]
        self.emit("robots")

    def clear(self) -> None:
        with self.lock:
            for view in self.robots.values():
                view.remove()
            self.robots.clear()
            for h in self.objects:
                h.remove()
            self.objects = []
            self.clock.playing = False
            self.clock.reset()
            self.driver = PoseTour()
        self.emit("robots")

    def robot(self, name: str) -> RobotView:
        try:
            return self.robots[name]
        except KeyError:
            raise UnknownNameError("robot", name, list(self.robots)) from None

    def set_q(self, robot: str, q: np.ndarray) -> None:
        """Set a robot's configuration ``(nq,)`` (rad/m, clipped into the limits)."""
        with self.lock:
            self.robot(robot).set_q(q)
        self.emit("state")

    def set_joint(self, robot: str, joint: str, value: float) -> None:
        """Set one joint (rad or m)."""
        with self.lock:
            view = self.robot(robot)
            q = view.q.copy()
            q[view.model.joint_index(joint)] = float(value)
            view.set_q(q)
        self.emit("state")

    # ------------------------------------------------------------------- scene
    def load_default(self) -> None:
        """The default scene (see :func:`default_robots`)."""
        self.clear()
        for n in default_robots():
            self.add_robot(n)
        self.title = "default scene: " + ", ".join(self.robots)
        self.frame_camera()

    def open(self, target: str | Path) -> str:
        """Open a library robot, a robot file, or a scenario file (``.yaml`` with a
        ``robots:`` section); replaces the scene. Returns a one-line description."""
        from robotsim.studio.scenarios import is_scenario_file, open_scenario

        s = str(target).strip()
        if not s:
            raise InputError("nothing to open: give a robot name, a robot file or a scenario")
        if s not in library_names() and is_scenario_file(Path(s)):
            return open_scenario(self, Path(s))
        model = load_robot(s)  # validate before clearing the scene
        self.clear()
        self.add_robot(model)
        self.title = f"robot {model.name}" + (f" ({s})" if s != model.name else "")
        self.frame_camera()
        return self.title

    def frame_camera(self, bounds: np.ndarray | None = None) -> None:
        """Point the camera (initial and every connected client) at ``bounds`` ``(2, 3)``
        (m; default: all robots)."""
        with self.lock:
            if bounds is None and not self.robots:
                return
            if bounds is None:
                bs = np.array([v.world_bounds() for v in self.robots.values()])
                bounds = np.stack([bs[:, 0].min(axis=0), bs[:, 1].max(axis=0)])
        lo, hi = np.asarray(bounds, dtype=float)
        centre = 0.5 * (lo + hi)
        radius = max(0.5, 0.5 * float(np.linalg.norm(hi - lo)))
        eye = centre + radius * np.array([1.7, -0.9, 0.75])
        self.server.initial_camera.position = tuple(eye)
        self.server.initial_camera.look_at = tuple(centre)
        for client in self.server.get_clients().values():
            client.camera.position = tuple(eye)
            client.camera.look_at = tuple(centre)

    # ------------------------------------------------------------- simulation
    def set_driver(self, name: str) -> None:
        if name not in DRIVERS:
            raise UnknownNameError("driver", name, list(DRIVERS))
        with self.lock:
            self.driver = DRIVERS[name]()
            self.driver.reset(self)

    def play(self, playing: bool = True) -> None:
        self.clock.playing = playing
        self.emit("clock")

    def tick(self) -> None:
        """Advance the simulation one step (the driver moves the robots)."""
        with self.lock:
            t = self.clock.advance()
            self.driver.step(self, t, self.clock.dt)

    def step(self) -> None:
        """One step while paused, pushed to the view at once."""
        self.tick()
        self.push()
        self.emit("state")
        self.emit("clock")

    def reset(self) -> None:
        """Time back to 0, every robot at its start pose, paused."""
        with self.lock:
            self.clock.playing = False
            self.clock.reset()
            for v in self.robots.values():
                v.reset()
            self.driver.reset(self)
        self.push()
        self.emit("state")
        self.emit("clock")

    def push(self, force: bool = False) -> int:
        """Send changed link poses of every robot in one atomic update; returns the
        number of links sent."""
        with self.lock, self.server.atomic():
            n = sum(v.push(force) for v in self.robots.values())
            if n:
                self.updates += 1
                for cb in self.after_push:
                    cb()
        return n
