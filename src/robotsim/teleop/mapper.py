"""Turning device snapshots into commands with a mapping (stateful: speed step, edges)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from robotsim.teleop.command import TeleopCommand
from robotsim.teleop.gamepad import InputSnapshot
from robotsim.teleop.mapping import BASE_AXES, InputMapping, load_mapping
from robotsim.teleop.params import LiveParameters

__all__ = ["Mapper"]


class Mapper:
    """Apply an :class:`InputMapping` to successive :class:`InputSnapshot` s.

    Args:
        mapping: a mapping or the name/path of one.
        variables: values of the joint-name placeholders (``{"side": "L"}``).
        joints: if given, every mapped joint must be among these (else
            :class:`~robotsim.errors.UnknownNameError` naming the mapping file).

    Several bindings on one joint or base axis add up, clipped to [-1, 1]. The speed
    step starts at ``speed_start`` and moves one level per press of speed_up/down; the
    live parameters (``params``, shared when given, see :mod:`robotsim.teleop.params`)
    move one step per press of their actions.
    """

    def __init__(
        self,
        mapping: InputMapping | str,
        variables: Mapping[str, str] | None = None,
        joints: Iterable[str] | None = None,
        params: LiveParameters | None = None,
    ) -> None:
        self.params = params if params is not None else LiveParameters()
        self.mapping = load_mapping(mapping) if isinstance(mapping, str) else mapping
        self.variables = dict(variables or {})
        if joints is not None:
            self.mapping.check_joints(joints, self.variables)
        self._names = [
            self.mapping.resolve(b.name, self.variables) if b.target == "joint" else b.name
            for b in self.mapping.bindings
        ]
        self.speed_index = self.mapping.speed_start
        self._held: frozenset[str] = frozenset()

    @property
    def speed(self) -> float:
        return self.mapping.speed_levels[self.speed_index]

    def update(self, snap: InputSnapshot) -> TeleopCommand:
        """The command for this tick."""
        joints: dict[str, float] = {}
        base = {k: 0.0 for k in BASE_AXES}
        held: set[str] = set()
        for b, name in zip(self.mapping.bindings, self._names):
            v = b.value(snap.axes, snap.buttons, snap.hats, snap.keys)
            if b.target == "action":
                if v > 0.5:
                    held.add(name)
            elif b.target == "joint":
                joints[name] = joints.get(name, 0.0) + v * b.rate
            else:
                base[name] += v * b.rate
        pressed = frozenset(held - self._held)
        self._held = frozenset(held)
        n = len(self.mapping.speed_levels)
        if "speed_up" in pressed:
            self.speed_index = min(self.speed_index + 1, n - 1)
        if "speed_down" in pressed:
            self.speed_index = max(self.speed_index - 1, 0)
        self.params.apply(pressed)
        grip = int("grasp" in held) - int("release" in held)
        clip = lambda x: max(-1.0, min(1.0, x))  # noqa: E731
        return TeleopCommand(
            joint_rates={k: clip(v) for k, v in joints.items()},
            base_rates=tuple(clip(base[k]) for k in BASE_AXES),  # type: ignore[arg-type]
            grip=grip,
            speed=self.speed,
            speed_index=self.speed_index,
            base_max=self.mapping.base_max,
            base_scale=self.speed / self.mapping.speed_levels[self.mapping.speed_start],
            pressed=pressed,
            time_scale=self.params.time_scale,
            gain_scale=self.params.gain_scale,
            max_speed_scale=self.params.max_speed_scale,
            speed_level_shift=round(self.params.speed_level_shift),
        )
