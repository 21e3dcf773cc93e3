"""What the robots' sensors see, live in the studio: lidar returns as points (and the
rays to them) in the 3D view, camera images (colour and depth) in the Mobile panel
beside it. Both follow the newest reading of each sensor of the open scenario
(:class:`robotsim.sensors.SensorRig`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["CameraImages", "LidarDrawing", "depth_image"]

POINT_RGB = (230, 30, 30)
RAY_RGB = (240, 150, 150)


class LidarDrawing:
    """The returns of every lidar of a rig as a point cloud per lidar, and its rays as
    thin segments from the sensor to each return (``/sensors/<robot>/<lidar>``). A ray
    without a return is drawn as nothing (a segment of zero length at the sensor)."""

    def __init__(self, rig: Any) -> None:
        self.rig = rig
        self.lidars = [(r, n) for r, n in rig.names() if rig.sensor(r, n).type == "lidar"]
        self._handles: dict[tuple[str, str], tuple[Any, Any]] = {}
        self._shown: dict[tuple[str, str], float] = {}
        self.rays = True
        self.draws = 0

    def draw(self, studio: Studio) -> None:
        """Show each lidar's newest scan (nothing to do when it is the one shown)."""
        # here, not at the top: the Mobile panel of every studio imports this module,
        # and robotsim.sensors brings MuJoCo (its cameras) a studio without sensors
        # never needs (~0.5 s of each studio start)
        from robotsim.sensors import scan_points

        for key in self.lidars:
            reading = self.rig.latest(*key)
            if reading is None or self._shown.get(key) == reading.t:
                continue
            s = self.rig.sensor(*key)
            pose = reading["pose"]
            r = np.asarray(reading["ranges"], dtype=np.float64).reshape(len(s.el), len(s.az))
            hit = np.isfinite(r)
            pts = np.repeat(pose[None, :3], r.size, axis=0)
            pts[hit.ravel()] = scan_points(r, s.az, s.el, pose)
            pts32 = pts.astype(np.float32)
            segs = np.stack([np.repeat(pose[None, :3], r.size, axis=0), pts], axis=1)
            handles = self._handles.get(key)
            if handles is None:
                node = f"/sensors/{key[0]}/{key[1]}"
                cloud = studio.scene.add_point_cloud(
                    node + "/points", pts32, colors=POINT_RGB, point_size=0.05,
                    point_shape="circle", precision="float32",
                )  # fmt: skip
                lines = studio.scene.add_line_segments(
                    node + "/rays", segs.astype(np.float32), colors=RAY_RGB, thickness=0.004,
                    visible=self.rays,
                )  # fmt: skip
                handles = self._handles[key] = (cloud, lines)
                studio.keep_objects(handles)
            else:
                handles[0].points = pts32
                handles[1].points = segs.astype(np.float32)
                handles[1].visible = self.rays
            self._shown[key] = reading.t
            self.draws += 1


def depth_image(depth: np.ndarray, far: float) -> np.ndarray:
    """A depth map ``(H, W)`` m as a grey RGB image ``(H, W, 3)`` uint8: near white, far
    (and nothing within range) black."""
    d = np.asarray(depth, dtype=np.float32)
    v = np.clip(1.0 - np.where(np.isfinite(d), d, far) / far, 0.0, 1.0)
    g = (v * 255).astype(np.uint8)
    return np.repeat(g[..., None], 3, axis=2)


class CameraImages:
    """A colour and a depth image per camera of a rig, in a GUI folder ("Cameras"),
    updated with the newest frame at most every ``period`` s of wall time."""

    def __init__(self, gui: Any) -> None:
        self.gui = gui
        self.folder: Any = None
        self.rig: Any = None
        self._images: dict[tuple[str, str], tuple[Any, Any]] = {}
        self._shown: dict[tuple[str, str], float] = {}
        self.updates = 0

    def attach(self, rig: Any) -> None:
        """Show the cameras of ``rig`` (None: no cameras)."""
        if rig is self.rig:
            return
        for rgb, depth in self._images.values():
            rgb.remove()
            depth.remove()
        self._images.clear()
        self._shown.clear()
        if self.folder is not None:
            self.folder.remove()
            self.folder = None
        self.rig = rig
        cams = [] if rig is None else [k for k in rig.names() if rig.sensor(*k).type == "camera"]
        if not cams:
            return
        self.folder = self.gui.add_folder("Cameras", expand_by_default=True)
        with self.folder:
            for robot, name in cams:
                spec = rig.sensor(robot, name).mount.spec
                blank = np.zeros((spec.height, spec.width, 3), np.uint8)
                rgb = self.gui.add_image(blank, label=f"{robot}/{name}", format="jpeg")
                depth = self.gui.add_image(blank, label=f"{robot}/{name} depth", format="jpeg")
                self._images[(robot, name)] = (rgb, depth)

    def update(self) -> None:
        rig = self.rig
        if rig is None:
            return
        for key, (rgb_h, depth_h) in self._images.items():
            reading = rig.latest(*key)
            if reading is None or self._shown.get(key) == reading.t:
                continue
            if "rgb" in reading.data:
                rgb_h.image = reading["rgb"]
            if "depth" in reading.data:
                far = float(rig.sensor(*key).mount.spec.range[1])
                depth_h.image = depth_image(reading["depth"], far)
            self._shown[key] = reading.t
            self.updates += 1
