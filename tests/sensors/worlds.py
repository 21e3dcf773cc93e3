"""Small physics worlds for the sensor tests (built in code, nothing read from disk)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import TypeAdapter

from robotsim.model import load_robot
from robotsim.model.builder import RobotBuilder
from robotsim.model.geometry import Box, Cylinder, Shape
from robotsim.model.robot import Inertial
from robotsim.physics import Body, Motor, RobotPlacement, Scene, World
from robotsim.physics.drives import drivable, drive_of, wheel_ground_height
from robotsim.profile.sensor_spec import SensorSpec
from robotsim.sensors import SensorRig, mount_sensors
from robotsim.spatial import make_T, rot_z

_SPEC = TypeAdapter(SensorSpec)


def specs(*dicts: dict[str, Any]) -> list[Any]:
    """Sensor specs from plain dicts (as a file gives them)."""
    return [_SPEC.validate_python(d) for d in dicts]


def omni_placement(
    name: str, x: float = 0.0, y: float = 0.0, yaw: float = 0.0, lift: float = 0.0
) -> RobotPlacement:
    """The library omni3 base at (x, y) heading ``yaw`` (rad), its wheels ``lift`` m
    above the ground."""
    model = drivable(load_robot("omni3"))
    z = -wheel_ground_height(model, drive_of(model)) + lift
    return RobotPlacement(name, model, make_T(rot_z(yaw), [x, y, z]))


def world_of(
    robots: Sequence[RobotPlacement], bodies: Sequence[Body] = (), seed: int = 0, **scene: Any
) -> World:
    return World(Scene(bodies=tuple(bodies), robots=tuple(robots), **scene), seed=seed)


def rig(world: World, robot: str, *sensor_dicts: dict[str, Any], recorder: Any = None) -> SensorRig:
    placement = next(r for r in world.scene.robots if r.name == robot)
    mounts = mount_sensors(robot, placement.model, specs(*sensor_dicts), world.timestep)
    return SensorRig(world, mounts, recorder)


def wall(name: str, x: float, half_y: float = 5.0, height: float = 1.0) -> Body:
    """A static 0.2 m thick wall whose near face is the plane x = ``x`` (x > 0 side)."""
    return Body(name, Box((0.2, 2 * half_y, height)), make_T(None, [x + 0.1, 0.0, height / 2]))


def post(name: str, x: float, y: float, radius: float, height: float = 1.0) -> Body:
    return Body(name, Cylinder(radius, height), make_T(None, [x, y, height / 2]))


def turntable(arm: float = 0.5) -> Any:
    """A fixed base with a link ``arm`` turning about z on joint ``spin`` (a box at
    x = ``arm``), for rotating-frame checks."""
    b = RobotBuilder("turntable")
    b.link("base", [Shape(Cylinder(0.1, 0.05), make_T(None, [0, 0, 0.025]))])
    heavy = Inertial(5.0, np.zeros(3), np.eye(3) * 0.5)
    b.link("arm", [Shape(Box((0.1, 0.1, 0.05)), make_T(None, [arm, 0, 0]))], inertial=heavy)
    b.joint("spin", "revolute", "base", "arm", origin=make_T(None, [0, 0, 0.2]), axis=(0, 0, 1),
            lower=-1e6, upper=1e6, velocity=100.0, effort=1e4)  # fmt: skip
    return b.build()


def spinning_table(omega: float, seed: int = 0) -> World:
    """:func:`turntable` whose arm is held at ``omega`` rad/s by a stiff velocity motor."""
    model = turntable()
    placement = RobotPlacement("table", model, np.eye(4),
                               motors={"spin": Motor("velocity", gain=500.0)},
                               default_motor=None)  # fmt: skip
    world = World(Scene(robots=(placement,), timestep=0.001), seed=seed)
    world.motor("table/spin").set(omega)
    return world


def with_bodies(scene: Scene, *bodies: Body) -> Scene:
    return dataclasses.replace(scene, bodies=(*scene.bodies, *bodies))


def block(com_x: float = 0.0, mass: float = 2.0, size: float = 0.2) -> Any:
    """A floating box robot ``block`` (one link, ``size`` m cube) whose centre of mass
    sits ``com_x`` m off its centre along x."""
    b = RobotBuilder("block", floating=True)
    inertia = np.eye(3) * mass * size**2 / 6
    b.link(
        "block",
        [Box((size, size, size))],
        inertial=Inertial(mass, np.array([com_x, 0, 0]), inertia),
    )
    return b.build()


def lever(arm: float = 0.5, mass: float = 2.0) -> Any:
    """A fixed base with a horizontal link on joint ``hinge`` (about y), its mass ``arm``
    m out along x."""
    b = RobotBuilder("lever")
    b.link("base", [Box((0.1, 0.1, 0.1))])
    b.link("arm", [Shape(Box((0.05, 0.05, 0.05)), make_T(None, [arm, 0, 0]))],
           inertial=Inertial(mass, np.array([arm, 0, 0]), np.eye(3) * 1e-3))  # fmt: skip
    b.joint("hinge", "revolute", "base", "arm", origin=make_T(None, [0, 0, 1.0]), axis=(0, 1, 0),
            lower=-3, upper=3, effort=1e3)  # fmt: skip
    return b.build()
