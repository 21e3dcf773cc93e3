"""The types the modules of a mobile run share, in one place below them all:
:class:`RobotSetup` (a robot as loaded: SI units, radians) and :class:`RunView` (what
the report reads of a finished run; :class:`robotsim.mobile.run.MobileRun` is one)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from robotsim.mobile.schema import MobileScenario, RobotSpec
from robotsim.model.robot import RobotModel

if TYPE_CHECKING:
    from robotsim.mobile.formation import Formation
    from robotsim.mobile.poselog import PoseLog
    from robotsim.physics import Scene, World

__all__ = ["RobotSetup", "RunView"]


@dataclass(frozen=True)
class RobotSetup:
    """One robot after expanding ``count``: SI units, radians."""

    name: str
    spec: RobotSpec
    model: RobotModel
    start: np.ndarray
    goal: np.ndarray
    path: np.ndarray
    radius: float


class RunView(Protocol):
    """A mobile run as the report reads it: the scenario and robots, the obstacles
    ``(n, 3)`` (x, y, radius in m), the poses ``(x, y, theta)`` of every robot at each
    control tick (a :class:`~robotsim.mobile.poselog.PoseLog`), when each reached its
    goal (s, or None), the physics world and scene, the control tick (s), the wall time
    (s), the formation (or None) and the robot-robot contact episodes."""

    sc: MobileScenario
    robots: list[RobotSetup]
    obstacles: np.ndarray
    seed: int
    poses: PoseLog
    reached_at: list[float | None]
    scene: Scene
    world: World
    tick: float
    wall_time: float
    formation: Formation | None

    def results(self) -> dict[str, dict[str, Any]]: ...

    def robot_collisions(self) -> dict[str, Any]: ...
