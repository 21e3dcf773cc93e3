"""Motion programs played in the studio, with the support foot shown.

:func:`prepare` compiles a program for one robot in the scene and plays it once through
:func:`robotsim.motion.playback.play` (kinematics with support-foot switching, when the
robot's profile names its soles), at the studio's step. :class:`MotionPlayback` is the
studio driver that replays those ticks against simulated time: it sets each tick's
joints and root pose and puts a green plate under the stance foot (a lighter plate
under the other foot while both are on the ground). The root path is shifted to where
the robot stands in the scene. At the end the studio pauses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.model.geometry import Box
from robotsim.spatial import R_to_quat, trans
from robotsim.studio.shapes import geometry_mesh

if TYPE_CHECKING:
    from robotsim.motion.schema import Program
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["MotionPlayback", "PreparedMotion", "prepare"]

STANCE_RGB = (40, 200, 90)
CONTACT_RGB = (170, 230, 180)


@dataclass(frozen=True, eq=False)
class PreparedMotion:
    """A program's ticks for one robot: ``t`` ``(N+1,)`` s, ``q`` ``(N+1, nq)``,
    ``T_world_root`` ``(N+1, 4, 4)`` (scene placement applied), ``support`` ``(N+1,)``
    sole index or -1, ``double`` ``(N+1,)`` both soles down; ``labels[i]`` the
    (motion, keyframe) tick ``i`` moves into; ``soles`` the profile's sole specs."""

    robot: str
    t: np.ndarray
    q: np.ndarray
    T_world_root: np.ndarray
    support: np.ndarray
    double: np.ndarray
    labels: tuple[tuple[str, str], ...]
    soles: tuple[Any, ...]
    switches: int

    @property
    def duration(self) -> float:
        return float(self.t[-1])


def _soles(model: Any) -> tuple[Any, ...]:
    try:
        from robotsim.motion.profile import load_profile

        return tuple(load_profile(model.name).soles)
    except Exception:  # no profile for this robot: play without support switching
        return ()


def prepare(
    studio: Studio, robot: str, program: Program, tick: float | None = None
) -> PreparedMotion:
    """Compile and play ``program`` on scene robot ``robot`` (errors name the field)."""
    from robotsim.motion.playback import play
    from robotsim.motion.timeline import compile_program

    view = studio.robot(robot)
    model = view.model
    tick = studio.dt if tick is None else tick
    tl = compile_program(program, model, f"motion {program.name}")
    soles = _soles(model)
    place = view.initial_T_world_root
    if soles:
        res = play(model, tl, soles, "fixed_tick", tick=tick)
        s = res.samples
        shift = trans([place[0, 3], place[1, 3], 0.0])
        T = shift @ res.T_world_root
        support = np.asarray(res.support)
        double = np.asarray(res.double, dtype=bool)
        switches = len(res.switches)
    else:
        s = tl.sample("fixed_tick", tick=tick)
        T = np.broadcast_to(view.state.T_world_root, (len(s.t), 4, 4)).copy()
        support = np.full(len(s.t), -1)
        double = np.zeros(len(s.t), dtype=bool)
        switches = 0
    labels = tuple(
        (tl.labels[k][0], tl.labels[k][2]) for k in np.clip(s.seg, 0, len(tl.labels) - 1)
    )
    return PreparedMotion(robot, np.asarray(s.t), np.asarray(s.q), T, support, double,
                          labels, soles, switches)  # fmt: skip


class MotionPlayback:
    """Studio driver replaying a :class:`PreparedMotion` (see module docs)."""

    name = "motion"

    def __init__(self, studio: Studio, prepared: PreparedMotion) -> None:
        self.prepared = prepared
        self.tick = 0
        self.finished = False
        view = studio.robot(prepared.robot)
        self.plates = []
        for i, sole in enumerate(prepared.soles):
            m = geometry_mesh(Box((sole.size[0] + 0.02, sole.size[1] + 0.02, 0.004)))
            h = studio.scene.add_mesh_simple(
                f"{view.root_path}/support_{i}", np.asarray(m.vertices, np.float32),
                np.asarray(m.faces, np.uint32), color=STANCE_RGB, opacity=0.8, visible=False,
                cast_shadow=False,
            )  # fmt: skip
            self.plates.append((h, sole))

    def reset(self, studio: Studio) -> None:
        self.tick = 0
        self.finished = False
        self._apply(studio, 0)

    def step(self, studio: Studio, t: float, dt: float) -> None:
        p = self.prepared
        i = int(np.searchsorted(p.t, t - 1e-12))
        if i >= len(p.t) - 1:
            i = len(p.t) - 1
            self.finished = True
            studio.halt()
        self.tick = i
        self._apply(studio, i)

    def recorded_end(self) -> float:
        """The whole program is played ahead: any time (s) up to its end can be shown."""
        return self.prepared.duration

    def show_at(self, studio: Studio, t: float) -> None:
        p = self.prepared
        i = min(int(np.searchsorted(p.t, t - 1e-12)), len(p.t) - 1)
        self.finished = i == len(p.t) - 1
        self.tick = i
        self._apply(studio, i)

    def _apply(self, studio: Studio, i: int) -> None:
        p = self.prepared
        view = studio.find_robot(p.robot)
        if view is None:
            return
        view.state.set_anchor(None)
        view.state.set_root(p.T_world_root[i])
        view.set_q(p.q[i])
        for k, (h, sole) in enumerate(self.plates):
            stance = k == p.support[i]
            down = bool(p.double[i])
            h.visible = stance or down
            if not h.visible:
                continue
            h.color = STANCE_RGB if stance else CONTACT_RGB
            T = view.state.pose(sole.frame)
            c = np.array([sole.center[0], sole.center[1], -0.003, 1.0])
            h.position = (T @ c)[:3]
            h.wxyz = R_to_quat(T[:3, :3])

    def support_name(self) -> str:
        """The stance sole's frame at the current tick ('' when none)."""
        k = int(self.prepared.support[self.tick])
        return self.prepared.soles[k].frame if 0 <= k < len(self.prepared.soles) else ""

    def remove(self) -> None:
        for h, _ in self.plates:
            h.remove()
        self.plates = []
