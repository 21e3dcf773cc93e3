"""A camera that follows a moving robot (a walking humanoid, a mobile base, arms under
teleoperation).

:class:`CameraFollow` tracks one robot's centre (the mean of its link origins, m). After
every scene update it moves each page's camera, position and look-at point together, by
how far that centre moved since the last move: the view keeps the distance and angle
the user chose (orbit and zoom still work) while the robot stays in the middle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["CameraFollow", "robot_centre"]

MIN_MOVE = 0.01  # m: smaller moves of the robot do not move the camera


def robot_centre(studio: Studio, robot: str) -> np.ndarray:
    """The mean of the robot's link origins ``(3,)`` (m, world)."""
    return studio.robot(robot).link_poses()[:, :3, 3].mean(axis=0)


class CameraFollow:
    """Args:
    studio: the studio whose pages' cameras follow.
    """

    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        self.robot: str | None = None
        self._anchor: np.ndarray | None = None  # centre the cameras were last moved to
        self.moves = 0
        studio.after_push(self.update)
        studio.on("robots", self._robots_changed)

    def follow(self, robot: str | None) -> None:
        """Follow ``robot`` (a scene robot's name), or stop with None. Starting points
        every camera at the robot, keeping its offset from the current look-at point."""
        if robot is None:
            self.robot, self._anchor = None, None
            return
        self.studio.robot(robot)  # an unknown name lists the valid ones
        with self.studio.locked():
            self.robot = robot
            centre = robot_centre(self.studio, robot)
            for client in self.studio.clients():
                eye = np.asarray(client.camera.position, float)
                target = np.asarray(client.camera.look_at, float)
                self._move(client, eye + centre - target, centre)
            self._anchor = centre

    def _robots_changed(self) -> None:
        if self.robot is not None and self.studio.find_robot(self.robot) is None:
            self.follow(None)

    def update(self) -> None:
        """Move the cameras with the robot (called after every pushed update)."""
        if self.robot is None or self._anchor is None:
            return
        if self.studio.find_robot(self.robot) is None:
            return
        centre = robot_centre(self.studio, self.robot)
        delta = centre - self._anchor
        if float(np.linalg.norm(delta)) < MIN_MOVE:
            return
        for client in self.studio.clients():
            eye = np.asarray(client.camera.position, float)
            target = np.asarray(client.camera.look_at, float)
            self._move(client, eye + delta, target + delta)
        self._anchor = centre

    def _move(self, client, eye: np.ndarray, target: np.ndarray) -> None:  # type: ignore[no-untyped-def]
        with client.atomic():
            client.camera.position = tuple(float(v) for v in eye)
            client.camera.look_at = tuple(float(v) for v in target)
        self.moves += 1
