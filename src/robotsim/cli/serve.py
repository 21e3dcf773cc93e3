"""``robotsim serve SCENARIO|ROBOT --udp HOST:PORT [--rate R]``: remote control over UDP.

SCENARIO is a scenario YAML (its physics world is built as ``robotsim run`` would; a
``kind: walk`` scenario serves its humanoid walking, steered by ``set_base_velocity``);
ROBOT is a library robot name or a robot file, served alone on a ground plane in the
physics engine (a wheeled base floats with its wheels on the ground and velocity motors
on them, so ``set_base_velocity`` drives it), or without dynamics with ``--kinematic``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from robotsim.cli.common import echo_json
from robotsim.errors import InputError
from robotsim.jsonable import dumps as json_dumps
from robotsim.remote.server import RemoteServer, ServerLimits, parse_address

if TYPE_CHECKING:
    from robotsim.remote.target import SimulationTarget

__all__ = ["build_target", "register"]


def _is_scenario(path: Path) -> bool:
    if not path.is_file() or path.suffix.lower() not in (".yaml", ".yml"):
        return False
    import yaml

    from robotsim.validation import safe_load  # pydantic: not at every CLI start

    try:
        data = safe_load(path.read_bytes())
    except yaml.YAMLError:
        return False
    return isinstance(data, dict) and not str(data.get("format", "")).startswith("robotsim-robot")


def _scenario_world(path: Path, seed: int | None) -> tuple[Any, Any]:
    """The physics World of a scenario file (robots at their starts, no controllers:
    the remote client is the controller) and its robots' sensors (a rig, or None)."""
    from robotsim.physics import World
    from robotsim.scenario_yaml import read_scenario_yaml

    data = read_scenario_yaml(path)
    kind = data.get("kind")
    if kind != "mobile":
        raise InputError(
            f"{path}: kind: {kind!r}: robotsim serve runs 'mobile' scenarios; "
            "serve a robot name or file for anything else"
        )
    from robotsim.mobile import build_mobile, load_mobile
    from robotsim.mobile.sensing import rig_of

    sc, robots, obstacles = load_mobile(data, str(path), seed)
    world = World(
        build_mobile(sc, robots, obstacles, str(path)), seed=sc.seed if seed is None else seed
    )
    return world, rig_of(world, sc, robots, str(path))


def _walk_scenario(path: Path, kinematic: bool) -> SimulationTarget | None:
    """A ``kind: walk`` scenario as a walking target (its robot, friction and walk
    parameters; the remote client steers it instead of the file's commands); None for
    other kinds."""
    from robotsim.scenario_yaml import read_scenario_yaml

    data = read_scenario_yaml(path)
    if data.get("kind") != "walk":
        return None
    if kinematic:
        raise InputError("--kinematic: a walk scenario runs in physics; drop --kinematic")
    from robotsim.errors import ScenarioError
    from robotsim.model import load_robot
    from robotsim.validation import validate_as
    from robotsim.walk.biped import biped_of
    from robotsim.walk.remote import WalkTarget
    from robotsim.walk.run import WalkScenario, scenario_params, scenario_robot

    sc = validate_as(WalkScenario, data, str(path), ScenarioError)
    model = load_robot(scenario_robot(sc.robot, str(path)))
    return WalkTarget(biped_of(model), sc.friction, scenario_params(sc.params, str(path)))


def _robot_sensors(world: Any, model: Any) -> Any:
    """The sensors of a robot served alone: its profile file's (docs/sensors.md)."""
    from robotsim.sensors import SensorRig, mount_sensors, sensor_list

    specs, where = sensor_list(model, [])
    if not specs:
        return None
    return SensorRig(world, mount_sensors(model.name, model, specs, world.timestep, where))


def build_target(
    spec: str, kinematic: bool = False, seed: int | None = None, walk: bool = False
) -> SimulationTarget:
    """A scenario file, a library robot or a robot file -> something to serve (``walk``:
    a biped walking, steered by ``set_base_velocity``)."""
    from robotsim.model import load_robot
    from robotsim.remote.target import KinematicTarget
    from robotsim.shipped import find_shipped

    path = Path(spec)
    if not path.exists():  # a path that exists wins over a shipped scenario's name
        path = find_shipped(spec, "scenario") or path
    if _is_scenario(path):
        walk_sc = _walk_scenario(path, kinematic)
        if walk_sc is not None:
            return walk_sc
        if walk:
            raise InputError(
                f"--walk: serves a robot (a name or a robot file) or a 'walk' scenario, not {path}"
            )
        if kinematic:
            raise InputError("--kinematic: serves a single robot; scenarios run in physics")
        from robotsim.remote.world_target import WorldTarget

        return WorldTarget(*_scenario_world(path, seed))
    model = load_robot(spec)
    name = model.name
    if walk:
        if kinematic:
            raise InputError("--walk: the walk runs in physics; drop --kinematic")
        from robotsim.walk.biped import biped_of
        from robotsim.walk.remote import WalkTarget

        return WalkTarget(biped_of(model))
    if kinematic:
        return KinematicTarget({name: model})
    from robotsim.physics import World
    from robotsim.remote.world_target import WorldTarget, robot_scene

    scene = robot_scene(model)
    world = World(scene, seed=seed or 0)
    return WorldTarget(world, _robot_sensors(world, scene.robots[0].model))


@click.command("serve")
@click.argument("target")
@click.option(
    "--udp",
    "udp",
    default="127.0.0.1:9870",
    show_default=True,
    help="HOST:PORT to bind (127.0.0.1 unless told otherwise; port 0 = any).",
)
@click.option(
    "--rate",
    type=float,
    default=1.0,
    show_default=True,
    help="Simulated seconds per wall second (2 = twice real time).",
)
@click.option("--duration", type=float, default=None, help="Stop after this many wall seconds.")
@click.option("--kinematic", is_flag=True, help="Robots without dynamics (kinematic engine).")
@click.option(
    "--walk",
    is_flag=True,
    help="A biped that walks: set_base_velocity steers its walk (docs/walk.md).",
)
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed of the world.")
@click.option("--paused", is_flag=True, help="Start paused (step with the 'step' op).")
@click.option(
    "--sender-rate",
    type=float,
    default=ServerLimits.sender_rate,
    show_default=True,
    help="Requests/s allowed per sender (excess dropped and counted).",
)
@click.option(
    "--global-rate",
    type=float,
    default=ServerLimits.global_rate,
    show_default=True,
    help="Requests/s allowed from all senders together (excess dropped and counted).",
)
@click.option("--db", default=None, help="Record the robots' state into this run store.")
@click.option(
    "--record-rate",
    type=float,
    default=50.0,
    show_default=True,
    help="Recording rate (Hz of simulated time) with --db.",
)
@click.option(
    "--foxglove",
    "foxglove",
    is_flag=False,
    flag_value="127.0.0.1:8765",
    default=None,
    metavar="[HOST:PORT]",
    help="Also stream the robots live to Foxglove over its WebSocket protocol "
    "(default 127.0.0.1:8765; port 0 = any). The printed URL carries a token.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the address and the final statistics as JSON lines.",
)
def serve_cmd(
    target: str,
    udp: str,
    rate: float,
    duration: float | None,
    kinematic: bool,
    walk: bool,
    seed: int | None,
    paused: bool,
    sender_rate: float,
    global_rate: float,
    db: str | None,
    record_rate: float,
    foxglove: str | None,
    as_json: bool,
) -> None:
    """Run TARGET (a scenario file or shipped name, a library robot or a robot file) in
    real time and accept remote-control requests over UDP (protocol: docs/protocol.md)."""
    if not 0 < rate <= 1000:
        raise InputError(
            f"--rate must be a positive number at most 1000 (simulated s per s), got {rate}"
        )
    if duration is not None and not (math.isfinite(duration) and duration >= 0):
        raise InputError(f"--duration must be a finite number of seconds >= 0, got {duration}")
    if not sender_rate > 0:
        raise InputError(f"--sender-rate must be > 0, got {sender_rate}")
    if not global_rate > 0:
        raise InputError(f"--global-rate must be > 0, got {global_rate}")
    if not record_rate > 0:
        raise InputError(f"--record-rate must be > 0 Hz, got {record_rate}")
    host, port = parse_address(udp)
    rc = None
    if db is not None:  # the run's receipt: what ran, not a replay (_serve_receipt)
        args = {"target": target, "rate": rate, "duration": duration, "kinematic": kinematic,
                "walk": walk, "seed": seed}  # fmt: skip
        rc = _serve_receipt(target, args, seed)
    try:
        sim = build_target(target, kinematic=kinematic, seed=seed, walk=walk)
        limits = ServerLimits(
            sender_rate=sender_rate,
            sender_burst=max(100.0, sender_rate / 10),
            global_rate=global_rate,
            global_burst=max(100.0, global_rate / 5),
        )
        recorder = None
        hooks: list[Any] = []
        if db is not None:
            from robotsim.recording import Recorder
            from robotsim.recording.scene import write_scene
            from robotsim.remote.record import StateSampler, target_scene

            recorder = Recorder(db)
            recorder.start_run(
                target,
                {"mode": "serve", "udp": udp, "rate": rate, "kinematic": kinematic},
                seed=seed,
            )
            write_scene(recorder, target_scene(sim))
            hooks.append(StateSampler(recorder, 1.0 / record_rate))
            rig = getattr(sim, "sensors", None)
            if rig is not None:  # the sensors' readings go into the same run
                rig.recorder = recorder
        live = _foxglove(sim, foxglove) if foxglove is not None else None
        if live is not None:
            hooks.append(live[1])
        on_step = None if not hooks else hooks[0] if len(hooks) == 1 else _chain(hooks)

        def on_fault(t: float, message: str) -> None:
            click.echo(f"fault at t={t:.4f} s: {message} (paused; send 'reset')", err=True)
            if recorder is not None:
                recorder.event(t, "fault", data={"message": message})
            if live is not None:
                live[0].event(
                    {"t": t, "type": "fault", "robot": None, "data": {"message": message}}
                )

        server = RemoteServer(
            sim, host, port, rate=rate, limits=limits, on_step=on_step, on_fault=on_fault
        )
        server.paused = paused
        h, p = server.address
        hello = {
            "serving": f"udp://{h}:{p}",
            "host": h,
            "port": p,
            "dt": sim.dt,
            "robots": {n: i.to_json() for n, i in sim.robots().items()},
            "run_id": None if recorder is None else recorder.run_id,
            "foxglove": None if live is None else live[0].server.url,  # type: ignore[union-attr]
        }
        if as_json:
            click.echo(json_dumps(hello))
        else:
            click.echo(
                f"serving {target} on udp://{h}:{p} (robots: {', '.join(sim.robots())}; "
                f"rate {rate:g}x; Ctrl-C stops)"
            )
            if live is not None:
                click.echo(f"Foxglove: open a WebSocket connection to {hello['foxglove']}")
    except BaseException:
        if rc is not None:
            rc.__exit__(*sys.exc_info())
        raise
    sys.stdout.flush()
    status = "completed"
    _sigterm_as_ctrl_c()
    try:
        server.serve(duration)
    except KeyboardInterrupt:
        status = "interrupted"
    except BaseException:
        status = "failed"
        raise
    finally:
        server.close()
        if live is not None:
            live[0].close()
        if server.fault is not None and status == "completed":
            status = "failed"
        if recorder is not None:
            recorder.finish(status, server.fault)
            recorder.close()
        stats: dict[str, Any] = {
            "stats": server.stats.to_json(),
            "t": sim.time,
            "status": status,
            "fault": server.fault,
        }
        if rc is not None:
            rc.__exit__(None, None, None)
            rc.status = "ok" if status != "failed" else "failed"
            rc.error = server.fault
            rc.write(stats)
    if as_json:
        echo_json(stats)
    else:
        s = server.stats
        click.echo(
            f"stopped at t={sim.time:.3f} s: {s.replied} replies, {s.errors} errors, "
            f"{s.rate_limited} rate-limited, {s.overruns} overruns"
        )


def _serve_receipt(target: str, args: dict[str, Any], seed: int | None) -> Any:
    """The receipt a served run stores (``--db``), entered now: the files it read, each
    physics model's digest and its state every simulated second, the versions and the
    platform, and at the end the final statistics. It says ``replayable: false``: the
    UDP commands that steered the run arrived at wall-clock times and are not inputs a
    re-run could feed again, so ``robotsim runs verify`` refuses it in one line instead
    of re-running something else."""
    from robotsim.run_io import RunOptions
    from robotsim.scenario.commands import robot_arg
    from robotsim.scenario.receipt import Receipting

    args = {**args, "target": robot_arg(target)}
    command = {"name": "serve", "args": args, "replayable": False}
    rc = Receipting({}, args["target"], RunOptions(seed=seed), command=command)
    rc.__enter__()
    return rc


def _chain(hooks: list[Any]) -> Any:
    def on_step(target: Any) -> None:
        for h in hooks:
            h(target)

    return on_step


def _foxglove(sim: Any, address: str) -> tuple[Any, Any]:
    """The live Foxglove stream of ``sim`` on ``address``: (publisher, on_step hook)."""
    from robotsim.extras import require

    for module in ("websockets", "foxglove_schemas_protobuf"):
        require(module, "--foxglove")
    from robotsim.export.live import LivePublisher
    from robotsim.remote.record import state_signals, target_poses, target_scene

    try:
        host, port = parse_address(address, 8765)
    except InputError as exc:
        raise InputError(str(exc).replace("--udp", "--foxglove")) from None
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            f"warning: --foxglove {host}: reachable from other machines (token still required)",
            err=True,
        )
    publisher = LivePublisher(target_scene(sim), sensors=getattr(sim, "sensors", None))
    publisher.start(host, port)
    poses = target_poses(sim)

    def on_step(target: Any) -> None:
        if publisher.due():
            sample = poses()  # first: a physics world's body poses of this instant
            signals = {r: state_signals(st) for r, st in target.state().items()}
            publisher.publish(target.time, sample, signals)

    return publisher, on_step


def _sigterm_as_ctrl_c() -> None:
    """``kill PID`` stops the server like Ctrl-C (stats printed, recording finished)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def register(group: click.Group) -> None:
    group.add_command(serve_cmd)
