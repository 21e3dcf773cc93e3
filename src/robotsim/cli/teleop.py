"""``robotsim teleop ROBOT [--gamepad 0,1] [--keyboard] [--mode kinematic|physics]``.

Opens the studio with a "Teleop" panel and drives the two arms live: the first gamepad
slot listed drives the left arm, the second the right; ``--keyboard`` drives one arm
from this terminal. ``--headless`` runs the same loop without the studio for
``--duration`` seconds and prints the events.

The page is served like ``robotsim studio``'s (:mod:`robotsim.cli.studio_page`): the
printed URL carries a launch token (``--no-token`` drops it), the page reads and writes
files only under ``--root DIR`` (default: the current folder), and a ``--host`` other
than loopback prints a warning (``docs/security.md``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from robotsim.cli.studio_page import announce_page, page_options, serve_page

if TYPE_CHECKING:
    from robotsim.hands.teleop import HandsTeleop

__all__ = ["register"]


def _slots(text: str) -> list[int]:
    from robotsim.errors import InputError

    if text.strip().lower() in ("", "none"):
        return []
    try:
        return [int(v) for v in text.split(",") if v.strip() != ""]
    except ValueError:
        raise InputError(f"--gamepad: expected slots like 0,1 or 'none', got {text!r}") from None


@click.command("teleop")
@click.argument("robot", default="dual_arm_hands")
@click.option(
    "--gamepad",
    "gamepad",
    default=None,
    help="Gamepad slots in arm order (left, right), or 'none'. Default: 0,1 when the "
    "'io' extra (pygame) is installed and --keyboard is not given, else none.",
)
@click.option("--keyboard", is_flag=True, help="Drive one arm from the keyboard.")
@click.option(
    "--keyboard-source",
    type=click.Choice(["page", "terminal"]),
    default=None,
    help="Where --keyboard reads keys: the studio page (default) or this terminal "
    "(default with --headless).",
)
@click.option("--keyboard-side", type=click.Choice(["L", "R"]), default="L", show_default=True)
@click.option(
    "--mapping",
    default="arm_paper",
    show_default=True,
    help="Gamepad mapping (name or robotsim-input/1 file).",
)
@click.option("--keyboard-mapping", default="keyboard_arm", show_default=True)
@click.option(
    "--mode", type=click.Choice(["kinematic", "physics"]), default="kinematic", show_default=True
)
@click.option(
    "--scenario",
    type=click.Path(path_type=Path),
    default=None,
    help="Take the ball, tables and start pose from a hand_ball_transfer file.",
)
@click.option(
    "--object",
    "obj",
    default=None,
    help="Grasp this object instead of the ball: a mesh, URDF or MJCF file, or TYPE:SIZES "
    "(box:0.04,0.04,0.05; docs/objects.md). It rests on the table in front of the left hand.",
)
@page_options
@click.option("--headless", is_flag=True, help="No studio: run the loop and print events.")
@click.option(
    "--duration",
    type=float,
    default=None,
    help="Stop after this many seconds (default: until Ctrl+C).",
)
def teleop_cmd(robot: str, gamepad: str | None, keyboard: bool, keyboard_source: str | None,
               keyboard_side: str, mapping: str,
               keyboard_mapping: str, mode: str, scenario: Path | None, obj: str | None,
               port: int, host: str,
               root: str | None, no_token: bool, headless: bool,
               duration: float | None) -> None:  # fmt: skip
    """Teleoperate the two arms with 3-finger hands (gamepads or keyboard) in the studio."""
    from robotsim.errors import InputError
    from robotsim.hands.run import make_sim
    from robotsim.hands.scene import default_scene
    from robotsim.hands.teleop import HandsTeleop
    from robotsim.model import load_robot

    if duration is not None and not duration > 0:
        raise InputError(f"--duration must be > 0 s, got {duration}")
    if not headless:
        from robotsim.studio.workspace import Workspace

        Workspace(root)  # a bad --root is an error before any device opens
    if scenario is not None and obj is not None:
        raise InputError("--object and --scenario: give one (a scenario file names its object)")
    if scenario is not None:
        from robotsim.hands.scenario_spec import load_hand_scenario

        spec, scene = load_hand_scenario(scenario)
    else:
        thing = None
        if obj is not None:
            from robotsim.objects import load_object

            thing = load_object(obj)
        spec, scene = None, default_scene(load_robot(robot), thing)
    dt = 1.0 / 60.0 if mode == "kinematic" else 0.016
    sim = make_sim(scene, mode, dt, spec)
    source = keyboard_source or ("terminal" if headless else "page")
    if headless and source == "page":
        raise InputError("--keyboard-source page needs the studio (drop --headless)")
    if gamepad is None and keyboard:
        gamepad = "none"  # the keyboard drives: no gamepad slots to report as missing
    if gamepad is None:
        import importlib.util

        gamepad = "0,1" if importlib.util.find_spec("pygame") is not None else "none"
        if gamepad == "none":
            click.echo("robotsim teleop: no gamepads (pip install 'robotsim[io]' adds them)")
    page_keys = None
    if keyboard and source == "page":
        from robotsim.studio.keyboard import BrowserKeyboard

        page_keys = BrowserKeyboard(host)
    tele = HandsTeleop(sim, _slots(gamepad), keyboard, keyboard_side, mapping, keyboard_mapping,
                       keyboard_device=page_keys)  # fmt: skip
    tele.open_devices()
    try:
        for line in tele.devices():
            click.echo(f"robotsim teleop: {line}")
        if headless:
            _headless(tele, duration)
        else:
            _studio(tele, host, port, duration, root, no_token)
    finally:
        tele.close()
        if page_keys is not None:
            page_keys.close()


def _headless(tele: HandsTeleop, duration: float | None) -> None:
    sim = tele.sim
    start = time.perf_counter()
    next_t = start
    ticks = 0
    try:
        while duration is None or sim.t < duration - 1e-9:
            for e in tele.tick():
                hand = "" if e.hand is None else f" {e.hand}"
                click.echo(f"{e.t:8.3f} s  {e.type}{hand}" + (f" ({e.detail})" if e.detail else ""))
            ticks += 1
            next_t += sim.dt
            delay = next_t - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
    except KeyboardInterrupt:
        pass
    wall = time.perf_counter() - start
    click.echo(f"robotsim teleop: {ticks} ticks of {sim.dt * 1000:.1f} ms in {wall:.2f} s "
               f"({ticks / wall if wall > 0 else 0:.0f} Hz)")  # fmt: skip


def teleop_studio(tele: HandsTeleop, host: str = "127.0.0.1", port: int = 8080,
                  root: str | None = None, no_token: bool = False) -> Any:  # fmt: skip
    """The studio ``robotsim teleop`` serves (not started): the Teleop tab first, the
    hands driver ticking ``tele`` while it plays (it plays at once); returns it."""
    from functools import partial

    from robotsim.studio import Studio
    from robotsim.studio.app import SceneRobot
    from robotsim.studio.drivers import PoseTour
    from robotsim.studio.hands.driver import ROBOT_NAME, HandsDriver
    from robotsim.studio.hands.panel import HandsPanel
    from robotsim.studio.panels import Tab, default_tabs

    sim = tele.sim
    driver = HandsDriver(tele, ROBOT_NAME)
    tabs = [Tab("Teleop", "device-gamepad", partial(HandsPanel, teleop=tele)),
            *default_tabs()]  # fmt: skip
    drivers = {PoseTour.name: PoseTour, driver.name: lambda: driver}
    studio = Studio(host=host, port=port, dt=sim.dt, tabs=tabs, drivers=drivers,
                    token=not no_token, root=root, params=tele.params)  # fmt: skip
    try:
        robot = SceneRobot(sim.model, ROBOT_NAME, sim.scene.T_world_robot, sim.snapshot().q)
        studio.load_scene(f"teleop {sim.model.name} ({sim.mode})", [robot], driver=driver)
        studio.play(True)
    except BaseException:
        studio.stop()
        raise
    return studio


def _studio(tele: HandsTeleop, host: str, port: int, duration: float | None,
            root: str | None, no_token: bool) -> None:  # fmt: skip
    studio = teleop_studio(tele, host, port, root, no_token)
    driver = studio.driver  # the hands driver (the page may switch drivers later)
    if duration is None:
        serve_page(studio, "teleop", host, port, no_token)
        return
    announce_page(studio, "teleop", host, port, no_token)
    studio.start()
    try:
        time.sleep(duration)
    finally:
        studio.stop()
    click.echo(f"robotsim teleop: {driver.ticks} ticks in {duration:.1f} s")


def register(group: click.Group) -> None:
    group.add_command(teleop_cmd)
