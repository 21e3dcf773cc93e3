"""``robotsim input devices|mappings|watch``: see what gamepads and keys produce."""

from __future__ import annotations

import time

import click

from robotsim.cli.common import echo_json
from robotsim.errors import InputError
from robotsim.jsonable import dumps as json_dumps

__all__ = ["register"]


def _vars(items: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--var: expected NAME=VALUE, got {item!r}")
        out[key] = value
    return out


@click.group("input")
def input_group() -> None:
    """Gamepads, keyboard and input mappings (docs/input.md)."""


@input_group.command("devices")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def devices_cmd(as_json: bool) -> None:
    """List connected gamepads by slot."""
    from robotsim.teleop import GamepadManager

    mgr = GamepadManager(max_slots=8)
    mgr.poll()
    devs = mgr.devices()
    if as_json:
        echo_json({"gamepads": [d.__dict__ for d in devs]})
    elif not devs:
        click.echo("no gamepads")
    else:
        for d in devs:
            click.echo(
                f"slot {d.slot}: {d.name} ({d.axes} axes, {d.buttons} buttons, "
                f"{d.hats} hats) guid {d.guid}"
            )


@input_group.command("mappings")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def mappings_cmd(as_json: bool) -> None:
    """List the built-in input mappings."""
    from robotsim.teleop import builtin_mappings, load_mapping

    maps = [load_mapping(n) for n in builtin_mappings()]
    if as_json:
        echo_json(
            {
                "mappings": {
                    m.name: {
                        "description": m.description,
                        "source": m.source,
                        "placeholders": sorted(m.placeholders()),
                    }
                    for m in maps
                }
            }
        )
    else:
        for m in maps:
            click.echo(f"{m.name}: {m.description}")


@input_group.command("watch")
@click.option(
    "--mapping",
    "mapping",
    default="arm_paper",
    show_default=True,
    help="A built-in mapping name or a mapping YAML file.",
)
@click.option("--var", "variables", multiple=True, help="Placeholder value, e.g. side=L.")
@click.option("--slot", type=int, default=0, show_default=True, help="Gamepad slot to read.")
@click.option("--keyboard", is_flag=True, help="Read the terminal keyboard instead.")
@click.option("--seconds", type=float, default=None, help="Stop after this long.")
@click.option("--hz", type=float, default=10.0, show_default=True, help="Lines per second.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
def watch_cmd(
    mapping: str,
    variables: tuple[str, ...],
    slot: int,
    keyboard: bool,
    seconds: float | None,
    hz: float,
    as_json: bool,
) -> None:
    """Print the commands a device produces through a mapping (Ctrl-C stops)."""
    from robotsim.teleop import GamepadManager, InputSnapshot, Mapper, TerminalKeyboard

    if not hz > 0:
        raise InputError(f"--hz must be > 0, got {hz}")
    mapper = Mapper(mapping, _vars(variables) or None)
    kb = TerminalKeyboard() if keyboard else None
    pads = None if keyboard else GamepadManager(max_slots=max(2, slot + 1))
    end = None if seconds is None else time.monotonic() + seconds
    try:
        while end is None or time.monotonic() < end:
            if kb is not None:
                snap = kb.poll()
            else:
                assert pads is not None
                snap = pads.poll().get(slot, InputSnapshot())
            cmd = mapper.update(snap)
            active = {k: round(v, 3) for k, v in cmd.joint_velocities.items() if v}
            line = {
                "joint_velocities": active,
                "base_velocity": [round(v, 3) for v in cmd.base_velocity],
                "grip": cmd.grip,
                "speed": round(cmd.speed, 4),
                "pressed": sorted(cmd.pressed),
                "params": mapper.params.as_dict(),
            }
            click.echo(
                json_dumps(line) if as_json else " ".join(f"{k}={v}" for k, v in line.items())
            )
            time.sleep(1.0 / hz)
    except KeyboardInterrupt:
        pass
    finally:
        if kb is not None:
            kb.close()


@input_group.command("drive")
@click.option(
    "--server", default="127.0.0.1:9870", show_default=True, help="HOST:PORT of robotsim serve."
)
@click.option("--robot", default=None, help="Robot to drive (default: the first mobile one).")
@click.option(
    "--mapping",
    "mapping",
    default=None,
    help="Mapping name or file (default: mobile_base, keyboard_base with --keyboard).",
)
@click.option("--var", "variables", multiple=True, help="Placeholder value, e.g. side=L.")
@click.option("--slot", type=int, default=0, show_default=True, help="Gamepad slot to read.")
@click.option("--keyboard", is_flag=True, help="Read the terminal keyboard instead.")
@click.option("--seconds", type=float, default=None, help="Stop after this long.")
@click.option("--hz", type=float, default=30.0, show_default=True, help="Command rate.")
def drive_cmd(
    server: str,
    robot: str | None,
    mapping: str | None,
    variables: tuple[str, ...],
    slot: int,
    keyboard: bool,
    seconds: float | None,
    hz: float,
) -> None:
    """Drive a served robot from a gamepad or the keyboard, over UDP: base velocity from
    the mapping's base bindings, joint targets moved at the mapping's joint velocities."""
    from robotsim.remote import Client, RemoteError
    from robotsim.teleop import GamepadManager, InputSnapshot, Mapper, TerminalKeyboard

    if not hz > 0:
        raise InputError(f"--hz must be > 0, got {hz}")
    name = mapping or ("keyboard_base" if keyboard else "mobile_base")
    mapper = Mapper(name, _vars(variables) or None)
    dt = 1.0 / hz
    with Client(server, timeout=1.0) as sim:
        robots = sim.info()["robots"]
        if robot is None:
            robot = next((n for n, r in robots.items() if r["mobile"]), next(iter(robots)))
        if robot not in robots:
            raise InputError(f"--robot: unknown robot {robot!r}; valid: {', '.join(robots)}")
        info = robots[robot]
        joints = dict(sim.state([robot])["robots"][robot]["joints"])
        kb = TerminalKeyboard() if keyboard else None
        pads = None if keyboard else GamepadManager(max_slots=max(2, slot + 1))
        end = None if seconds is None else time.monotonic() + seconds
        moving = False
        try:
            while end is None or time.monotonic() < end:
                snap = (
                    kb.poll()
                    if kb is not None
                    else (
                        pads.poll().get(slot, InputSnapshot())
                        if pads is not None
                        else InputSnapshot()
                    )
                )
                cmd = mapper.update(snap)
                if info["mobile"] and (any(cmd.base_rates) or moving):
                    sim.set_base_velocity(robot, *cmd.base_velocity)
                    moving = any(cmd.base_rates)
                targets = {
                    j: joints[j] + v * dt
                    for j, v in cmd.joint_velocities.items()
                    if v and j in joints and j in info["joints"]
                }
                if targets:
                    try:
                        sim.set_joints(robot, targets)
                        joints.update(targets)
                    except RemoteError:  # at a joint limit: hold there
                        pass
                time.sleep(dt)
        except KeyboardInterrupt:
            pass
        finally:
            if info["mobile"]:
                sim.set_base_velocity(robot, 0.0, 0.0, 0.0)
            if kb is not None:
                kb.close()


def register(group: click.Group) -> None:
    group.add_command(input_group)
