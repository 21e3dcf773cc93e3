"""Simulated sensors in physics worlds: lidar, cameras, IMU, odometry, contact force and
touch, joint sensors. Specs come from a robot's profile file or a scenario
(:mod:`robotsim.profile.sensor_spec`); :func:`mount_sensors` checks them against the
robot, :class:`SensorRig` samples them at their rates while the world steps. Seeded
noise: the same world seed gives the same readings. See ``docs/sensors.md``.

This unit sits on the engines layer beside ``physics/`` and, like it, calls MuJoCo
(ray casting, contact forces, the offscreen renderer).
"""

from robotsim.profile.sensor_spec import SENSOR_TYPES as SENSOR_TYPES
from robotsim.profile.sensor_spec import SensorSpec as SensorSpec
from robotsim.sensors.camera import WorldRenderer as WorldRenderer
from robotsim.sensors.lidar import scan_points as scan_points
from robotsim.sensors.mount import Mount as Mount
from robotsim.sensors.mount import mount_sensors as mount_sensors
from robotsim.sensors.mount import sensor_list as sensor_list
from robotsim.sensors.rig import SensorRig as SensorRig
from robotsim.sensors.types import Reading as Reading
from robotsim.sensors.types import Sensor as Sensor

__all__ = [
    "SENSOR_TYPES",
    "Mount",
    "Reading",
    "Sensor",
    "SensorRig",
    "SensorSpec",
    "WorldRenderer",
    "mount_sensors",
    "scan_points",
    "sensor_list",
]
