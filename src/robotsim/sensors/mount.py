"""Mounting sensor specs on a robot: names checked against the model, offsets turned
into transforms, rates into whole physics steps, the camera budget enforced.

:func:`mount_sensors` is the one place a ``sensors:`` list meets its robot: every
problem is a one-line :class:`~robotsim.errors.InputError` naming the field
(``robots[0].sensors[1].link: unknown link 'lidar_mast'; valid: ...``). Nothing here
needs MuJoCo: a :class:`Mount` says where a sensor sits in the world's naming
(``<robot>/<link>`` bodies) and how often it reads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.errors import InputError, UnknownNameError
from robotsim.model.robot import RobotModel
from robotsim.profile.sensor_spec import (
    CameraSpec,
    ForceSpec,
    JointSensorSpec,
    OdometrySpec,
    SensorSpec,
    TouchSpec,
)
from robotsim.spatial import make_T, rpy_to_R

__all__ = [
    "CAMERA_MAX_PIXELS",
    "CAMERA_MAX_PIXEL_RATE",
    "Mount",
    "Site",
    "mount_sensors",
    "profile_sensors",
    "sensor_list",
]

#: The largest camera image (pixels): 1920 x 1080.
CAMERA_MAX_PIXELS = 1920 * 1080
#: The most pixels a second of simulated time one camera may render: 640 x 480 at 100 Hz.
CAMERA_MAX_PIXEL_RATE = 640 * 480 * 100


@dataclass(frozen=True)
class Site:
    """Where a sensor (or one link of a force/touch sensor) sits: the link, its world
    body (``<robot>/<link>``) and ``T_link_sensor`` ``(4, 4)``."""

    link: str
    body: str
    T_link_sensor: np.ndarray


@dataclass(frozen=True, eq=False)
class Mount:
    """A sensor spec mounted on a robot: ``robot``, ``name``, the ``spec``, its
    ``site`` (force/touch: one site per link in ``sites``), ``period`` in physics steps
    (``physics rate / rate``, >= 1, not necessarily whole: reading ``j`` is taken at
    step ``round(j * period)``, so the rate holds on average and each reading lies
    within half a step of its ideal time), ``rate`` (Hz), ``joints`` (joint and
    odometry sensors: the joints read), ``where`` (the field path, for messages)."""

    robot: str
    name: str
    spec: Any
    site: Site
    period: float
    rate: float
    where: str
    sites: tuple[Site, ...] = ()
    joints: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def type(self) -> str:
        return str(self.spec.type)


def profile_sensors(model: RobotModel) -> tuple[Any, ...]:
    """The sensors of ``model``'s profile file (``<robot>.profile.yaml``), or ()."""
    from robotsim.profile.file import read_profile_file
    from robotsim.profile.resolve import profile_file_for

    path = profile_file_for(model)
    return () if path is None else tuple(read_profile_file(path).sensors)


def sensor_list(
    model: RobotModel, specs: Sequence[Any], where: str = "sensors"
) -> tuple[list[Any], list[str]]:
    """The robot's profile sensors with ``specs`` (a scenario's, at field ``where``) on
    top: a spec named like a profile sensor replaces it, the others are added after.
    Returns the specs and, for each, the field path its messages name (the profile
    file's ``sensors[k]`` or ``where[k]``)."""
    from robotsim.profile.resolve import profile_file_for

    path = profile_file_for(model)
    own = {s.label: (i, s) for i, s in enumerate(specs)}
    out: list[Any] = []
    paths: list[str] = []
    for k, s in enumerate(profile_sensors(model)):
        if s.label in own:
            i, s2 = own.pop(s.label)
            out.append(s2)
            paths.append(f"{where}[{i}]")
        else:
            out.append(s)
            paths.append(f"{path}: sensors[{k}]")
    for _label, (i, s) in own.items():
        out.append(s)
        paths.append(f"{where}[{i}]")
    return out, paths


def _fail(where: str, field: str, msg: str) -> InputError:
    return InputError(f"{where}.{field}: {msg}" if field else f"{where}: {msg}")


def _offset(spec: Any) -> np.ndarray:
    return make_T(rpy_to_R(np.radians(spec.rpy_deg)), spec.position)


class _Robot:
    """What mounting needs of one robot: its links, frames and profile, resolved once."""

    def __init__(self, name: str, model: RobotModel) -> None:
        self.name, self.model = name, model
        self._profile: Any = None

    @property
    def profile(self) -> Any:
        if self._profile is None:
            from robotsim.profile.resolve import resolve_profile

            self._profile = resolve_profile(self.model)
        return self._profile

    def body(self, link: str) -> str:
        return f"{self.name}/{link}"

    def frames(self) -> dict[str, tuple[str, np.ndarray]]:
        """Frame name -> (link, T_link_frame): the model's frames, then the profile's
        added ones (inferred soles, tools, fingertips)."""
        out = {f.name: (f.link, np.asarray(f.T_link_frame)) for f in self.model.frames}
        p = self.profile
        sites = [f.sole for f in p.feet] + [a.tool for a in p.arms]
        sites += [t for g in p.grippers for t in g.fingertips]
        for s in sites:
            out.setdefault(s.name, (s.link, s.T))
        return out

    def site(self, spec: Any, where: str) -> Site:
        if spec.frame is not None:
            frames = self.frames()
            if spec.frame not in frames:
                valid = [*frames, *self.model.link_names]
                if spec.frame in self.model.link_names:
                    link, T = spec.frame, np.eye(4)
                else:
                    raise _fail(where, "frame", str(UnknownNameError("frame", spec.frame, valid)))
            else:
                link, T = frames[spec.frame]
            return Site(link, self.body(link), T @ _offset(spec))
        link = spec.link if spec.link is not None else self.profile.base_link
        if link not in self.model.link_names:
            raise _fail(where, "link", str(UnknownNameError("link", link, self.model.link_names)))
        return Site(link, self.body(link), _offset(spec))

    def contact_sites(self, spec: ForceSpec | TouchSpec, where: str) -> tuple[Site, ...]:
        """One site per link a force/touch sensor covers: a profile group (the feet at
        their sole frames, the fingertips at their frames) or the named links."""
        off = _offset(spec)
        if isinstance(spec.links, str):
            p = self.profile
            if spec.links == "feet":
                found = [(f.link, f.sole.link, f.sole.T) for f in p.feet]
            else:
                found = [(t.link, t.link, t.T) for g in p.grippers for t in g.fingertips]
            if not found:
                raise _fail(
                    where,
                    "links",
                    f"{spec.links!r}: the profile of robot {self.name!r} has no "
                    f"{spec.links} (kind {p.kind.value}); name the links: [link, ...]",
                )
            out = []
            for link, frame_link, T in found:
                if frame_link != link:  # a sole frame on another link: express it in ours
                    poses = self.model.fk_all(self.model.zero())
                    idx = self.model.link_names
                    T = np.linalg.inv(poses[idx.index(link)]) @ poses[idx.index(frame_link)] @ T
                out.append(Site(link, self.body(link), T @ off))
            return tuple(out)
        if not spec.links:
            raise _fail(where, "links", "name at least one link (or 'feet', 'fingertips')")
        out = []
        for k, link in enumerate(spec.links):
            if link not in self.model.link_names:
                raise _fail(
                    where, f"links[{k}]", str(UnknownNameError("link", link, self.model.link_names))
                )
            out.append(Site(link, self.body(link), off))
        return tuple(out)


def _period(spec: Any, timestep: float, where: str) -> tuple[float, float]:
    physics_rate = 1.0 / timestep
    if spec.rate > physics_rate * (1 + 1e-9):
        raise _fail(
            where,
            "rate",
            f"{spec.rate:g} Hz is above the physics rate of {physics_rate:g} Hz "
            f"(timestep {timestep:g} s); give at most {physics_rate:g}",
        )
    return max(1.0, physics_rate / spec.rate), float(spec.rate)


def _check_camera(spec: CameraSpec, rate: float, where: str) -> None:
    px = spec.width * spec.height
    if px > CAMERA_MAX_PIXELS:
        raise _fail(
            where,
            "width",
            f"a {spec.width} x {spec.height} camera has {px:,} pixels, more than the "
            f"budget of {CAMERA_MAX_PIXELS:,} (1920 x 1080)",
        )
    if px * rate > CAMERA_MAX_PIXEL_RATE:
        raise _fail(
            where,
            "rate",
            f"{spec.width} x {spec.height} at {rate:g} Hz renders {px * rate / 1e6:.3g} M "
            f"pixels per simulated second, more than the budget of "
            f"{CAMERA_MAX_PIXEL_RATE / 1e6:.3g} M (640 x 480 at 100 Hz); lower the rate "
            "or the size",
        )


def mount_sensors(
    robot: str,
    model: RobotModel,
    specs: Sequence[SensorSpec],
    timestep: float,
    where: str | Sequence[str] = "sensors",
) -> list[Mount]:
    """Mount ``specs`` on robot ``robot`` (a placement of ``model``) in a world stepping
    at ``timestep`` s. ``where`` prefixes messages: ``scene.yaml: robots[0].sensors``
    gives ``scene.yaml: robots[0].sensors[1].rate: ...``; a list gives each spec's own
    path (:func:`sensor_list`). Raises InputError."""
    rb = _Robot(robot, model)
    out: list[Mount] = []
    seen: set[str] = set()
    for i, spec in enumerate(specs):
        w = f"{where}[{i}]" if isinstance(where, str) else where[i]
        name = spec.label
        if name in seen:
            raise _fail(w, "name", f"two sensors named {name!r}; give each its own 'name'")
        seen.add(name)
        period, rate = _period(spec, timestep, w)
        joints: tuple[str, ...] = ()
        sites: tuple[Site, ...] = ()
        extra: dict[str, Any] = {}
        if isinstance(spec, ForceSpec | TouchSpec):
            sites = rb.contact_sites(spec, w)
            site = sites[0]
        else:
            site = rb.site(spec, w)
        if isinstance(spec, CameraSpec):
            _check_camera(spec, rate, w)
        elif isinstance(spec, JointSensorSpec):
            movable = [j.name for j in model.joints if j.movable and j.mimic is None]
            if spec.joints is None:
                joints = tuple(movable)
            else:
                for k, jn in enumerate(spec.joints):
                    if jn not in movable:
                        raise _fail(w, f"joints[{k}]", str(UnknownNameError("joint", jn, movable)))
                joints = tuple(spec.joints)
            if not joints:
                raise _fail(w, "joints", f"robot {robot!r} has no movable joint to read")
        elif isinstance(spec, OdometrySpec):
            from robotsim.physics.drives import drive_of

            drive = drive_of(model)
            if drive is None:
                raise _fail(w, "type", f"odometry needs a wheel drive; robot {robot!r} has none")
            joints = tuple(drive.wheel_joints)
        out.append(Mount(robot, name, spec, site, period, rate, w, sites, joints, extra))
    return out


def lidar_directions(spec: Any) -> tuple[np.ndarray, np.ndarray]:
    """Azimuths ``(rays,)`` and elevations ``(layers,)`` (rad) of a lidar spec: rays
    spread evenly over the field of view centred on x (all round: no ray twice), layers
    over the vertical field of view centred on the xy plane."""
    fov = math.radians(spec.fov_deg)
    n = spec.rays
    if spec.fov_deg >= 360.0:
        az = np.arange(n) * (2 * math.pi / n) - math.pi if n > 1 else np.zeros(1)
    else:
        az = np.linspace(-fov / 2, fov / 2, n) if n > 1 else np.zeros(1)
    vf = math.radians(spec.vertical_fov_deg)
    el = np.linspace(-vf / 2, vf / 2, spec.layers) if spec.layers > 1 else np.zeros(1)
    return np.asarray(az, dtype=np.float64), np.asarray(el, dtype=np.float64)
