"""The hands scene: the dual-arm robot placed in the world, a ball (or any object),
tables, a floor.

One :class:`HandsScene` runs in either mode (kinematic or MuJoCo). Heights are world z
(m); the floor is the plane z = 0. With ``obj`` (a loaded :class:`GraspObject`) the hands
pass that object instead of the ball: ``ball.position`` is then where its origin starts,
``obj_rotation`` its start orientation, and ``ball.bounce``/``ball.friction`` still
apply; its size and mass are the object's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError
from robotsim.hands.carried import Carried
from robotsim.hands.contact import BoxObstacle
from robotsim.hands.layout import HandLayout, hand_layouts
from robotsim.model.geometry import readonly
from robotsim.model.robot import RobotModel
from robotsim.objects.load import GraspObject

__all__ = ["BallSpec", "GraspParams", "HandsScene", "default_scene"]


@dataclass(frozen=True)
class BallSpec:
    """The ball: ``radius`` (m), start ``position`` (m, world), ``mass`` (kg, physics),
    ``bounce`` (restitution in [0, 1)), ``friction`` (physics, sliding mu)."""

    radius: float = 0.035
    position: tuple[float, float, float] = (0.45, 0.2, 0.75)
    mass: float = 0.05
    bounce: float = 0.0
    friction: float = 1.0

    def __post_init__(self) -> None:
        if not np.isfinite(self.radius) or self.radius <= 0:
            raise InputError(f"ball radius must be > 0 m, got {self.radius}")
        if len(self.position) != 3 or not np.all(np.isfinite(self.position)):
            raise InputError(f"ball position must be 3 finite numbers, got {self.position}")
        if not 0.0 <= self.bounce < 1.0:
            raise InputError(f"ball bounce must be in [0, 1), got {self.bounce}")
        if self.mass <= 0 or self.friction < 0:
            raise InputError("ball mass must be > 0 kg and friction >= 0")


@dataclass(frozen=True)
class GraspParams:
    """Thresholds of the grasp algorithm.

    Attributes:
        tip_radius: fingertip bounding-sphere radius (m); None: from the model.
        palm_radius: sphere around the palm frame kept above the floor (m).
        min_spread: thumb-to-finger tip distance required for a grasp (m); None: the
            ball radius (fingers closer than that cannot hold the ball steady).
        touch_tol: slack on "distance <= sum of radii" (m).
    """

    tip_radius: float | None = None
    palm_radius: float = 0.03
    min_spread: float | None = None
    touch_tol: float = 1e-6

    def __post_init__(self) -> None:
        for name in ("palm_radius", "touch_tol"):
            v = getattr(self, name)
            if not np.isfinite(v) or v < 0:
                raise InputError(f"grasp {name} must be >= 0, got {v}")


@dataclass(frozen=True, eq=False)
class HandsScene:
    """Robot + ball + tables.

    Attributes:
        robot: a model with ``L_``/``R_`` arms (see :class:`HandLayout`).
        T_world_robot: where the robot's root stands ``(4, 4)``.
        q0: start configuration ``(nq,)`` (default: the ``initial`` pose).
        ball, tables, grasp: see :class:`BallSpec`, :class:`BoxObstacle`,
            :class:`GraspParams`.
        gravity: g (m/s², acting along -z).
        obj: the object passed instead of the ball (None: the ball).
        obj_rotation: its start orientation ``(3, 3)`` (world).
    """

    robot: RobotModel
    T_world_robot: np.ndarray = field(default_factory=lambda: readonly(np.eye(4)))
    q0: np.ndarray | None = None
    ball: BallSpec = field(default_factory=BallSpec)
    tables: tuple[BoxObstacle, ...] = ()
    grasp: GraspParams = field(default_factory=GraspParams)
    gravity: float = 9.81
    obj: GraspObject | None = None
    obj_rotation: np.ndarray = field(default_factory=lambda: readonly(np.eye(3)))

    def __post_init__(self) -> None:
        object.__setattr__(self, "obj_rotation", readonly(self.obj_rotation, (3, 3)))
        object.__setattr__(self, "T_world_robot", readonly(self.T_world_robot, (4, 4)))
        if self.q0 is None:
            q0 = self.robot.pose("initial") if "initial" in self.robot.poses else self.robot.zero()
        else:
            q0 = np.asarray(self.q0, float)
            if q0.shape != (self.robot.nq,):
                raise InputError(
                    f"q0 must have {self.robot.nq} values (joints {list(self.robot.joint_names)})"
                )
        self.robot.check_limits(q0)
        object.__setattr__(self, "q0", readonly(q0))
        object.__setattr__(self, "tables", tuple(self.tables))
        if not np.isfinite(self.gravity) or self.gravity <= 0:
            raise InputError(f"gravity must be > 0 m/s^2, got {self.gravity}")
        layouts = hand_layouts(self.robot, self.grasp.tip_radius)
        object.__setattr__(self, "_layouts", layouts)

    @property
    def layouts(self) -> dict[str, HandLayout]:
        """``{"L": HandLayout, "R": HandLayout}``."""
        return self._layouts  # type: ignore[attr-defined,no-any-return]

    @property
    def carried(self) -> Carried:
        """The ball or the object, for the geometric tests (:mod:`robotsim.hands.carried`)."""
        c = self.__dict__.get("_carried")
        if c is None:
            c = Carried(self.ball.radius, self.obj)
            object.__setattr__(self, "_carried", c)
        return c  # type: ignore[no-any-return]

    @property
    def start_pose(self) -> np.ndarray:
        """``T_world_object`` ``(4, 4)`` at the start."""
        T = np.eye(4)
        T[:3, :3] = self.obj_rotation
        T[:3, 3] = self.ball.position
        return T

    @property
    def min_spread(self) -> float:
        g = self.grasp.min_spread
        return self.carried.size if g is None else float(g)

    def with_ball(self, position: ArrayLike) -> HandsScene:
        """The same scene with the ball starting at ``position`` (m)."""
        b = self.ball
        pos = tuple(float(v) for v in np.asarray(position, float))
        ball = BallSpec(b.radius, pos, b.mass, b.bounce, b.friction)  # type: ignore[arg-type]
        return HandsScene(
            self.robot, self.T_world_robot, self.q0, ball, self.tables, self.grasp, self.gravity,
            self.obj, self.obj_rotation,
        )  # fmt: skip


def default_scene(robot: RobotModel, obj: GraspObject | None = None) -> HandsScene:
    """The teleoperation scene: the robot at the origin, fingers open, a 6 cm ball (or
    ``obj``, resting on its lowest point) on a small table in front of the left hand (as
    in the shipped ``hand_ball_transfer`` scenario)."""
    q0 = robot.pose("initial") if "initial" in robot.poses else robot.zero()
    if "open" in robot.poses:
        q0 = robot.q_from({k: v for k, v in robot.poses["open"].items() if "finger" in k}, base=q0)
    table = BoxObstacle("table", (0.5, 0.25, 0.235), (0.2, 0.2, 0.47))
    z = 0.5 if obj is None else table.top - float(obj.bounds[0, 2])
    return HandsScene(robot, q0=q0, ball=BallSpec(0.03, (0.5, 0.25, z)), tables=(table,), obj=obj)
