"""``robotsim robotlink ...``: the robot-side emulator and live servo streaming."""

from __future__ import annotations

import click

__all__ = ["register"]


@click.group("robotlink")
def robotlink_group() -> None:
    """Serial link to a real robot (Dynamixel servos, controller) and its emulator."""


@robotlink_group.command("emulate")
@click.option(
    "--port",
    required=True,
    help="Serial device to serve (e.g. one end of a "
    "'socat -d -d pty,raw,echo=0 pty,raw,echo=0' pair).",
)
@click.option("--robot", default="humanoid17", show_default=True)
@click.option(
    "--store",
    type=click.Path(dir_okay=False),
    help="File that keeps the stored program across restarts (the 'flash').",
)
@click.option("--baud", type=int, default=1_000_000, show_default=True)
@click.option(
    "--latency",
    type=click.FloatRange(0.0, 1.0),
    default=0.0,
    show_default=True,
    help="Seconds before each servo answer (a slow adapter or a loaded machine).",
)
def emulate_cmd(port: str, robot: str, store: str | None, baud: int, latency: float) -> None:
    """Act as the robot: Dynamixel servos (Protocol 2.0) and the program controller."""
    from pathlib import Path

    from robotsim.model import load_robot
    from robotsim.motion.profile import load_profile
    from robotsim.robotlink import FaultPlan, RobotEmulator, SerialTransport

    model = load_robot(robot)
    emu = RobotEmulator(
        SerialTransport(port, baud),
        model,
        load_profile(model.name),
        store=Path(store) if store else None,
        faults=FaultPlan(servo_latency=latency),
    )
    click.echo(
        f"emulating {model.name} on {port} ({len(emu.tables)} servos, controller); Ctrl-C to stop",
        err=True,
    )
    try:
        emu.serve_forever()
    except KeyboardInterrupt:
        pass
    if emu.error is not None:
        raise emu.error


@robotlink_group.command("ping")
@click.option("--port", required=True)
@click.option("--robot", default="humanoid17", show_default=True)
def ping_cmd(port: str, robot: str) -> None:
    """Ping every servo of the robot profile."""
    from robotsim.model import load_robot
    from robotsim.motion.profile import load_profile
    from robotsim.robotlink import ServoBus

    model = load_robot(robot)
    with ServoBus(port, model, load_profile(model.name)) as bus:
        for joint, number in bus.ping().items():
            click.echo(f"{joint}: model {number}")


@robotlink_group.command("stream")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--port", required=True)
@click.option("--robot", help="Default: the file's robot.")
@click.option("--tick", type=float, default=0.02, show_default=True, help="Seconds per command.")
@click.option("--fast", is_flag=True, help="Do not wait for real time between ticks.")
def stream_cmd(file: str, port: str, robot: str | None, tick: float, fast: bool) -> None:
    """Stream FILE's interpolated poses to the servos (sync write) and read them back."""
    from robotsim.motion.report import load_for_playback
    from robotsim.motion.timeline import compile_program
    from robotsim.robotlink import ServoBus, stream

    program, model, profile = load_for_playback(file, robot)
    samples = compile_program(program, model, file).sample("fixed_tick", tick=tick)
    with ServoBus(port, model, profile) as bus:
        bus.ping()
        bus.torque(True)
        rep = stream(bus, samples, realtime=not fast)
    click.echo(
        f"sent {rep.ticks_sent} poses in {rep.seconds:.2f} s; read back "
        f"{rep.readbacks} times, largest error {rep.max_readback_error_ticks} ticks"
    )


def register(group: click.Group) -> None:
    group.add_command(robotlink_group)
