"""Robots placed in one world, each with its bounding volumes.

``T_world_base`` places a robot's root link; link poses are
``T_world_base @ model.fk_all(q)``. Volume poses follow with ``T_link_volume``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from robotsim.clearance.volumes import LinkVolume
from robotsim.errors import InputError, UnknownNameError
from robotsim.geometry.shapes import pack_shape
from robotsim.model.geometry import readonly
from robotsim.model.robot import RobotModel

__all__ = ["PlacedRobot", "Scene"]


@dataclass(frozen=True, eq=False)
class PlacedRobot:
    """A robot ``model`` called ``name`` at ``T_world_base (4, 4)`` with ``volumes``."""

    name: str
    model: RobotModel
    volumes: tuple[LinkVolume, ...]
    T_world_base: np.ndarray = field(default_factory=lambda: readonly(np.eye(4)))

    def __post_init__(self) -> None:
        object.__setattr__(self, "T_world_base", readonly(self.T_world_base, (4, 4)))
        object.__setattr__(self, "volumes", tuple(self.volumes))
        if not self.volumes:
            raise InputError(f"robot {self.name!r} has no bounding volumes")
        for v in self.volumes:
            if v.link not in self.model.link_names:
                raise UnknownNameError("link", v.link, self.model.link_names)

    @cached_property
    def _link_index(self) -> np.ndarray:
        return np.array([self.model.link_names.index(v.link) for v in self.volumes])

    @cached_property
    def packed(self) -> tuple[list[int], np.ndarray]:
        """Volume kinds and sizes ``(nvol, 3)`` (see :mod:`robotsim.geometry.support`)."""
        kinds, sizes = zip(*(pack_shape(v.shape) for v in self.volumes), strict=True)
        return list(kinds), np.array(sizes)

    def volume_poses(self, q: np.ndarray) -> np.ndarray:
        """World poses of the volumes ``(..., nvol, 4, 4)`` for ``q (..., nq)``."""
        T_links = self.model.fk_all(q)[..., self._link_index, :, :]
        T_vol = np.stack([v.T_link_volume for v in self.volumes])
        return self.T_world_base @ T_links @ T_vol

    def volume_label(self, k: int) -> str:
        v = self.volumes[k]
        same = [u for u in self.volumes if u.link == v.link]
        return v.link if len(same) == 1 else f"{v.link}#{same.index(v)}"


@dataclass(frozen=True, eq=False)
class Scene:
    """Robots in one world and the contact threshold (m): a pair is in collision when
    its distance is at most ``contact_threshold``."""

    robots: tuple[PlacedRobot, ...]
    contact_threshold: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "robots", tuple(self.robots))
        names = [r.name for r in self.robots]
        if len(set(names)) != len(names):
            raise InputError(f"robot names must be unique, got {names}")
        if not np.isfinite(self.contact_threshold):
            raise InputError("contact_threshold must be finite")

    def robot(self, name: str) -> PlacedRobot:
        for r in self.robots:
            if r.name == name:
                return r
        raise UnknownNameError("robot", name, [r.name for r in self.robots])

    @property
    def names(self) -> Sequence[str]:
        return [r.name for r in self.robots]
