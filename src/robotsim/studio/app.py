"""The studio: a viser server holding robots, a simulation clock and GUI panels.

:class:`Studio` is usable from Python (tests, notebooks, other commands such as
teleop) as well as from ``robotsim studio``. All state changes go through its methods,
which take one lock, so GUI callbacks (viser's thread pool), the update loop and API
callers never interleave half-done updates.

A studio owns everything it shows: the scenario kinds it opens (their openers and
panels, from :data:`robotsim.scenario.kinds.KINDS` by default), its tabs and its
drivers are given to ``Studio(...)``; nothing is registered in module-level tables, so
two studios in one process share no state.

**The panel interface** (:class:`robotsim.studio.interface.StudioAPI`, which panels,
openers and drivers import for typing instead of this module). They use these, not the
fields behind them: :attr:`gui` (add controls), :attr:`scene` (draw nodes),
:meth:`robot_names`, :meth:`robot`, :meth:`find_robot`, :meth:`views`, :meth:`set_q`,
:meth:`set_joint`, :meth:`add_robot`, :meth:`remove_robot`, :meth:`open`, :meth:`load_default`,
:meth:`load_scene`, :attr:`source` (the scenario file shown), :meth:`keep_objects`,
:meth:`frame_camera`, :meth:`show_grid`, :meth:`push`; time through :attr:`time` and
:attr:`dt` (a driver's ``step`` also receives ``t, dt``), never the clock object; the
clock through :meth:`play`, :meth:`halt`, :meth:`step`, :meth:`reset`, :meth:`seek`,
:meth:`recorded_end`, :attr:`playing`,
:attr:`real_time_factor`; drivers through :meth:`driver_as`, :attr:`driver_name`,
:meth:`driver_names`, :meth:`set_driver`, :meth:`use_driver`, :meth:`release_driver`,
:meth:`add_driver`; :meth:`clients` (connected pages);
:meth:`locked` (read a driver's state consistently), :meth:`on`/:meth:`emit` (events
``robots``, ``state``, ``clock``, ``driver``, ``params``, ``stop``), :meth:`guarded`,
:meth:`notify`, :meth:`report_error`, :meth:`after_push`; :attr:`workspace`, through
which every path typed in the page goes; :attr:`params`, the live parameters (time
scale, gains, maximum speed, motion speed level, :mod:`robotsim.teleop.params`) that the
clock and drivers follow, changed by the devices of :attr:`live`
(:mod:`robotsim.studio.live`).

**Who may open the page**: the URL (:attr:`url`) carries a per-launch token and the
page's websocket must come from the studio's own origin (:mod:`robotsim.studio.access`);
the page reads and writes files only in :attr:`workspace`
(:mod:`robotsim.studio.workspace`).
"""

from __future__ import annotations

import contextlib
import io
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import viser

from robotsim.errors import InputError, RobotsimError, UnknownNameError
from robotsim.model import library_names, load_robot
from robotsim.model.robot import RobotModel
from robotsim.spatial import trans
from robotsim.studio.access import PageAccess, find_websockets_server, new_token
from robotsim.studio.clock import SimClock
from robotsim.studio.drivers import Driver, PoseTour, recorded_end
from robotsim.studio.interface import SceneRobot
from robotsim.studio.live import LiveInput
from robotsim.studio.pacing import PagePacer
from robotsim.studio.robot_view import RobotView
from robotsim.studio.tab_switch import TabSwitch
from robotsim.studio.viser_tuning import install as install_viser_tuning
from robotsim.studio.workspace import Workspace
from robotsim.teleop.params import LiveParameters

if TYPE_CHECKING:
    from robotsim.scenario.kinds import ScenarioKind
    from robotsim.studio.panels import Tab

__all__ = ["SceneRobot", "Studio", "default_robots", "initial_q"]

D = TypeVar("D")

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


def camera_view(
    bounds: np.ndarray, fov: float = np.deg2rad(75.0), aspect: float = 1.6, panel: float = 0.3
) -> tuple[np.ndarray, np.ndarray]:
    """Camera ``(eye, target)`` (m, world) that shows the box ``bounds`` ``(2, 3)``
    whole: its bounding sphere fits the vertical field of view ``fov`` (rad, viser's
    default), seen from the front right and above (from higher up for flat scenes such
    as a field), and the scene is moved left of the control panel, which covers the
    right ``panel`` fraction of a page of width/height ``aspect``."""
    lo, hi = bounds
    centre = 0.5 * (lo + hi)
    size = hi - lo
    radius = max(0.3, 0.5 * float(np.linalg.norm(size)))
    flat = size[2] < 0.25 * max(size[0], size[1])
    direction = np.array([1.0, -0.9, 1.4]) if flat else np.array([1.7, -0.9, 0.75])
    direction /= np.linalg.norm(direction)
    dist = 1.05 * radius / np.sin(0.5 * fov)
    eye = centre + dist * direction
    right = np.cross(-direction, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    half_width = dist * aspect * np.tan(0.5 * fov)  # of the view at the target's depth
    shift = right * panel * half_width
    return eye + shift, centre + shift


class Studio:
    """The studio server.

    Args:
        host: address to bind (``127.0.0.1``: this machine only).
        port: TCP port; viser takes the next free one if it is busy (see :attr:`url`).
        dt: simulation step (s).
        kinds: the scenario kinds it opens (default: every kind of
            :data:`robotsim.scenario.kinds.KINDS`); their panels become tabs.
        tabs: the tabs it shows, in order (default:
            :func:`robotsim.studio.panels.default_tabs` of ``kinds``).
        drivers: driver factories by name, offered in the Drive menu (default: the
            pose tour).
        token: the page's launch token (see :mod:`robotsim.studio.access`): True (a
            fresh one), a string, or False (no token: ``--no-token``). :attr:`url`
            carries it; the page's websocket is checked for its origin either way.
        root: the workspace folder the page may read and write files in (default:
            the current directory; see :mod:`robotsim.studio.workspace`).
        params: the live parameters (:mod:`robotsim.teleop.params`) the studio's
            devices change (:attr:`live`) and its clock and motion playback follow;
            share the ones of other devices (``robotsim teleop``) by passing them.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 8080,
        dt: float = 1.0 / 60.0,
        *,
        kinds: Iterable[ScenarioKind] | None = None,
        tabs: Sequence[Tab] | None = None,
        drivers: Mapping[str, Callable[[], Driver]] | None = None,
        token: bool | str = True,
        root: str | Path | None = None,
        params: LiveParameters | None = None,
    ) -> None:
        from robotsim.scenario.kinds import KINDS
        from robotsim.studio.panels import build_panels, default_tabs

        self.workspace = Workspace(root)  # checked before the server starts
        install_viser_tuning()  # icons and property hints read once (studio/viser_tuning.py)
        self.kinds: Mapping[str, ScenarioKind] = MappingProxyType(
            dict(KINDS) if kinds is None else {k.name: k for k in kinds}
        )
        self._drivers: dict[str, Callable[[], Driver]] = dict(
            {PoseTour.name: PoseTour} if drivers is None else drivers
        )
        # viser prints its own banner; the CLI prints one clear line instead.
        with contextlib.redirect_stdout(io.StringIO()):
            self.server = viser.ViserServer(
                host=host, port=port, label="robotsim studio", verbose=False
            )
        self.access = self._guard(host, token)
        # A wide control panel: every tab label fits one row at 1280 px.
        self.server.gui.configure_theme(control_width="large")
        self.host = host
        self._lock = threading.RLock()
        self._robots: dict[str, RobotView] = {}
        self.clock = SimClock(dt)
        self.params = params if params is not None else LiveParameters()
        self.live = LiveInput(self.params)
        self._driver: Driver = PoseTour()
        self._scene_driver: Driver | None = None  # the driver the loaded scene brought
        self._title = "empty"
        self._source: Path | None = None  # the scenario file shown, if any
        self._updates = 0
        self._dropped = 0
        self._listeners: dict[str, list[Callable[[], None]]] = {}
        self._stop = threading.Event()
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []
        self._objects: list[viser.SceneNodeHandle] = []  # nodes removed with the scene
        self._after_push: list[Callable[[], None]] = []
        self._pushed_t = 0.0  # simulated time of the state last sent to the pages
        self.pacer = PagePacer(self.server, lambda: self._pushed_t, lambda: self.clock.playing)
        self._build_world()
        self.panels = build_panels(self, default_tabs(self.kinds) if tabs is None else tabs)
        self.tabs = TabSwitch(self.gui)  # a scenario opens on its own tab

    # ------------------------------------------------------------ read-only views
    @property
    def robots(self) -> Mapping[str, RobotView]:
        """The robots by name (read-only; change them through the methods)."""
        return MappingProxyType(self._robots)

    @property
    def driver(self) -> Driver:
        """The active driver (read-only; see :meth:`use_driver`, :meth:`set_driver`)."""
        return self._driver

    @property
    def objects(self) -> tuple[viser.SceneNodeHandle, ...]:
        """Scene nodes of the loaded scene (removed by :meth:`clear`)."""
        return tuple(self._objects)

    @property
    def title(self) -> str:
        return self._title

    @property
    def source(self) -> Path | None:
        """The scenario file of the scene shown (set by :meth:`open` before the scene
        loads, so panels see it on the ``driver`` event), or None."""
        return self._source

    @property
    def updates(self) -> int:
        """Scene updates sent so far."""
        return self._updates

    @property
    def gui(self) -> Any:
        """The viser GUI API: panels add their controls with it (inside their tab)."""
        return self.server.gui

    @property
    def scene(self) -> Any:
        """The viser scene API: openers and drivers draw nodes with it."""
        return self.server.scene

    @property
    def dt(self) -> float:
        """Simulation step (s)."""
        return self.clock.dt

    @property
    def time(self) -> float:
        """Simulated time (s)."""
        return self.clock.t

    @property
    def playing(self) -> bool:
        return self.clock.playing

    @property
    def real_time_factor(self) -> float:
        return self.clock.real_time_factor

    def locked(self) -> threading.RLock:
        """The studio lock, as a context manager (``with studio.locked(): ...``)."""
        return self._lock

    def robot_names(self) -> tuple[str, ...]:
        return tuple(self._robots)

    def find_robot(self, name: str) -> RobotView | None:
        """The robot called ``name``, or None (see :meth:`robot`, which raises)."""
        return self._robots.get(name)

    def clients(self) -> list[Any]:
        """The connected pages (viser client handles)."""
        return list(self.server.get_clients().values())

    def views(self) -> list[tuple[str, RobotView]]:
        """``(name, view)`` of every robot, in scene order."""
        return list(self._robots.items())

    def show_grid(self, visible: bool) -> None:
        self.grid.visible = bool(visible)

    def after_push(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` after every pushed update (inside the lock)."""
        self._after_push.append(callback)

    # ------------------------------------------------------------------ server
    @property
    def port(self) -> int:
        return self.server.get_port()

    @property
    def base_url(self) -> str:
        """The page's address without the token (``http://HOST:PORT/``)."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    @property
    def url(self) -> str:
        """The address to open: :attr:`base_url` with ``?token=...`` (unless the
        studio has no token)."""
        token = self.access.token
        return self.base_url + ("" if token is None else f"?token={token}")

    def _guard(self, host: str, token: bool | str) -> PageAccess:
        """The page's access checks, installed on viser's web server."""
        if token is True:
            chosen: str | None = new_token()
        elif token is False or token is None:
            chosen = None
        else:
            chosen = str(token)
        access = PageAccess(host, self.server.get_port(), chosen)
        try:
            access.install(find_websockets_server(access.port))
        except BaseException:
            with contextlib.redirect_stdout(io.StringIO()):
                self.server.stop()
            raise
        return access

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
            thread = threading.Thread(target=self._loop, name="studio-loop", daemon=True)
            thread.start()  # kept only once started: a Ctrl+C in between leaves none to join
            self._thread = thread

    def stop(self) -> None:
        """Stop the loop and the server; calling it again does nothing more. Panels hear
        ``stop`` first (work of their own threads must not reach a stopped server)."""
        if not self._stopped:
            self.emit("stop")
        self._stop.set()
        self.pacer.stop()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        if self._stopped:
            return
        self._stopped = True
        self.live.close()
        with contextlib.redirect_stdout(io.StringIO()):  # viser says "Server stopped"
            self.server.stop()

    def serve_forever(self) -> None:
        """Start the loop and block until Ctrl+C (or :meth:`stop` from another thread)."""
        try:
            self.start()
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
                if self.live.poll():
                    self.emit("params")
                self.run_due()
                self.push_due()
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
        (a configuration changed outside the sliders), ``clock`` (time readout),
        ``params`` (a device changed a live parameter), ``stop`` (the studio stops)."""
        self._listeners.setdefault(event, []).append(callback)

    def emit(self, event: str) -> None:
        for cb in list(self._listeners.get(event, [])):
            try:
                cb()
            except Exception as exc:
                self.report_error(f"panel update ({event})", exc)

    def notify(self, title: str, body: str, error: bool = False) -> None:
        """Show a notification in every connected page."""
        for client in self.clients():
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
        """Decorator for GUI callbacks: errors become notifications, never crashes; every
        file the callback makes robotsim read must be in the workspace
        (:meth:`Workspace.confined`)."""

        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                try:
                    with self.workspace.confined():  # what the page opens stays inside
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
        with self._lock:
            name = self._unique(name or model.name)
            T0 = None if T_world_base is None else np.asarray(T_world_base, dtype=float)
            view = RobotView(self.server, name, model, T0, q0)
            if T_world_base is None:
                b = view.world_bounds()
                y = 0.0
                if self._robots:
                    y_max = max(v.world_bounds()[1, 1] for v in self._robots.values())
                    y = y_max + _GAP - b[0, 1]
                z = -b[0, 2] if (model.floating or b[0, 2] < -1e-6) else 0.0
                view.initial_T_world_root = trans([0.0, y, z])
                view.reset()
            elif on_ground:
                view.initial_T_world_root = trans([0.0, 0.0, -view.world_bounds()[0, 2]]) @ T0
                view.reset()
            self._robots[name] = view
            view.push(force=True)
        self.emit("robots")
        return view

    def _unique(self, base: str) -> str:
        safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in base) or "robot"
        name, k = safe, 2
        while name in self._robots:
            name, k = f"{safe}_{k}", k + 1
        return name

    def remove_robot(self, name: str) -> None:
        with self._lock:
            view = self.robot(name)
            view.remove()
            del self._robots[name]
        self.emit("robots")

    def clear(self) -> None:
        """An empty scene: no robots or objects, time 0, paused, the pose tour."""
        with self._lock:
            for view in self._robots.values():
                view.remove()
            self._robots.clear()
            for h in self._objects:
                h.remove()
            self._objects = []
            self.clock.playing = False
            self.clock.reset()
            self._driver = PoseTour()
            self._scene_driver = None
        self.emit("robots")

    def robot(self, name: str) -> RobotView:
        try:
            return self._robots[name]
        except KeyError:
            raise UnknownNameError("robot", name, list(self._robots)) from None

    def keep_objects(self, handles: Iterable[viser.SceneNodeHandle]) -> None:
        """Keep scene nodes that belong to the loaded scene (removed by :meth:`clear`)."""
        with self._lock:
            self._objects.extend(handles)

    def set_q(self, robot: str, q: np.ndarray) -> None:
        """Set a robot's configuration ``(nq,)`` (rad/m, clipped into the limits)."""
        with self._lock:
            self.robot(robot).set_q(q)
        self.emit("state")

    def set_joint(self, robot: str, joint: str, value: float) -> None:
        """Set one joint (rad or m)."""
        with self._lock:
            view = self.robot(robot)
            q = view.q.copy()
            q[view.model.joint_index(joint)] = float(value)
            view.set_q(q)
        self.emit("state")

    # ------------------------------------------------------------------- scene
    def load_scene(
        self,
        title: str,
        robots: Sequence[SceneRobot],
        *,
        draw: Callable[[Studio], Iterable[viser.SceneNodeHandle]] | None = None,
        driver: Driver | None = None,
        camera: np.ndarray | None = None,
    ) -> str:
        """Replace the scene: clear → add ``robots`` → ``draw(studio)`` (scene nodes kept
        until the next clear) → ``driver`` (installed and offered in the Drive menu; its
        ``attach(studio)``, if it has one, draws and shows its first state) → title →
        camera on ``camera`` bounds ``(2, 3)`` (default: all robots). Every opener uses
        it; validate before calling, so a bad file leaves the scene as it was. Returns
        ``"<title>: <robot names>"``."""
        self.clear()
        for r in robots:
            self.add_robot(r.model, name=r.name, T_world_base=r.T_world_base, q=r.q,
                           on_ground=r.on_ground)  # fmt: skip
        with self._lock:
            if draw is not None:
                self._objects.extend(draw(self))
            if driver is not None:
                self._scene_driver = driver
                self._driver = driver
                attach = getattr(driver, "attach", None)
                if attach is not None:
                    attach(self)
        self.push()
        self._title = title
        self.frame_camera(camera)
        self.emit("driver")
        return f"{title}: " + ", ".join(self._robots)

    def load_default(self) -> None:
        """The default scene (see :func:`default_robots`)."""
        names = default_robots()
        self.load_scene("default scene: " + ", ".join(names), [SceneRobot(n) for n in names])
        self._title = "default scene: " + ", ".join(self._robots)

    def open(self, target: str | Path) -> str:
        """Open a library robot, a robot file, a scenario file (any kind of
        :attr:`kinds`, or a ``.yaml`` with a ``robots:`` section) or a recorded run (a
        run store, ``runs.sqlite#7``: :mod:`robotsim.studio.replay`); replaces the scene.
        Returns a one-line description."""
        from robotsim.shipped import find_shipped
        from robotsim.studio.scenarios import is_motion_file, is_scenario_file, open_scenario

        s = str(target).strip()
        if not s:
            raise InputError("nothing to open: give a robot name, a robot file or a scenario")
        from robotsim.studio.replay import open_run, parse_run_target

        stored = parse_run_target(s) if s not in library_names() else None
        if stored is not None:  # a run store (#RUN): replay a recorded run
            said = open_run(self, *stored)
            self._source = None
            return said
        if s not in library_names():
            path = Path(s)
            if not path.exists():  # a path that exists wins over a shipped file's name
                path = find_shipped(s, "scenario") or find_shipped(s, "motion") or path
            if is_scenario_file(path):
                previous, self._source = self._source, path.resolve()
                try:
                    said = open_scenario(self, path)
                except BaseException:
                    self._source = previous
                    raise
                editor = self.panels.get("motion")
                if editor is not None and is_motion_file(path):
                    # a motion file opens in the editor, ready to play (the editor reads
                    # files in the workspace only; outside it the robot is shown alone)
                    if self.workspace.contains(path.resolve()):
                        editor.load(path.resolve())
                self._show_tab_of(path)
                return said
        model = load_robot(s)  # validate before clearing the scene
        shown = self._shown_path(s)
        title = f"robot {model.name}" + (f" ({shown})" if shown != model.name else "")
        self._source = None
        self.load_scene(title, [SceneRobot(model)])
        self._show_tab("Pose")
        return self.title

    def _show_tab(self, label: str) -> None:
        if label.lower() in self.panels:
            self.tabs.show(label)

    def _show_tab_of(self, path: Path) -> None:
        """The tab of the scenario just opened: its kind's panel, the motion editor for
        motion files, else Pose."""
        from robotsim.scenario.kinds import kind_of
        from robotsim.studio.scenarios import is_motion_file, read_yaml

        label = "Pose"
        if is_motion_file(path):
            label = "Motion"
        else:
            try:
                kind = kind_of(read_yaml(path), str(path), self.kinds)
                if kind.panel_tab is not None:
                    label = kind.panel_tab[0]
            except InputError:
                pass
        self._show_tab(label)

    def _shown_path(self, s: str) -> str:
        """A file as the page names it: relative to the workspace root when inside it,
        else its file name (never the whole absolute path); a library name as given."""
        path = Path(s)
        if not path.exists():
            return s
        try:
            return str(path.resolve().relative_to(self.workspace.root))
        except (ValueError, OSError):
            return path.name

    def frame_camera(self, bounds: np.ndarray | None = None) -> None:
        """Point the camera (initial and every connected client) at ``bounds`` ``(2, 3)``
        (m; default: all robots)."""
        with self._lock:
            if bounds is None and not self._robots:
                return
            if bounds is None:
                bs = np.array([v.world_bounds() for v in self._robots.values()])
                bounds = np.stack([bs[:, 0].min(axis=0), bs[:, 1].max(axis=0)])
        eye, target = camera_view(np.asarray(bounds, dtype=float))
        self.server.initial_camera.position = tuple(eye)
        self.server.initial_camera.look_at = tuple(target)
        for client in self.server.get_clients().values():
            client.camera.position = tuple(eye)
            client.camera.look_at = tuple(target)

    # ------------------------------------------------------------- simulation
    def driver_names(self) -> tuple[str, ...]:
        """What the Drive menu offers: this studio's drivers, then the loaded scene's."""
        names = dict.fromkeys(self._drivers)
        if self._scene_driver is not None:
            names[self._scene_driver.name] = None
        return tuple(names)

    @property
    def driver_name(self) -> str:
        return self._driver.name

    def driver_as(self, cls: type[D]) -> D | None:
        """The active driver if it is a ``cls``, else None (a panel's own driver)."""
        d = self._driver
        return d if isinstance(d, cls) else None

    def add_driver(self, name: str, factory: Callable[[], Driver]) -> None:
        """Offer a driver in this studio's Drive menu."""
        with self._lock:
            self._drivers[name] = factory
        self.emit("driver")

    def set_driver(self, name: str) -> None:
        """Make the driver called ``name`` (see :meth:`driver_names`) active, reset."""
        sd = self._scene_driver
        if sd is not None and name == sd.name:
            factory: Callable[[], Driver] = lambda: sd  # noqa: E731
        elif name in self._drivers:
            factory = self._drivers[name]
        else:
            raise UnknownNameError("driver", name, list(self.driver_names()))
        with self._lock:
            self._driver = factory()
            self._driver.reset(self)

    def release_driver(self, driver: Driver) -> None:
        """If ``driver`` is active, go back to the pose tour."""
        with self._lock:
            active = self._driver is driver
            if active:
                self._driver = PoseTour()
        if active:
            self.emit("driver")

    def use_driver(self, driver: Driver, restart: bool = False) -> None:
        """Make ``driver`` (an instance) active; ``restart``: pause, time back to 0 and
        reset it first. Emits ``driver``."""
        with self._lock:
            if restart:
                self.clock.playing = False
                self.clock.reset()
            self._driver = driver
            if restart:
                driver.reset(self)
        self.emit("driver")

    def halt(self) -> None:
        """Stop playing, without events (a driver at its end, inside :meth:`tick`)."""
        self.clock.playing = False

    def play(self, playing: bool = True) -> None:
        """Play or pause. Pausing waits for a tick in progress: once it returns, time
        stands still at the state the pages were last sent."""
        with self._lock:
            self.clock.playing = playing
        self.emit("clock")

    def run_due(self) -> int:
        """Run the ticks the clock owes now (the wall time since the last call times
        the live time scale, :meth:`SimClock.due`), whatever the pages draw (they get
        the latest state at their own rate: :mod:`robotsim.studio.pacing`); the update
        loop calls it every ``dt`` of wall time. Returns how many ran."""
        with self._lock:
            self.clock.time_scale = self.params.time_scale
            ran = 0
            for _ in range(self.clock.due()):
                if not self.clock.playing:
                    self.clock.drop_owed()
                    break
                self.tick()
                ran += 1
            return ran

    def push_due(self) -> int:
        """The update loop's send: while playing, the latest state goes out only once
        every responsive page shows the last one (:meth:`PagePacer.ready`); a state not
        sent is a dropped frame (counted in :attr:`dropped`), never a slower simulation."""
        if self.clock.playing and not self.pacer.ready():
            if any(v.dirty for v in self._robots.values()):
                self._dropped += 1
            return 0
        return self.push()

    @property
    def dropped(self) -> int:
        """States not sent because a page was still drawing the last one."""
        return self._dropped

    def page_frame_rates(self) -> list[float]:
        """Frames per second each connected page showed over the last 2 s of play."""
        return self.pacer.frame_rates()

    def recorded_end(self) -> float | None:
        """The latest time (s) the active driver can show without simulating further
        (see :meth:`seek`), or None when its runs are not recorded."""
        return recorded_end(self._driver)

    def seek(self, t: float) -> float:
        """Pause and show the recorded state at time ``t`` (s), clamped into
        ``[0, recorded_end()]`` and rounded to a whole tick; Play continues from there
        (replaying the recording, then simulating on). Returns the time shown."""
        with self._lock:
            end = self.recorded_end()
            if end is None:
                raise InputError(f"the {self._driver.name!r} driver has no recorded run to scrub")
            self.clock.playing = False
            steps = round(min(max(float(t), 0.0), end) / self.clock.dt)
            if steps * self.clock.dt > end + 1e-9:
                steps -= 1
            self.clock.seek(steps)
            self._driver.show_at(self, self.clock.t)  # type: ignore[attr-defined]
        self.push()
        self.emit("state")
        self.emit("clock")
        return self.clock.t

    def tick(self) -> None:
        """Advance the simulation one step (the driver moves the robots)."""
        with self._lock:
            t = self.clock.advance()
            self._driver.step(self, t, self.clock.dt)

    def step(self) -> None:
        """One step while paused, pushed to the view at once."""
        self.tick()
        self.push()
        self.emit("state")
        self.emit("clock")

    def reset(self) -> None:
        """Time back to 0, every robot at its start pose, paused."""
        with self._lock:
            self.clock.playing = False
            self.clock.reset()
            for v in self._robots.values():
                v.reset()
            self._driver.reset(self)
        self.push()
        self.emit("state")
        self.emit("clock")

    def push(self, force: bool = False) -> int:
        """Send changed link poses of every robot in one atomic update; returns the
        number of links sent."""
        with self._lock, self.server.atomic():
            n = sum(v.push(force) for v in self._robots.values())
            self._pushed_t = self.clock.t
            self.pacer.pushed()
            if n:
                self._updates += 1
                for cb in self._after_push:
                    cb()
        return n
