"""Motion and program files (YAML, ``robotsim-motion/1``, ``robotsim-program/1``).

A *keyframe* is a set of joint targets by name (any subset: joints not named hold the
value they had at the previous keyframe), a speed level, an optional hold time and an
optional thumbnail. A *motion* is a named list of keyframes with one interpolation
kind. A *program* holds motions and chains them, each with a repeat count.

Speed levels (fixed, documented in ``docs/motion.md``): level 1 is the slowest and
level 8 the fastest. The move *into* a keyframe from the previous pose takes

    T(level) = SPEED_BASE_S / level  seconds   (2.0, 1.0, 0.667, 0.5, 0.4, 0.333, 0.286, 0.25)

unless a joint's velocity limit needs longer (see :mod:`robotsim.motion.timeline`).

The models here are frozen values; editing operations (add, delete, move, duplicate a
keyframe, set its speed) return new objects, so an editor keeps undo history for free.
The paper's limits (30 keyframes per motion, 20 motions per program) are not part of
the schema: the robot's profile imposes them (:func:`robotsim.motion.profile.check_capacity`;
the paper's 30 keyframes per motion and 20 motions per program unless the profile
says otherwise) whenever a file is read or written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from robotsim.atomic import write_text_atomic
from robotsim.errors import ScenarioError, UnknownNameError
from robotsim.file_scope import check_readable
from robotsim.shipped import resolve
from robotsim.validation import (
    MAX_YAML_BYTES,
    fields_at,
    first_duplicate,
    read_input_bytes,
    safe_load,
    yaml_error_message,
)

__all__ = [
    "MOTION_FORMAT",
    "PROGRAM_FORMAT",
    "SPEED_BASE_S",
    "Interpolation",
    "Keyframe",
    "Motion",
    "Program",
    "ProgramStep",
    "file_format",
    "format_of",
    "load_program",
    "program_from_dict",
    "save_program",
    "speed_seconds",
]

MOTION_FORMAT = "robotsim-motion/1"
PROGRAM_FORMAT = "robotsim-program/1"
SPEED_BASE_S = 2.0
SPEED_LEVELS = range(1, 9)

Interpolation = Literal["linear", "cubic", "minjerk"]
Name = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.\- ]+$")]


def speed_seconds(level: int) -> float:
    """Nominal duration (s) of the move into a keyframe at ``level`` (1 slow .. 8 fast)."""
    if int(level) != level or level not in SPEED_LEVELS:
        raise ScenarioError(f"speed level {level!r} is not allowed; valid: 1..8 (8 fastest)")
    return SPEED_BASE_S / int(level)


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Keyframe(_Frozen):
    """One pose record: joint targets (file units), speed level 1..8, hold (s)."""

    name: Name
    targets: dict[str, float] = Field(default_factory=dict)
    speed: int = Field(4, ge=1, le=8, description="1 slowest .. 8 fastest")
    hold: float = Field(0.0, ge=0.0, le=600.0, description="seconds to stay after arriving")
    thumbnail: str | None = Field(None, description="PNG path, relative to the file")

    @field_validator("targets")
    @classmethod
    def _finite(cls, v: dict[str, float]) -> dict[str, float]:
        for k, x in v.items():
            if x != x or x in (float("inf"), float("-inf")):
                raise ValueError(f"target {k!r} must be a finite number")
        return v


class Motion(_Frozen):
    """A named list of keyframes (at least one, names unique)."""

    name: Name
    interpolation: Interpolation = "linear"
    keyframes: list[Keyframe] = Field(min_length=1)

    @field_validator("keyframes")
    @classmethod
    def _unique(cls, v: list[Keyframe]) -> list[Keyframe]:
        if (dup := first_duplicate(kf.name for kf in v)) is not None:
            raise ValueError(f"keyframe name {dup!r} is used twice")
        return v

    # ------------------------------------------------------------ editing
    @property
    def keyframe_names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keyframes)

    def index(self, name: str) -> int:
        try:
            return self.keyframe_names.index(name)
        except ValueError:
            raise UnknownNameError("keyframe", name, self.keyframe_names) from None

    def keyframe(self, name: str) -> Keyframe:
        return self.keyframes[self.index(name)]

    def _with(self, keyframes: list[Keyframe]) -> Motion:
        return Motion.model_validate(
            {**self.model_dump(), "keyframes": [k.model_dump() for k in keyframes]}
        )

    def add_keyframe(self, keyframe: Keyframe, index: int | None = None) -> Motion:
        """A copy with ``keyframe`` inserted at ``index`` (default: at the end)."""
        kfs = list(self.keyframes)
        kfs.insert(len(kfs) if index is None else index, keyframe)
        return self._with(kfs)

    def delete_keyframe(self, name: str) -> Motion:
        """A copy without keyframe ``name`` (a motion keeps at least one keyframe)."""
        i = self.index(name)
        if len(self.keyframes) == 1:
            raise ScenarioError(f"motion {self.name!r}: cannot delete its only keyframe")
        return self._with(self.keyframes[:i] + self.keyframes[i + 1 :])

    def move_keyframe(self, name: str, index: int) -> Motion:
        """A copy with keyframe ``name`` moved to position ``index``."""
        n = len(self.keyframes)
        if not -n <= index < n:
            raise ScenarioError(f"motion {self.name!r}: index {index} out of range 0..{n - 1}")
        kfs = list(self.keyframes)
        kf = kfs.pop(self.index(name))
        kfs.insert(index % n, kf)
        return self._with(kfs)

    def duplicate_keyframe(self, name: str, new_name: str | None = None) -> Motion:
        """A copy with keyframe ``name`` duplicated right after itself."""
        i = self.index(name)
        if new_name is None:
            k = 2
            while f"{name}_{k}" in self.keyframe_names:
                k += 1
            new_name = f"{name}_{k}"
        dup = self.keyframes[i].model_copy(update={"name": new_name, "thumbnail": None})
        return self.add_keyframe(Keyframe.model_validate(dup.model_dump()), i + 1)

    def replace_keyframe(self, name: str, **changes: Any) -> Motion:
        """A copy with fields of keyframe ``name`` changed (targets, speed, hold...)."""
        i = self.index(name)
        kf = Keyframe.model_validate({**self.keyframes[i].model_dump(), **changes})
        return self._with([*self.keyframes[:i], kf, *self.keyframes[i + 1 :]])

    def set_speed(self, name: str, level: int) -> Motion:
        return self.replace_keyframe(name, speed=level)


class ProgramStep(_Frozen):
    """One link of the chain: play motion ``motion`` ``repeat`` times."""

    motion: Name
    repeat: int = Field(1, ge=1, le=10_000)


class Program(_Frozen):
    """Motions chained with repeat counts; ``start`` is the pose before the first move.

    ``start`` is a named pose of the robot (``model.poses``), a mapping of joint targets
    (file units, others zero), or None: then the first keyframe is the start pose.
    ``units`` applies to revolute joint targets (``deg`` or ``rad``); prismatic joints
    are always in metres.
    """

    format: Literal["robotsim-program/1"] = "robotsim-program/1"
    name: Name
    robot: str | None = None
    description: str = ""
    units: Literal["deg", "rad"] = "deg"
    start: str | dict[str, float] | None = None
    motions: list[Motion] = Field(min_length=1)
    sequence: list[ProgramStep] = Field(default_factory=list)

    @field_validator("motions")
    @classmethod
    def _unique(cls, v: list[Motion]) -> list[Motion]:
        if (dup := first_duplicate(m.name for m in v)) is not None:
            raise ValueError(f"motion name {dup!r} is used twice")
        return v

    def model_post_init(self, _context: Any) -> None:
        names = [m.name for m in self.motions]
        for i, step in enumerate(self.sequence):
            if step.motion not in names:
                raise ScenarioError(
                    f"sequence[{i}].motion: unknown motion {step.motion!r}; valid: "
                    + ", ".join(names)
                )

    @property
    def steps(self) -> list[ProgramStep]:
        """The chain; an empty ``sequence`` plays every motion once, in file order."""
        return self.sequence or [ProgramStep(motion=m.name) for m in self.motions]

    def motion(self, name: str) -> Motion:
        for m in self.motions:
            if m.name == name:
                return m
        raise UnknownNameError("motion", name, [m.name for m in self.motions])

    def with_motion(self, motion: Motion) -> Program:
        """A copy with ``motion`` replacing the motion of the same name (or appended)."""
        ms = [motion if m.name == motion.name else m for m in self.motions]
        if motion.name not in [m.name for m in self.motions]:
            ms.append(motion)
        return Program.model_validate(
            {**self.model_dump(), "motions": [m.model_dump() for m in ms]}
        )

    def to_dict(self) -> dict[str, Any]:
        d = self.model_dump(exclude_defaults=False)
        for m in d["motions"]:
            for k in m["keyframes"]:
                if k["thumbnail"] is None:
                    del k["thumbnail"]
        if not d["sequence"]:
            del d["sequence"]
        return d


def _fmt_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def format_of(data: dict[str, Any]) -> str:
    """The ``format:`` of a parsed motion/program file; without one, a file with
    ``motions:`` is a program and any other a motion."""
    return str(data.get("format", PROGRAM_FORMAT if "motions" in data else MOTION_FORMAT))


def file_format(path: str | Path) -> str:
    """:func:`format_of` the motion/program file at ``path``."""
    check_readable(path)
    data = safe_load(
        read_input_bytes(path, lambda m: ScenarioError(f"{path}: {m}"), MAX_YAML_BYTES)
    )
    return format_of(data if isinstance(data, dict) else {})


def program_from_dict(data: Any, source: str | Path = "<program>") -> Program:
    """Validate a parsed motion or program file; a bare motion becomes a one-motion
    program. Errors: :class:`ScenarioError` naming ``source`` and the field path."""
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: expected a mapping at the top level")
    fmt = format_of(data)
    try:
        if fmt == MOTION_FORMAT:
            head = {k: data[k] for k in ("robot", "units", "start", "description") if k in data}
            body = {
                k: v
                for k, v in data.items()
                if k not in ("format", "robot", "units", "start", "description")
            }
            motion = Motion.model_validate(body)
            return Program(name=motion.name, motions=[motion], **head)
        if fmt != PROGRAM_FORMAT:
            raise ScenarioError(
                f"{source}: format: unknown {fmt!r}; valid: {MOTION_FORMAT}, {PROGRAM_FORMAT}"
            )
        return Program.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            root = Motion if fmt == MOTION_FORMAT else Program
            valid = fields_at(root, tuple(err["loc"][:-1]))
            if root is Motion and len(err["loc"]) == 1:
                valid = ["format", "robot", "units", "start", "description", *valid]
            msg = "unknown field" + (f"; valid: {', '.join(valid)}" if valid else "")
        msg = msg.removeprefix("Value error, ")
        if "input" in err and err["type"] in ("less_than_equal", "greater_than_equal"):
            msg += f" (got {err['input']!r})"
        more = f" (+{len(exc.errors()) - 1} more problems)" if len(exc.errors()) > 1 else ""
        raise ScenarioError(f"{source}: {_fmt_loc(tuple(err['loc']))}: {msg}{more}") from None
    except ScenarioError as exc:
        if str(exc).startswith(str(source)):
            raise
        raise ScenarioError(f"{source}: {exc}") from None


def load_program(path: str | Path) -> Program:
    """Read a motion (``robotsim-motion/1``) or program (``robotsim-program/1``) file,
    given by path or by the name of a shipped motion (``walk_forward``)."""
    path = resolve(path, "motion")
    check_readable(path)
    text = read_input_bytes(path, lambda m: ScenarioError(f"{path}: {m}"), MAX_YAML_BYTES)
    try:
        data = safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{path}: {yaml_error_message(exc)}") from None
    program = program_from_dict(data, path)
    _check_limits(program, path)
    return program


def _check_limits(program: Program, path: Path) -> None:
    """The robot's controller capacity (its profile, else the paper's 30 keyframes per
    motion and 20 motions per program)."""
    from robotsim.motion.profile import check_capacity, profile_for

    check_capacity(program, profile_for(program.robot), str(path))


def motion_file_dict(program: Program) -> dict[str, Any]:
    """A one-motion program as a ``robotsim-motion/1`` mapping (the head fields that
    differ from their defaults, then the motion)."""
    d = program.to_dict()
    if len(d["motions"]) != 1 or "sequence" in d:
        raise ScenarioError(f"program {program.name!r} has several motions: save it as a program")
    head: dict[str, Any] = {"format": MOTION_FORMAT}
    for key, default in (("robot", None), ("units", "deg"), ("start", None), ("description", "")):
        if d[key] != default:
            head[key] = d[key]
    return {**head, **d["motions"][0]}


def save_program(program: Program, path: str | Path, file_format: str | None = None) -> Path:
    """Write ``program`` as YAML (round-trips exactly): ``robotsim-program/1`` by
    default, or ``robotsim-motion/1`` for a one-motion program (``file_format``)."""
    path = Path(path)
    _check_limits(program, path)  # nothing is written when it would not load back
    path.parent.mkdir(parents=True, exist_ok=True)
    data = motion_file_dict(program) if file_format == MOTION_FORMAT else program.to_dict()
    text = yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100)
    write_text_atomic(path, text)  # a reader never sees half a file
    return path
