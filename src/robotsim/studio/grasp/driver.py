"""``kind: grasp`` in the studio: the robot, the table and the object; Play runs the
trials one after the other (each simulated in MuJoCo as ``robotsim grasp`` runs it,
every control tick recorded) and shows them on the studio clock; a notification per
trial gives its verdict and numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from robotsim.spatial import R_to_quat
from robotsim.studio.interface import StudioAPI

__all__ = ["GraspDriver", "open_grasp"]

ROBOT = "robot"


class GraspDriver:
    """Plays grasp trials (module docstring)."""

    name = "grasp trials"

    def __init__(self, run: Any, trials: int, seed: int) -> None:
        self.run, self.trials, self.seed = run, trials, seed
        self.obj_node: Any = None
        self.reset_state()

    def reset_state(self) -> None:
        self.rng = np.random.default_rng(self.seed)
        self.done = 0
        self.frames: list[tuple[float, np.ndarray, np.ndarray]] = []
        self.t0 = 0.0  # studio time the current trial's recording starts at
        self.results: list[Any] = []

    def attach(self, studio: StudioAPI) -> None:
        srv = studio.scene
        v, f = self.run.obj.surface
        v32, f32 = np.asarray(v, np.float32), np.asarray(f, np.uint32)
        self.obj_node = srv.add_mesh_simple("/grasp/object", vertices=v32, faces=f32,
                                            color=(220, 140, 50))  # fmt: skip
        t = self.run.table
        table = srv.add_box("/grasp/table", dimensions=t.size, color=(150, 130, 110),
                            position=t.center)  # fmt: skip
        studio.keep_objects([self.obj_node, table])
        self._show_pose(np.eye(4), None)

    def reset(self, studio: StudioAPI) -> None:
        self.reset_state()

    def _show_pose(self, T_obj: np.ndarray, q: np.ndarray | None) -> None:
        if self.obj_node is not None:
            self.obj_node.position = tuple(float(x) for x in T_obj[:3, 3])
            self.obj_node.wxyz = tuple(float(x) for x in R_to_quat(T_obj[:3, :3]))

    def _next_trial(self, studio: StudioAPI, t: float) -> None:
        frames: list[tuple[float, np.ndarray, np.ndarray]] = []

        def record(time: float, q: np.ndarray, T_obj: np.ndarray) -> None:
            frames.append((time, q.copy(), T_obj.copy()))

        r = self.run.world.trial(self.rng, on_tick=record)
        self.results.append(r)
        self.done += 1
        self.frames, self.t0 = frames, t
        verdict = "held" if r.success else f"failed: {r.reason}"
        studio.notify(f"trial {self.done} of {self.trials}",
                      f"{verdict} (lifted {r.lifted_m:.3f} m, slip {r.slip_m * 1000:.1f} mm)",
                      error=not r.success)  # fmt: skip

    def step(self, studio: StudioAPI, t: float, dt: float) -> None:
        if not self.frames or t - self.t0 > self.frames[-1][0]:
            if self.done >= self.trials:
                return
            self._next_trial(studio, t)
            if not self.frames:
                return
        times = [fr[0] for fr in self.frames]
        k = int(np.searchsorted(times, t - self.t0, side="right")) - 1
        _, q, T_obj = self.frames[max(k, 0)]
        studio.set_q(ROBOT, q)
        self._show_pose(T_obj, q)


def open_grasp(studio: StudioAPI, path: Path, doc: dict[str, Any]) -> str:
    """The ``kind: grasp`` opener: robot, table and object, the trials as the driver."""
    from robotsim.grasp.scenario import parse, prepare_scenario
    from robotsim.studio.interface import SceneRobot

    spec = parse(doc, str(path))
    run = prepare_scenario(spec, str(path))
    driver = GraspDriver(run, spec.trials, spec.seed)
    robot = SceneRobot(run.hand.model, name=ROBOT, T_world_base=run.T_world_base,
                       q=run.world.q_start)  # fmt: skip
    t = run.table
    lo = [t.center[0] - t.size[0], t.center[1] - t.size[1], 0.0]
    hi = [t.center[0] + t.size[0], t.center[1] + t.size[1], t.center[2] + t.size[2]]
    return studio.load_scene(f"grasp {spec.name}: {run.hand.name} / {run.obj.name}", [robot],
                             driver=driver, camera=np.array([lo, hi]))  # fmt: skip
