"""The ``hand_ball_transfer`` scenario file: schema and conversion to a scene + script.

Angles in the file are in degrees unless ``units: {angle: rad}``; lengths in metres.
Every error names the file and the field path. Example: the shipped ``hand_ball_transfer``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from robotsim.errors import RobotsimError, ScenarioError
from robotsim.file_scope import OutsideScopeError
from robotsim.hands.contact import BoxObstacle
from robotsim.hands.layout import ARM_ROLES
from robotsim.hands.scene import BallSpec, GraspParams, HandsScene
from robotsim.hands.script import ScriptStep
from robotsim.model.builder import xyz_rpy
from robotsim.model.loader import load_robot
from robotsim.objects.spec import ObjectSpec
from robotsim.physics.timestep import HANDS_MAX_TIMESTEP, timestep_field
from robotsim.shipped import resolve
from robotsim.validation import fields_at, read_yaml_file

__all__ = [
    "HandScenario",
    "hand_scenario_from_data",
    "load_hand_scenario",
    "parse_hand_scenario",
]

KIND = "hand_ball_transfer"
Vec3 = Annotated[list[float], Field(min_length=3, max_length=3)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Units(_Strict):
    angle: Literal["deg", "rad"] = "deg"


class Placement(_Strict):
    xyz: Vec3 = [0.0, 0.0, 0.0]
    rpy: Vec3 = [0.0, 0.0, 0.0]


class BallFile(_Strict):
    radius: float = Field(0.035, gt=0)
    position: Vec3
    mass: float = Field(0.05, gt=0)
    bounce: float = Field(0.0, ge=0, lt=1)
    friction: float = Field(1.0, ge=0)


class ObjectFile(ObjectSpec):
    """``object:``: any object (docs/objects.md) with where it starts: ``position`` (its
    origin, m), ``rpy`` (angle units) and ``bounce``."""

    position: Vec3
    rpy: Vec3 = Field(default_factory=lambda: [0.0, 0.0, 0.0])
    bounce: float = Field(0.0, ge=0, lt=1)

    def spec(self) -> ObjectSpec:
        return ObjectSpec.model_validate(self.model_dump(exclude={"position", "rpy", "bounce"}))


class TableFile(_Strict):
    name: str = "table"
    center: Vec3
    size: Vec3


class GraspFile(_Strict):
    tip_radius: float | None = Field(None, gt=0)
    palm_radius: float = Field(0.03, ge=0)
    min_spread: float | None = Field(None, ge=0)
    touch_tol: float = Field(1e-6, ge=0)


class PhysicsFile(_Strict):
    timestep: float = timestep_field(HANDS_MAX_TIMESTEP)
    # None: friction alone for `script: planned`, the assist for a written script (the
    # paper's ball scenario, a round-1 choice: docs/hands.md)
    weld_assist: bool | None = None
    squeeze: float = Field(4.0, ge=0, description="extra closing past touch (angle units)")
    weld_frequency: float | None = Field(
        None, gt=0, le=50, description="Hz; default 8 for the ball, 20 for other objects"
    )
    finger_friction: float = Field(1.5, ge=0)


class StepFile(_Strict):
    move: Literal["L", "R"] | None = None
    to: dict[str, float] | None = None
    close: Literal["L", "R"] | None = None
    open: Literal["L", "R"] | None = None
    wait: float | None = Field(None, ge=0)
    wait_for: Literal["touch", "grasp", "hold_both", "release", "landed"] | None = None
    max_time: float = Field(10.0, gt=0)
    label: str = ""

    @model_validator(mode="after")
    def _one_action(self) -> StepFile:
        acts = [
            k for k in ("move", "close", "open", "wait", "wait_for") if getattr(self, k) is not None
        ]
        if len(acts) != 1:
            raise ValueError(
                "a step needs exactly one of move, close, open, wait, wait_for; got "
                + (", ".join(acts) or "none")
            )
        if (self.move is None) != (self.to is None):
            raise ValueError("'move: L|R' goes with 'to: {joint role: angle}'")
        for role in self.to or {}:
            if role not in ARM_ROLES:
                raise ValueError(f"unknown arm joint {role!r}; valid: {', '.join(ARM_ROLES)}")
        return self


class HandScenario(_Strict):
    """The whole file."""

    format: Literal["robotsim-scenario/1"] = "robotsim-scenario/1"
    kind: Literal["hand_ball_transfer"]
    name: str = KIND
    description: str = ""
    robot: str = "dual_arm_hands"
    base: Placement = Field(default_factory=Placement)
    units: Units = Field(default_factory=Units)
    dt: float = Field(0.01, gt=0, le=0.05)
    speed: float = Field(45.0, gt=0, description="joint speed step (angle units per s)")
    start_pose: str | None = "initial"
    start: dict[str, float] = {}
    ball: BallFile | None = None
    object: ObjectFile | None = None
    tables: list[TableFile] = []
    grasp: GraspFile = Field(default_factory=lambda: GraspFile.model_validate({}))
    gravity: float = Field(9.81, gt=0)
    physics: PhysicsFile = Field(default_factory=lambda: PhysicsFile.model_validate({}))
    # the moves as a person makes them, or "planned": from the object's geometry
    # (robotsim.grasp.transfer, run by `robotsim run` and `bench grasp`)
    script: Annotated[list[StepFile], Field(min_length=1)] | Literal["planned"]
    expect: list[str] = []
    # the mode the studio plays the file in, and `robotsim run`'s without --mode
    mode: Literal["kinematic", "physics"] | None = None

    @property
    def weld_assist(self) -> bool:
        """Whether physics mode holds a grasped object with the weld assist as well as
        friction: the file's ``physics.weld_assist``, else friction alone for a planned
        transfer and the assist for a written script."""
        w = self.physics.weld_assist
        return self.script != "planned" if w is None else w

    @model_validator(mode="after")
    def _ball_or_object(self) -> HandScenario:
        if (self.ball is None) == (self.object is None):
            raise ValueError("give either ball: (the paper's ball) or object: (any object), "
                             "not both or neither")  # fmt: skip
        if self.script == "planned" and self.object is None:
            raise ValueError("script: planned plans the transfer of an object: give object:")
        return self

    # ------------------------------------------------------------- conversion
    @property
    def angle_scale(self) -> float:
        return np.pi / 180.0 if self.units.angle == "deg" else 1.0

    @property
    def speed_rad(self) -> float:
        return self.speed * self.angle_scale

    def _start_q(self, model: Any) -> np.ndarray:
        """The named start pose; when the file names none and the robot has no
        ``initial`` pose (another maker's file), its ``ready`` or ``home`` pose, else
        the zero configuration (the ``start:`` overrides come on top)."""
        if not self.start_pose:
            return model.zero()
        if "start_pose" in self.model_fields_set or self.start_pose in model.poses:
            return model.pose(self.start_pose)
        for name in ("ready", "home"):
            if name in model.poses:
                return model.pose(name)
        return model.zero()

    def scene(self, base_dir: Path | None = None) -> HandsScene:
        path = Path(self.robot)
        if base_dir is not None and not path.is_absolute() and (base_dir / path).exists():
            path = base_dir / path
        try:
            model = load_robot(str(path) if path.exists() else self.robot)
        except OutsideScopeError as exc:
            raise OutsideScopeError(f"robot: {exc}") from None
        q0 = self._start_q(model)
        s = self.angle_scale
        for joint, value in self.start.items():
            if joint in model.joint_names:
                _within(model, f"start.{joint}", joint, value, s, self.units.angle)
        q0 = model.q_from({k: v * s for k, v in self.start.items()}, base=q0)
        obj, R = None, np.eye(3)
        if self.object is not None:
            from robotsim.objects.load import load_object

            o = self.object
            try:
                obj = load_object(o.spec(), base_dir=base_dir)
            except RobotsimError as exc:
                raise ScenarioError(f"object: {exc}") from None
            R = xyz_rpy([0, 0, 0], np.asarray(o.rpy) * s)[:3, :3]
            b = BallFile(radius=float(np.min(obj.extents)) / 2, position=o.position,
                         mass=obj.mass, bounce=o.bounce, friction=obj.friction)  # fmt: skip
        else:
            b = self.ball  # type: ignore[assignment]
        return HandsScene(
            robot=model,
            T_world_robot=xyz_rpy(self.base.xyz, np.asarray(self.base.rpy) * s),
            q0=q0,
            obj=obj,
            obj_rotation=R,
            ball=BallSpec(b.radius, tuple(b.position), b.mass, b.bounce, b.friction),  # type: ignore[arg-type]
            tables=tuple(
                BoxObstacle(t.name, tuple(t.center), tuple(t.size))  # type: ignore[arg-type]
                for t in self.tables
            ),
            grasp=GraspParams(
                self.grasp.tip_radius,
                self.grasp.palm_radius,
                self.grasp.min_spread,
                self.grasp.touch_tol,
            ),
            gravity=self.gravity,
        )

    def steps(self) -> list[ScriptStep]:
        if self.script == "planned":
            raise ScenarioError(
                "script: planned: the transfer is planned as it runs (robotsim run, "
                "robotsim.grasp.transfer); this needs a written script"
            )
        s = self.angle_scale
        out = []
        for st in self.script:
            mt, lb = st.max_time, st.label
            if st.move is not None:
                targets = {k: v * s for k, v in (st.to or {}).items()}
                out.append(ScriptStep("move", st.move, targets, max_time=mt, label=lb))
            elif st.close is not None:
                out.append(ScriptStep("close", st.close, max_time=mt, label=lb))
            elif st.open is not None:
                out.append(ScriptStep("open", st.open, max_time=mt, label=lb))
            elif st.wait is not None:
                out.append(ScriptStep("wait", seconds=st.wait, max_time=mt, label=lb))
            else:
                out.append(ScriptStep("wait_for", event=st.wait_for, max_time=mt, label=lb))
        return out


def parse_hand_scenario(data: Any, source: str = "<scenario>") -> HandScenario:
    """Validate a parsed YAML mapping; errors name ``source`` and the field path."""
    try:
        return HandScenario.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raw = list(err["loc"])
        # the union of `script` (steps or "planned") tags its member in the path: dropped
        union = raw[:1] == ["script"] and len(raw) > 1 and isinstance(raw[1], str)
        loc = raw[:1] + raw[2:] if union else raw
        where = ".".join(str(p) for p in loc) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        if loc == ["script"] and not isinstance(err.get("input"), list):
            msg = f"{err.get('input')!r} is not allowed; a list of steps, or 'planned'"
        elif err["type"] == "extra_forbidden":
            valid = fields_at(HandScenario, tuple(loc[:-1]))
            msg = f"unknown key {loc[-1]!r}" + (f"; valid: {', '.join(valid)}" if valid else "")
        raise ScenarioError(f"{source}: {where}: {msg}") from None


def hand_scenario_from_data(data: Any, source: str) -> tuple[HandScenario, HandsScene]:
    """The validated spec and its scene (robot loaded, joint names checked) from a parsed
    mapping; ``source`` (the file) names errors and anchors a relative robot path."""
    spec = parse_hand_scenario(data, source)
    try:
        scene = spec.scene(Path(source).parent)
    except RobotsimError as exc:
        raise ScenarioError(f"{source}: {exc}") from None
    _check_against_scene(spec, scene, source)
    return spec, scene


def _within(model: Any, where: str, joint: str, value: float, scale: float, unit: str) -> None:
    """ScenarioError naming ``where`` if ``value`` (file units) is outside ``joint``'s limits."""
    i = model.joint_names.index(joint)
    lo, hi = float(model.lower[i]), float(model.upper[i])
    if not lo - 1e-9 <= value * scale <= hi + 1e-9:
        raise ScenarioError(
            f"{where}: {value:g} {unit} is outside the limits of {joint} "
            f"[{lo / scale:g}, {hi / scale:g}] {unit}"
        )


def _check_against_scene(spec: HandScenario, scene: HandsScene, source: str) -> None:
    """What the schema alone cannot see: script angles inside the joint limits (start
    angles are checked in :meth:`HandScenario.scene`), the ball above the floor and not
    inside a table."""
    model, s = scene.robot, spec.angle_scale
    try:
        for i, st in enumerate([] if spec.script == "planned" else spec.script):
            for role, value in (st.to or {}).items():
                where = f"script.{i}.to.{role}"
                _within(model, where, f"{st.move}_{role}", value, s, spec.units.angle)
    except ScenarioError as exc:
        raise ScenarioError(f"{source}: {exc}") from None
    if scene.obj is not None:
        c = scene.carried
        T = scene.start_pose
        if c.lowest(T) < -1e-6:
            raise ScenarioError(
                f"{source}: object.position: its lowest point is {c.lowest(T):.3g} m, "
                "below the floor"
            )
        for k, t in enumerate(spec.tables):
            if c.support_depth(T, (BoxObstacle(t.name, tuple(t.center), tuple(t.size)),)) > 1e-4:  # type: ignore[arg-type]
                raise ScenarioError(
                    f"{source}: object.position: the object at {tuple(T[:3, 3])} reaches into "
                    f"tables[{k}] ({t.name!r})"
                )
        return
    b = spec.ball
    assert b is not None
    if b.position[2] < b.radius - 1e-9:
        raise ScenarioError(
            f"{source}: ball.position: centre height {b.position[2]:g} m is below the ball's "
            f"radius {b.radius:g} m: the ball would be in the floor"
        )
    for k, t in enumerate(spec.tables):
        half = np.abs(np.asarray(t.size)) / 2
        gap = np.maximum(np.abs(np.asarray(b.position) - np.asarray(t.center)) - half, 0.0)
        if float(np.linalg.norm(gap)) < b.radius - 1e-6:
            raise ScenarioError(
                f"{source}: ball.position: the ball (radius {b.radius:g} m) at "
                f"{tuple(b.position)} is inside tables[{k}] ({t.name!r})"
            )


def load_hand_scenario(path: str | Path) -> tuple[HandScenario, HandsScene]:
    """Read a scenario file (a path, or the name of a shipped scenario): the validated
    spec and its scene."""
    p = resolve(path, "scenario")
    return hand_scenario_from_data(read_yaml_file(p, ScenarioError), str(p))
