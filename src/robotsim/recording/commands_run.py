"""A running mobile simulation obeying the ``commands`` table (:mod:`.commands`).

:class:`RunCommands` is the hook a control loop calls before every tick
(:meth:`RunCommands.before_tick`): it paces the run to wall-clock time (an external
process talks to it in real time; on PostgreSQL a notification ends the wait early, so a
command acts between two ticks as soon as it is committed), acts on the pending
commands, holds the loop while paused, publishes ``run_status`` rows every
``publish_every`` seconds and after each command, and says when a ``stop`` ends the run.

The run is used through what every :class:`robotsim.mobile.run.MobileRun` has:
``robots`` (each with a ``name``), ``controllers`` (``goal``, ``config.limits``, ``at_goal``,
``reset``), ``bases`` (``pose``, ``twist``), ``manual`` (a held body twist per robot,
or ``None``), ``world`` (``time``, ``motor``, ``model``), ``sc.field.size`` and ``tick``.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from robotsim.errors import InputError
from robotsim.recording.commands import Command, CommandChannel, parse_args

__all__ = ["RunCommands"]


class RunCommands:
    """See the module docs. ``realtime``: simulated seconds per wall second (0: as fast
    as it goes)."""

    def __init__(
        self,
        channel: CommandChannel,
        run: Any,
        realtime: float = 1.0,
        publish_every: float = 0.1,
    ) -> None:
        self.channel, self.run = channel, run
        self.realtime, self.publish_every = float(realtime), float(publish_every)
        self.paused = self.stopped = False
        self.last_command: int | None = None
        self.handled: list[tuple[int, str | None]] = []  # (id, reason or None)
        self._next_wall: float | None = None
        self._last_publish = -math.inf

    # ----------------------------------------------------------------- the loop hook
    def before_tick(self) -> bool:
        """Pace, act on pending commands, wait while paused; False once stopped."""
        self._pace()
        self._handle(self.channel.poll())
        while self.paused and not self.stopped:
            time.sleep(self.run.tick)
            self._handle(self.channel.poll())
            self._maybe_publish()
            self._next_wall = None  # no catching up after a pause
        self._maybe_publish()
        return not self.stopped

    def close(self) -> None:
        """Refuse what is still pending, publish the final state (``finished``) and close
        the channel."""
        try:
            self.channel._wake = True
            for cmd in self.channel.poll():
                self.channel.finish(cmd, self.run.world.time, "the run ended before this command")
            self.publish("finished")
        finally:
            self.channel.close()

    def _pace(self) -> None:
        if self.realtime <= 0:
            return
        now = time.monotonic()
        if self._next_wall is None:
            self._next_wall = now
        while now < self._next_wall:  # sleep, but act on a notified command at once
            if self.channel.wait(self._next_wall - now):
                self._handle(self.channel.poll())
            now = time.monotonic()
        self._next_wall = max(self._next_wall, now) + self.run.tick / self.realtime

    # ------------------------------------------------------------------- commands
    def _handle(self, pending: list[Command]) -> None:
        for cmd in pending:
            try:
                self.apply(cmd)
                error = None
            except InputError as exc:
                error = str(exc)
            self.channel.finish(cmd, self.run.world.time, error)
            self.handled.append((cmd.id, error))
            self.last_command = cmd.id
        if pending:
            self.publish()

    def apply(self, cmd: Command) -> None:
        """Act on one command; raise :class:`InputError` with the reason to refuse it."""
        args = parse_args(cmd.kind, cmd.args)
        if cmd.kind in ("pause", "resume", "stop"):
            self.paused = cmd.kind == "pause"
            self.stopped = self.stopped or cmd.kind == "stop"
            return
        i = self._robot(cmd.robot)
        run = self.run
        ctrl = run.controllers[i]
        if cmd.kind == "goal":
            hx, hy = run.sc.field.size[0] / 2, run.sc.field.size[1] / 2
            x, y = args["x"], args["y"]
            if abs(x) > hx or abs(y) > hy:
                raise InputError(
                    f"goal ({x:g}, {y:g}) is off the field ({2 * hx:g} x {2 * hy:g} m, "
                    "centred on the origin)"
                )
            th = math.radians(args["theta"]) if "theta" in args else float(ctrl.goal[2])
            ctrl.goal = np.array([x, y, th])
            ctrl.reset()
            run.manual[i] = None
        elif cmd.kind == "velocity":
            twist = np.array([args["vx"], args["vy"], math.radians(args.get("w", 0.0))])
            for k, (name, unit) in enumerate((("vx", "m/s"), ("vy", "m/s"), ("w", "deg/s"))):
                vmax = ctrl.config.limits[k].max_speed
                if abs(twist[k]) > vmax + 1e-9:
                    shown = math.degrees(vmax) if unit == "deg/s" else vmax
                    raise InputError(
                        f"velocity {name} {args.get(name, 0.0):g} {unit} exceeds the robot's "
                        f"max speed {shown:g} {unit}"
                    )
            if not ctrl.config.holonomic and abs(twist[1]) > 0:
                raise InputError("velocity vy must be 0 for a differential drive")
            run.manual[i] = twist
        elif cmd.kind == "joints":
            self._joints(i, args)

    def _names(self) -> list[str]:
        return [rb.name for rb in self.run.robots]

    def _robot(self, name: str | None) -> int:
        names = self._names()
        if name is None:
            if len(names) == 1:
                return 0
            raise InputError(f"the run has several robots ({', '.join(names)}): name one")
        if name not in names:
            raise InputError(f"no robot {name!r} in this run; robots: {', '.join(names)}")
        return names.index(name)

    def _joints(self, i: int, args: dict[str, float]) -> None:
        import mujoco

        world, robot = self.run.world, self._names()[i]
        motors = set(world.motor_names)
        todo = []
        for joint, value in args.items():
            full = joint if joint in motors else f"{robot}/{joint}"
            if full not in motors:
                servos = [m for m in sorted(motors) if m.startswith(f"{robot}/")
                          and world.motor(m).kind == "position"]  # fmt: skip
                raise InputError(
                    f"robot {robot!r} has no joint {joint!r} with a motor; position "
                    f"servos: {', '.join(s.split('/', 1)[1] for s in servos) or 'none'}"
                )
            motor = world.motor(full)
            if motor.kind != "position":
                raise InputError(
                    f"joint {joint!r} of {robot!r} has a {motor.kind} motor (a wheel?), not "
                    "a position servo: use a velocity or goal command"
                )
            mj = world.model.joint(full)
            hinge = mj.type == mujoco.mjtJoint.mjJNT_HINGE
            target = math.radians(value) if hinge else value
            lo, hi = (float(v) for v in mj.range)
            if bool(mj.limited) and not lo - 1e-9 <= target <= hi + 1e-9:
                show = math.degrees if hinge else float
                unit = "deg" if hinge else "m"
                raise InputError(
                    f"joint {joint!r} of {robot!r}: target {value:g} {unit} is outside its "
                    f"range {show(lo):g} .. {show(hi):g} {unit}"
                )
            todo.append((motor, target))
        for motor, target in todo:  # all or nothing
            motor.set(target)

    # --------------------------------------------------------------------- status
    def _maybe_publish(self) -> None:
        if time.monotonic() - self._last_publish >= self.publish_every:
            self.publish()

    def publish(self, state: str | None = None) -> None:
        """Write one ``run_status`` row per robot."""
        run = self.run
        state = state or ("paused" if self.paused else "running")
        rows = []
        for i, name in enumerate(self._names()):
            pose, tw = run.bases[i].pose(), run.bases[i].twist()
            ctrl = run.controllers[i]
            manual = run.manual[i] is not None
            rows.append(
                {
                    "robot": name,
                    "t": float(run.world.time),
                    "wall": time.time(),
                    "state": state,
                    "mode": "velocity" if manual else "goal",
                    "x": float(pose[0]),
                    "y": float(pose[1]),
                    "theta": math.degrees(float(pose[2])),
                    "vx": float(tw[0]),
                    "vy": float(tw[1]),
                    "w": math.degrees(float(tw[2])),
                    "goal_x": float(ctrl.goal[0]),
                    "goal_y": float(ctrl.goal[1]),
                    "goal_theta": math.degrees(float(ctrl.goal[2])),
                    "reached": int(not manual and bool(ctrl.at_goal(pose))),
                    "last_command": self.last_command,
                }
            )
        self.channel.publish(rows)
        self._last_publish = time.monotonic()
