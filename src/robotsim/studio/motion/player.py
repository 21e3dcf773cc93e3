"""Motion programs played in the studio, with the support foot shown.

:func:`prepare` compiles a program for one robot in the scene and plays it once through
:func:`robotsim.motion.playback.play` (kinematics with support-foot switching, when the
robot's profile names its soles), at the studio's step. :class:`MotionPlayback` is the
studio driver that replays those ticks against simulated time: it sets each tick's
joints and root pose and puts a green plate under the stance foot (a lighter plate
under the other foot while both are on the ground). The root path is shifted to where
the robot stands in the scene. At the end the studio pauses.

**Speed level while playing.** The studio's live parameters
(:mod:`robotsim.teleop.params`, keys N/M or the gamepad's D-pad) shift every
keyframe's speed level (1 slow .. 8 fast, held within 1 .. 8) from the moment of the
press: the move into a keyframe then lasts ``max(T(level + shift), joint-limit time)``
(:mod:`robotsim.motion.timeline`) instead of its recorded duration; holds keep their
length. The playback maps the studio's time onto the prepared program's time
("motion time") piecewise linearly, each move stretched or shrunk by its new duration
over its prepared one; the joint path is the same (a move's profile ``s(u)`` depends
only on its fraction ``u``), so the robot passes the same poses, sooner or later.
Between two prepared ticks the joints and root position are interpolated. The map of
the time played is kept, so the time slider shows what was shown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
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
    #: per tick: its segment (keyframe visit) ``(N+1,)`` and whether it moves (False:
    #: a hold, or the start); per segment ``(K,)``: the recorded speed level, the
    #: nominal move time (s, 0 for a first keyframe that is the start pose) and the
    #: time the joint velocity limits need (s)
    seg: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    moving: np.ndarray = field(default_factory=lambda: np.zeros(1, bool))
    levels: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    nominal: np.ndarray = field(default_factory=lambda: np.zeros(0))
    need: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def duration(self) -> float:
        return float(self.t[-1])

    def move_seconds(self, shift: int) -> np.ndarray:
        """Each segment's move time (s) ``(K,)`` with its speed level shifted by
        ``shift`` (held within 1 .. 8) — the recorded durations at shift 0."""
        from robotsim.motion.schema import SPEED_BASE_S

        level = np.clip(self.levels + int(shift), 1, 8)
        nominal = np.where(self.nominal > 0, SPEED_BASE_S / level, 0.0)
        return np.maximum(nominal, self.need)

    def clock_map(self, shift: int) -> np.ndarray:
        """The studio time (s) ``(N+1,)`` at which each prepared tick is shown when the
        whole program plays at ``shift`` (``t`` itself at shift 0)."""
        base, shifted = self.move_seconds(0), self.move_seconds(shift)
        with np.errstate(divide="ignore", invalid="ignore"):
            stretch = np.where(base > 0, shifted / base, 1.0)
        dt = np.diff(self.t)
        k = np.where(self.moving[1:], stretch[np.clip(self.seg[1:], 0, len(base) - 1)], 1.0)
        return np.concatenate([[0.0], np.cumsum(dt * k)])


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
    from robotsim.motion.timeline import PEAK, compile_program

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
    seg = np.asarray(s.seg)
    u = np.asarray(s.u)
    moving = np.zeros(len(seg), bool)  # a tick whose previous one is not yet at its knot
    moving[1:] = (seg[1:] != seg[:-1]) | (u[:-1] < 1.0)
    vmax = np.asarray(model.velocity_limits, dtype=float)
    dq = np.abs(np.diff(tl.knots, axis=0))
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.where(np.isfinite(vmax), dq / vmax, 0.0).max(axis=1, initial=0.0)
    need = need * PEAK[tl.kind]
    return PreparedMotion(robot, np.asarray(s.t), np.asarray(s.q), T, support, double,
                          labels, soles, switches, seg, moving, np.asarray(tl.speed),
                          np.asarray(tl.nominal), need)  # fmt: skip


class MotionPlayback:
    """Studio driver replaying a :class:`PreparedMotion` (see module docs).

    ``level_shift`` (a callable, default the studio's live parameters) is the speed
    level shift in effect; ``tau`` the motion time shown, ``tick`` its prepared tick.
    """

    name = "motion"

    def __init__(self, studio: Studio, prepared: PreparedMotion,
                 level_shift: Callable[[], int] | None = None) -> None:  # fmt: skip
        self.prepared = prepared
        self.tick = 0
        self.tau = 0.0
        self.finished = False
        if level_shift is None:
            params = getattr(studio, "params", None)
            level_shift = (lambda: 0) if params is None else (
                lambda: round(params.speed_level_shift)
            )  # fmt: skip
        self.level_shift = level_shift
        self._maps: dict[int, np.ndarray] = {}
        # the map of the time played: studio times (s) and the motion times shown then
        self._log_t = [0.0]
        self._log_tau = [0.0]
        self._log_shift = self.level_shift()
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

    # ------------------------------------------------------------ time map
    def _map(self, shift: int) -> np.ndarray:
        m = self._maps.get(shift)
        if m is None:
            m = self._maps[shift] = self.prepared.clock_map(shift)
        return m

    def _ahead(self, t: float, shift: int) -> float:
        """The motion time at studio time ``t`` after the last one played, playing on
        at ``shift`` from there."""
        p, c = self.prepared, self._map(shift)
        t0, tau0 = self._log_t[-1], self._log_tau[-1]
        c_now = float(np.interp(tau0, p.t, c)) + (t - t0)
        return float(np.interp(c_now, c, p.t))

    def tau_at(self, t: float) -> float:
        """The motion time (s) shown at studio time ``t`` (s): the played map up to its
        end, then on at the current shift."""
        if t <= self._log_t[-1]:
            return float(np.interp(t, self._log_t, self._log_tau))
        return self._ahead(t, self.level_shift())

    def level(self) -> tuple[int, int]:
        """The current keyframe's recorded speed level and the level it plays at."""
        p = self.prepared
        if not len(p.levels):
            return 0, 0
        k = int(np.clip(p.seg[self.tick], 0, len(p.levels) - 1))
        rec = int(p.levels[k])
        return rec, int(np.clip(rec + self.level_shift(), 1, 8))

    # ------------------------------------------------------------- driver
    def reset(self, studio: Studio) -> None:
        self.finished = False
        self._log_t, self._log_tau = [0.0], [0.0]
        self._log_shift = self.level_shift()
        self._apply(studio, 0.0)

    def step(self, studio: Studio, t: float, dt: float) -> None:
        shift = self.level_shift()
        if t <= self._log_t[-1] and shift != self._log_shift:
            # a new speed level while replaying what was played: it applies from here
            keep = max(1, int(np.searchsorted(self._log_t, t - dt + 1e-12, side="right")))
            del self._log_t[keep:], self._log_tau[keep:]
        if t > self._log_t[-1]:
            tau = self._ahead(t, shift)
            self._log_t.append(t)
            self._log_tau.append(tau)
            self._log_shift = shift
        else:
            tau = self.tau_at(t)
        if tau >= self.prepared.duration - 1e-12:
            tau = self.prepared.duration
            self.finished = True
            studio.halt()
        self._apply(studio, tau)

    def recorded_end(self) -> float:
        """The whole program is played ahead: any time (s) up to its end (at the
        current speed level shift from the time played on) can be shown."""
        p, c = self.prepared, self._map(self.level_shift())
        t0, tau0 = self._log_t[-1], self._log_tau[-1]
        return t0 + float(c[-1] - np.interp(tau0, p.t, c))

    def show_at(self, studio: Studio, t: float) -> None:
        tau = min(self.tau_at(t), self.prepared.duration)
        self.finished = tau >= self.prepared.duration - 1e-12
        self._apply(studio, tau)

    def _apply(self, studio: Studio, tau: float) -> None:
        """Show motion time ``tau`` (s): joints and root position interpolated between
        the prepared ticks around it, the root orientation, support and plates of the
        later one."""
        p = self.prepared
        i = min(int(np.searchsorted(p.t, tau - 1e-12)), len(p.t) - 1)
        self.tick, self.tau = i, float(tau)
        view = studio.find_robot(p.robot)
        if view is None:
            return
        q, T = p.q[i], p.T_world_root[i]
        if i > 0 and p.t[i] > p.t[i - 1] and tau < p.t[i] - 1e-12:
            f = (tau - p.t[i - 1]) / (p.t[i] - p.t[i - 1])
            q = p.q[i - 1] + f * (p.q[i] - p.q[i - 1])
            T = T.copy()
            T0 = p.T_world_root[i - 1]
            T[:3, 3] = T0[:3, 3] + f * (T[:3, 3] - T0[:3, 3])
        view.state.set_anchor(None)
        view.state.set_root(T)
        view.set_q(q)
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
