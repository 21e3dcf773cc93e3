"""The file format of a robot's sensors: the ``sensors:`` list of a profile file and of a
scenario robot (``robots[i].sensors``). Values only; :mod:`robotsim.sensors` mounts them
in a physics world.

Every sensor has a ``type``, a ``name`` (default: its type), a mount (``link`` or model
``frame``, default the robot's root link; an offset ``position`` in m and ``rpy_deg`` in
degrees in that link or frame) and a ``rate`` in Hz of simulated time. The sensor frame
is x forward, y left, z up: a lidar's ray at azimuth 0 and a camera's optical axis point
along its x. Angles in these files are always in degrees and say so (``_deg``), whatever
a scenario's ``units:`` say. See ``docs/sensors.md``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from robotsim.ranges import MAX_LENGTH

__all__ = [
    "SENSOR_TYPES",
    "CameraSpec",
    "ContactNoise",
    "ForceSpec",
    "ImuNoise",
    "ImuSpec",
    "JointNoise",
    "JointSensorSpec",
    "LidarNoise",
    "LidarSpec",
    "OdometrySpec",
    "SensorSpec",
    "TouchSpec",
]

SENSOR_TYPES = ("lidar", "camera", "imu", "odometry", "force", "touch", "joint")

Vec3 = tuple[float, float, float]
#: A mounting offset (m): finite, within :data:`robotsim.ranges.MAX_LENGTH`.
Coord = Annotated[float, Field(ge=-MAX_LENGTH, le=MAX_LENGTH)]
#: the highest rate a file may ask for (Hz); the world's physics rate bounds it further
MAX_RATE = 100_000.0
NAME_PATTERN = r"^[A-Za-z0-9_\-.]+$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class _Sensor(_Strict):
    name: str | None = Field(None, min_length=1, max_length=64, pattern=NAME_PATTERN)
    link: str | None = Field(None, description="link it is mounted on (default: the root)")
    frame: str | None = Field(None, description="a model frame instead of a link")
    position: tuple[Coord, Coord, Coord] = Field(
        (0.0, 0.0, 0.0), description="m, in the link or frame"
    )
    rpy_deg: Vec3 = Field((0.0, 0.0, 0.0), description="roll, pitch, yaw in degrees")
    rate: float = Field(50.0, gt=0, le=MAX_RATE, description="Hz of simulated time")

    @model_validator(mode="after")
    def _one_mount(self) -> _Sensor:
        if self.link is not None and self.frame is not None:
            raise ValueError("give 'link' or 'frame', not both")
        return self

    @property
    def label(self) -> str:
        """The sensor's name (its type when the file gives none)."""
        return self.name or str(getattr(self, "type"))  # noqa: B009 (every subclass has one)


class LidarNoise(_Strict):
    """Range noise (Gaussian, m), ray direction noise (Gaussian, degrees, in azimuth and
    elevation) and the probability that a ray returns nothing (a dropout, NaN)."""

    range_std: float = Field(0.0, ge=0, le=10.0)
    angle_std_deg: float = Field(0.0, ge=0, le=10.0)
    dropout: float = Field(0.0, ge=0, le=1.0)


class LidarSpec(_Sensor):
    """A scanning range finder: ``rays`` per layer spread over ``fov_deg`` of azimuth
    (centred on x; 360 = all round), ``layers`` spread over ``vertical_fov_deg`` of
    elevation (centred on the xy plane), returns between ``range`` [min, max] m."""

    type: Literal["lidar"]
    rate: float = Field(10.0, gt=0, le=MAX_RATE)
    rays: int = Field(360, ge=1, le=65_536)
    fov_deg: float = Field(360.0, gt=0, le=360.0)
    layers: int = Field(1, ge=1, le=128)
    vertical_fov_deg: float = Field(0.0, ge=0, le=180.0)
    range: tuple[float, float] = (0.05, 30.0)
    noise: LidarNoise = Field(default_factory=LidarNoise)

    @model_validator(mode="after")
    def _checks(self) -> LidarSpec:
        lo, hi = self.range
        if not (0 <= lo < hi <= 1e4):
            raise ValueError(f"range: [min, max] with 0 <= min < max <= 10000 m, got {[lo, hi]}")
        if self.layers > 1 and self.vertical_fov_deg <= 0:
            raise ValueError("vertical_fov_deg: more than one layer needs a vertical fov > 0")
        if self.rays * self.layers > 262_144:
            raise ValueError(f"rays x layers = {self.rays * self.layers}: at most 262144 a scan")
        return self


class CameraSpec(_Sensor):
    """An RGB and depth camera: ``width`` x ``height`` pixels, vertical field of view
    ``fov_deg``, depth clipped to ``range`` [near, far] m."""

    type: Literal["camera"]
    rate: float = Field(10.0, gt=0, le=MAX_RATE)
    width: int = Field(320, ge=8, le=4096)
    height: int = Field(240, ge=8, le=4096)
    fov_deg: float = Field(60.0, gt=1.0, lt=170.0)
    rgb: bool = True
    depth: bool = True
    range: tuple[float, float] = (0.05, 50.0)

    @model_validator(mode="after")
    def _checks(self) -> CameraSpec:
        near, far = self.range
        if not (0 < near < far <= 1e4):
            raise ValueError(
                f"range: [near, far] with 0 < near < far <= 10000 m, got {[near, far]}"
            )
        if not (self.rgb or self.depth):
            raise ValueError("rgb, depth: a camera gives at least one of them")
        return self


class ImuNoise(_Strict):
    """White noise (standard deviations) and constant biases. A bias is the given vector
    plus one drawn once from the seed with ``*_bias_std``."""

    accel_std: float = Field(0.0, ge=0, le=100.0, description="m/s^2")
    gyro_std: float = Field(0.0, ge=0, le=10.0, description="rad/s")
    orientation_std_deg: float = Field(0.0, ge=0, le=30.0)
    accel_bias: Vec3 = (0.0, 0.0, 0.0)
    gyro_bias: Vec3 = (0.0, 0.0, 0.0)
    accel_bias_std: float = Field(0.0, ge=0, le=100.0)
    gyro_bias_std: float = Field(0.0, ge=0, le=10.0)


class ImuSpec(_Sensor):
    """Linear acceleration (specific force: +9.81 m/s^2 up at rest), angular velocity
    (both in the sensor frame) and orientation (the sensor frame in the world, wxyz)."""

    type: Literal["imu"]
    rate: float = Field(100.0, gt=0, le=MAX_RATE)
    noise: ImuNoise = Field(default_factory=ImuNoise)


class OdometrySpec(_Sensor):
    """Wheel odometry of a wheeled base: the wheels' turns since the last reading (with
    Gaussian noise ``wheel_std`` rad/s on their rates) integrated into a planar pose in
    the frame of the start pose; slip shows as drift, as physics gives it."""

    type: Literal["odometry"]
    rate: float = Field(50.0, gt=0, le=MAX_RATE)
    wheel_std: float = Field(0.0, ge=0, le=100.0, description="rad/s")


class ContactNoise(_Strict):
    force_std: float = Field(0.0, ge=0, le=1e4, description="N")


LinkGroup = Literal["feet", "fingertips"]


class ForceSpec(_Sensor):
    """Contact force on links (default the profile's feet): per link the force (N) and
    the centre of pressure in the link's sensor frame, NaN without contact."""

    type: Literal["force"]
    rate: float = Field(100.0, gt=0, le=MAX_RATE)
    links: LinkGroup | list[str] = "feet"
    noise: ContactNoise = Field(default_factory=ContactNoise)


class TouchSpec(_Sensor):
    """Touch on links (default the profile's fingertips): per link the normal contact
    force (N) and whether it is at least ``threshold``."""

    type: Literal["touch"]
    rate: float = Field(100.0, gt=0, le=MAX_RATE)
    links: LinkGroup | list[str] = "fingertips"
    threshold: float = Field(0.05, ge=0, description="N")
    noise: ContactNoise = Field(default_factory=ContactNoise)


class JointNoise(_Strict):
    position_std: float = Field(0.0, ge=0, le=10.0, description="rad or m")
    velocity_std: float = Field(0.0, ge=0, le=100.0, description="rad/s or m/s")
    torque_std: float = Field(0.0, ge=0, le=1e4, description="N m or N")


class JointSensorSpec(_Sensor):
    """Joint positions, velocities and motor torques (all 1-DoF joints, or ``joints``)."""

    type: Literal["joint"]
    rate: float = Field(100.0, gt=0, le=MAX_RATE)
    joints: list[str] | None = None
    noise: JointNoise = Field(default_factory=JointNoise)


SensorSpec = Annotated[
    LidarSpec | CameraSpec | ImuSpec | OdometrySpec | ForceSpec | TouchSpec | JointSensorSpec,
    Field(discriminator="type"),
]
