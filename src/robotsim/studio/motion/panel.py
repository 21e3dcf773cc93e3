"""Motion editor (seed 000): capture poses as keyframes with thumbnails of the 3D view,
load and save motion/program files, and play them with the stance foot highlighted.

A loaded program shows its motions and its sequence; the chosen motion's keyframes are
a strip of thumbnails with their speed levels (:mod:`robotsim.studio.motion.strip`;
keyframes saved without a thumbnail are rendered offscreen). Selecting a keyframe puts
the robot in its pose and outlines it in the strip; its speed level can be changed, and
it can be moved up or down, copied or deleted."""

from __future__ import annotations

import itertools
import shutil
import tempfile
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.errors import InputError
from robotsim.model.robot import JointType

if TYPE_CHECKING:
    from robotsim.motion.schema import Keyframe, Motion, Program
    from robotsim.studio.interface import StudioAPI as Studio
    from robotsim.studio.robot_view import RobotView

__all__ = ["MotionPanel"]

THUMB_SIZE = 128
STRIP_TILE = 112  # px per thumbnail in the strip
STRIP_PER_ROW = 4
_serial = itertools.count(1)
_NO_MOTION = "_no motion: pose the robot and Capture pose, or Load a motion (walk_forward)_"


class MotionPanel:
    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        self.program: Program | None = None
        self.motion_name = ""
        self.path: Path | None = None
        self.images: dict[str, np.ndarray] = {}  # thumbnail path -> RGB image
        self.thumb_dir = Path(tempfile.mkdtemp(prefix="robotsim-thumbs-"))
        # captured thumbnails live until the studio stops (a saved motion copies them
        # beside itself); a panel dropped without a stop removes them when collected
        self._drop_thumbs = weakref.finalize(self, shutil.rmtree, self.thumb_dir, True)
        self.player: Any = None
        self.last_source = ""
        #: seconds a page may take to render a thumbnail before it is drawn offscreen
        self.render_timeout = 10.0
        self._lock = threading.RLock()
        gui = studio.gui
        self.robot = gui.add_dropdown("Robot", ("",), initial_value="")
        self.file = gui.add_text(
            "Motion file", initial_value="", hint="A motion or program YAML file"
        )
        file_buttons = gui.add_button_group("File", ("Load", "Save", "New"))
        self.overwrite = gui.add_checkbox("Overwrite", initial_value=False,
                                          hint="Save over an existing file (once)")  # fmt: skip
        self.speed = gui.add_slider(
            "New speed", min=1, max=8, step=1, initial_value=4, hint="1 slow .. 8 fast"
        )
        self.capture_button = gui.add_button("Capture pose", icon="camera")
        play_buttons = gui.add_button_group("Motion", ("Play motion", "Stop"))
        self.port = gui.add_text(
            "Robot port", initial_value="", hint="Serial device of the robot controller"
        )
        self.upload_button = gui.add_button("Upload to robot", icon="upload")
        self.readout = gui.add_markdown(_NO_MOTION)
        self.motion_select = gui.add_dropdown("Edit motion", ("",), initial_value="")
        self._robot_chosen = False
        self.list = gui.add_folder("Keyframes")
        #: the keyframe names of the strip, in order; ``selected`` the chosen one
        self.rows: list[str] = []
        self.selected = ""
        self._summary = _NO_MOTION
        self._rendered: dict[tuple[str, str], np.ndarray] = {}  # offscreen thumbnails
        self._renderer: Any = None
        with self.list:
            self.strip = gui.add_image(np.full((8, 8, 3), 248, np.uint8), format="png",
                                       visible=False)  # fmt: skip
            self.keyframe_select = gui.add_dropdown("Keyframe", ("",), initial_value="",
                                                    visible=False)  # fmt: skip
            self.keyframe_speed = gui.add_slider(
                "Speed level", min=1, max=8, step=1, initial_value=4, visible=False,
                hint="The selected keyframe's speed: 1 slow .. 8 fast",
            )  # fmt: skip
            self.keyframe_actions = gui.add_button_group(
                "Keyframe edit", ("Up", "Down", "Copy", "Delete"), visible=False
            )

        @self.keyframe_select.on_update
        @studio.guarded("select keyframe")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            if event.client is not None and self.keyframe_select.value:
                self.select(self._name_of(self.keyframe_select.value))

        @self.keyframe_speed.on_update
        @studio.guarded("keyframe speed")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            if event.client is not None and self.selected:
                self.set_speed(self.selected, int(self.keyframe_speed.value))

        @self.keyframe_actions.on_click
        @studio.guarded("keyframe")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            name, action = self.selected, event.target.value
            if not name:
                return
            if action == "Up":
                self.move(name, -1)
            elif action == "Down":
                self.move(name, +1)
            elif action == "Copy":
                self.duplicate(name)
            elif action == "Delete":
                self.delete(name)

        @self.robot.on_update
        def _(event) -> None:  # type: ignore[no-untyped-def]
            if event.client is not None:
                self._robot_chosen = True
            self.refresh_readout()

        @self.motion_select.on_update
        @studio.guarded("edit motion")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            name = self.motion_select.value
            if event.client is not None and self.program is not None and name:
                self.motion_name = self.program.motion(name).name
                self.rebuild()

        @file_buttons.on_click
        @studio.guarded("motion file")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            action = event.target.value
            if action == "Load":
                self.load(self.file.value)
            elif action == "Save":
                self.save(self.file.value, overwrite=self.overwrite.value)
                self.overwrite.value = False
            else:
                self.new()

        @self.capture_button.on_click
        @studio.guarded("capture pose")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.capture()

        @play_buttons.on_click
        @studio.guarded("play motion")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            if event.target.value == "Play motion":
                self.play()
            else:
                self.stop()

        @self.upload_button.on_click
        @studio.guarded("upload to robot")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            rep = self.upload(self.port.value)
            studio.notify(
                "Uploaded",
                f"{rep.name!r}: {rep.size} bytes in {rep.chunks} chunks, CRC-32 {rep.crc32:08x}",
            )

        studio.on("robots", self.on_robots)
        studio.on("clock", self.refresh_readout)
        studio.on("params", self.refresh_readout)
        studio.on("stop", self._drop_thumbs)
        self.on_robots()

    # -------------------------------------------------------------- helpers
    def on_robots(self) -> None:
        names = self.studio.robot_names() or ("",)
        self.robot.options = names
        if self.robot.value not in names or not self._robot_chosen:
            humanoids = [n for n, v in self.studio.views() if v.model.kind == "humanoid"]
            self.robot.value = humanoids[0] if humanoids else names[0]

    def view(self) -> RobotView:
        return self.studio.robot(self.robot.value)

    def motion(self) -> Motion | None:
        if self.program is None:
            return None
        return self.program.motion(self.motion_name)

    def _scales(self, view: RobotView) -> dict[str, float]:
        """File value per SI value: degrees for revolute joints (program units), m."""
        deg = 180.0 / np.pi if self.program is None or self.program.units == "deg" else 1.0
        m = view.model
        return {n: 1.0 if m.joint(n).type is JointType.PRISMATIC else deg for n in m.joint_names}

    def _set_motion(self, motion: Motion | None) -> None:
        from robotsim.motion.profile import check_keyframe_room
        from robotsim.motion.schema import Program

        check_keyframe_room(self.view().model.name, motion)  # the controller's capacity
        if motion is None:  # the last keyframe of the motion went
            rest = [] if self.program is None else [
                m for m in self.program.motions if m.name != self.motion_name
            ]  # fmt: skip
            if not rest:
                self.program, self.motion_name = None, ""
            else:
                data = self.program.model_dump()  # type: ignore[union-attr]
                data["motions"] = [m.model_dump() for m in rest]
                data["sequence"] = [s for s in data["sequence"] if s["motion"] != self.motion_name]
                self.program = Program.model_validate(data)
                self.motion_name = rest[0].name
        elif self.program is None:
            self.program = Program(
                name="studio", robot=self.view().model.name, units="deg", motions=[motion]
            )
            self.motion_name = motion.name
        else:
            self.program = self.program.with_motion(motion)
            self.motion_name = motion.name
        self.rebuild()

    # ------------------------------------------------------------ editing
    def capture(self, name: str | None = None) -> Keyframe:
        """Add the robot's current pose as a keyframe (all joints) with a thumbnail."""
        from robotsim.motion.profile import check_keyframe_room
        from robotsim.motion.schema import Keyframe, Motion
        from robotsim.studio.thumbnails import capture, save_png

        with self._lock:
            view = self.view()
            if self.program is not None and self.program.robot not in (None, view.model.name):
                raise InputError(
                    f"the motion is for {self.program.robot}, not {view.model.name}: "
                    "choose that robot or start a new motion"
                )
            scales = self._scales(view)
            targets = {n: round(float(v) * scales[n], 6) for n, v in zip(view.model.joint_names,
                                                                        view.q)}  # fmt: skip
            motion = self.motion()
            check_keyframe_room(view.model.name, motion, adding=1)
            used = set() if motion is None else set(motion.keyframe_names)
            k = len(used) + 1
            while name is None or name in used:
                name, k = f"pose{k}", k + 1
            img, self.last_source = capture(self.studio, view, THUMB_SIZE, self.render_timeout)
            thumb = save_png(img, self.thumb_dir / f"{name}_{next(_serial)}.png")
            self.images[str(thumb)] = img
            kf = Keyframe(name=name, targets=targets, speed=int(self.speed.value),
                          thumbnail=str(thumb))  # fmt: skip
            if motion is None:
                motion = Motion(name="motion1", keyframes=[kf])
            else:
                motion = motion.add_keyframe(kf)
            self.selected = name  # the new keyframe is the selected one
            self._set_motion(motion)
            return kf

    def go_to(self, keyframe: str) -> None:
        """Put the robot in a keyframe's pose (joints it does not name keep their value)."""
        motion = self.motion()
        if motion is None:
            return
        view = self.view()
        scales = self._scales(view)
        kf = motion.keyframe(keyframe)
        q = view.model.q_from({n: v / scales[n] for n, v in kf.targets.items()}, base=view.q)
        self.studio.set_q(view.name, q)

    def move(self, keyframe: str, delta: int) -> None:
        motion = self.motion()
        if motion is not None:
            i = int(np.clip(motion.index(keyframe) + delta, 0, len(motion.keyframes) - 1))
            self._set_motion(motion.move_keyframe(keyframe, i))

    def duplicate(self, keyframe: str) -> None:
        motion = self.motion()
        if motion is not None:
            self._set_motion(motion.duplicate_keyframe(keyframe))

    def delete(self, keyframe: str) -> None:
        motion = self.motion()
        if motion is None:
            return
        self._set_motion(motion.delete_keyframe(keyframe) if len(motion.keyframes) > 1 else None)

    def set_speed(self, keyframe: str, level: int) -> None:
        motion = self.motion()
        if motion is not None and motion.keyframe(keyframe).speed != int(level):
            self._set_motion(motion.set_speed(keyframe, int(level)))

    def new(self) -> None:
        self.stop()
        self.program, self.motion_name, self.path = None, "", None
        self.rebuild()

    # --------------------------------------------------------------- files
    def load(self, path: str | Path) -> None:
        """Read a motion or program file (a path in the studio's workspace, or a shipped
        motion's name); its robot is chosen (added if missing)."""
        from robotsim.motion.schema import load_program
        from robotsim.shipped import is_shipped, shipped_names
        from robotsim.studio.thumbnails import load_png

        text = str(path).strip()
        if not text:
            raise InputError(
                "type a motion file's path in the File field, or a shipped motion's name ("
                + ", ".join(shipped_names("motion"))
                + "), then Load"
            )
        workspace = self.studio.workspace
        path = workspace.find(text, "motion")
        with workspace.reading(text):
            program = load_program(path)
        if program.robot is not None:
            from robotsim.model import load_robot

            # ``robot:`` is a library name or a robot file's path: match the views on the
            # model's name (a path never equals it; loading such a file crashed here)
            robot = load_robot(program.robot).name
            if not any(v.model.name == robot for _, v in self.studio.views()):
                self.studio.add_robot(program.robot)
                self.studio.frame_camera()
            chosen = self.robot.value
            found = self.studio.find_robot(chosen)
            if found is None or found.model.name != robot:
                self.robot.value = next(n for n, v in self.studio.views()
                                        if v.model.name == robot)  # fmt: skip
        for m in program.motions:
            for kf in m.keyframes:
                if kf.thumbnail:
                    p = Path(kf.thumbnail)
                    p = p if p.is_absolute() else path.parent / p
                    if not (workspace.contains(p) or is_shipped(p)):
                        continue  # only pictures beside the motion, in the workspace
                    img = load_png(p)
                    if img is not None:
                        self.images[kf.thumbnail] = img
        self.stop()
        self.program, self.motion_name, self.path = program, program.motions[0].name, path
        self.file.value = str(path)
        self.rebuild()

    def save(self, path: str | Path, overwrite: bool = False) -> Path:
        """Write the program (``robotsim-program/1``) to a file in the studio's
        workspace (an existing one only with ``overwrite``); thumbnails are copied next
        to it, into ``<name>_thumbnails/``, with paths relative to the file."""
        from robotsim.motion.schema import save_program
        from robotsim.shipped import is_shipped

        if self.program is None:
            raise InputError("nothing to save: capture a keyframe or load a motion first")
        s = str(path).strip()
        if not s:
            raise InputError("give the motion file path (e.g. motions/my_motion.yaml)")
        if Path(s).suffix.lower() not in (".yaml", ".yml"):
            raise InputError(f"{s}: motion files end in .yaml or .yml")
        workspace = self.studio.workspace
        path = workspace.writable(s, overwrite)
        folder = workspace.resolve(path.parent / f"{path.stem}_thumbnails")
        program = self.program
        for m in program.motions:
            mm = m
            for kf in m.keyframes:
                if not kf.thumbnail:
                    continue
                src = Path(kf.thumbnail)
                src = src if src.is_absolute() else (self.path or path).parent / src
                if not src.is_file() or not (
                    src.resolve().is_relative_to(self.thumb_dir.resolve())
                    or workspace.contains(src)
                    or is_shipped(src)
                ):
                    continue  # captured here, or beside a motion in the workspace
                dst = folder / src.name
                if src.resolve() != dst.resolve():
                    folder.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, dst)
                rel = str(dst.relative_to(path.parent))
                if kf.thumbnail in self.images:
                    self.images[rel] = self.images[kf.thumbnail]
                mm = mm.replace_keyframe(kf.name, thumbnail=rel)
            program = program.with_motion(mm)
        save_program(program, path)
        self.program, self.path = program, path
        self.rebuild()
        return path

    def upload(self, port: str, timeout: float = 0.3, retries: int = 3) -> Any:
        """Store the program on the robot controller at serial device ``port`` (the
        framed protocol of docs/robotlink.md); returns the upload report. The robot
        keeps its previous program unless the whole upload is confirmed."""
        from robotsim.motion.profile import check_capacity, profile_for
        from robotsim.motion.timeline import compile_program
        from robotsim.robotlink import ControllerLink

        if self.program is None:
            raise InputError("nothing to upload: capture a keyframe or load a motion first")
        from robotsim.studio.workspace import serial_device

        dev = serial_device(port)
        model = self.view().model
        compile_program(self.program, model, "motion editor")  # names, joint limits
        check_capacity(self.program, profile_for(model.name), "motion editor")  # before a byte
        with ControllerLink(dev, timeout=timeout, retries=retries) as link:
            return link.upload(self.program)

    # ------------------------------------------------------------- playback
    def play(self) -> None:
        """Play the whole program on the chosen robot from its start; pauses at the end."""
        from robotsim.studio.motion.player import MotionPlayback, prepare

        if self.program is None:
            raise InputError("no motion to play: capture keyframes or load a motion file")
        st = self.studio
        prepared = prepare(st, self.view().name, self.program)
        self.stop()
        self.player = MotionPlayback(st, prepared)
        st.use_driver(self.player, restart=True)
        st.push()
        st.play(True)

    def stop(self) -> None:
        st = self.studio
        if self.player is not None:
            st.play(False)
            with st.locked():
                self.player.remove()
                st.release_driver(self.player)
                self.player = None

    # ------------------------------------------------------------------ view
    def program_summary(self) -> str:
        """The program's motions (keyframe counts), its sequence and its length."""
        prog = self.program
        if prog is None:
            return _NO_MOTION
        motions = ", ".join(f"`{m.name}` ({len(m.keyframes)})" for m in prog.motions)
        seq = getattr(prog, "sequence", None) or []
        order = " → ".join(s.motion + (f" ×{s.repeat}" if s.repeat != 1 else "") for s in seq)
        text = f"**{prog.name}** · {len(prog.motions)} motions (keyframes): {motions}"
        if order:
            text += f"<br>sequence: {order}"
        view = self.studio.find_robot(self.robot.value)
        if view is not None:
            try:
                from robotsim.motion.timeline import compile_program

                tl = compile_program(prog, view.model, f"motion {prog.name}")
                text += f" · {tl.total_time:.1f} s"
            except Exception:  # not playable on this robot: the Play button says why
                pass
        return text

    def refresh_readout(self) -> None:
        motion = self.motion()
        if motion is None:
            self.readout.content = _NO_MOTION
            return
        n = len(motion.keyframes)
        text = self._summary + f"<br>editing motion `{motion.name}` · {n} keyframes"
        p = self.player
        if p is not None:
            tick = p.tick
            label = p.prepared.labels[tick][1] if p.prepared.labels else ""
            state = "finished" if p.finished else ("playing" if self.studio.playing else "paused")
            text += (
                f"<br>{state}: t = {p.tau:.2f} / {p.prepared.duration:.2f} s of the motion,"
                f" keyframe `{label}`"
            )
            if p.support_name():
                text += f", stance foot **{p.support_name()}**"
            rec, now = p.level()
            if rec:
                shift = now - rec
                text += f"<br>speed level {rec}" + (
                    f" → **{now}** (live {p.level_shift():+d}; keys N/M)" if shift else
                    " (keys N/M change it live: Live parameters)"
                )  # fmt: skip
        self.readout.content = text

    def _label(self, i: int, name: str) -> str:
        return f"{i + 1}. {name}"

    def _name_of(self, label: str) -> str:
        return label.split(". ", 1)[1] if ". " in label else label

    def select(self, keyframe: str) -> None:
        """Choose a keyframe of the current motion: the robot takes its pose, the strip
        outlines it and the speed slider shows its level."""
        motion = self.motion()
        if motion is None:
            return
        motion.keyframe(keyframe)  # an unknown name lists the valid ones
        self.selected = keyframe
        self.go_to(keyframe)
        self.rebuild()

    def keyframe_q(self, kf: Keyframe, view: RobotView) -> np.ndarray:
        """The configuration ``(nq,)`` of keyframe ``kf`` on ``view``'s robot: its
        targets over the program's start pose (else the robot's start pose)."""
        scales = self._scales(view)
        m = view.model
        start = getattr(self.program, "start", None)
        base = m.pose(start) if isinstance(start, str) and start in m.poses else view.initial_q
        return m.q_from({n: v / scales[n] for n, v in kf.targets.items()}, base=base)

    def thumbnail(self, kf: Keyframe) -> np.ndarray | None:
        """The keyframe's picture: its saved thumbnail, else an offscreen render of its
        pose (cached; None if the robot is not in the scene)."""
        img = self.images.get(kf.thumbnail or "")
        if img is not None:
            return img
        view = self.studio.find_robot(self.robot.value)
        if view is None:
            return None
        key = (view.model.name, repr(sorted(kf.targets.items())))
        if key not in self._rendered:
            from robotsim.motion.render import PoseRenderer

            if self._renderer is None or self._renderer.model is not view.model:
                self._close_renderer()
                self._renderer = PoseRenderer(view.model, THUMB_SIZE, THUMB_SIZE)
            q = self.keyframe_q(kf, view)
            self._rendered[key] = self._renderer.render(q, view.initial_T_world_root)
        return self._rendered[key]

    def _close_renderer(self) -> None:
        if self._renderer is not None:
            close = getattr(self._renderer, "close", None)
            if close is not None:
                close()
            self._renderer = None

    def draw_strip(self) -> np.ndarray:
        """The current motion's keyframe strip (see :mod:`robotsim.studio.motion.strip`)."""
        from robotsim.studio.motion.strip import StripTile, draw_strip

        motion = self.motion()
        kfs = [] if motion is None else list(motion.keyframes)
        tiles = [StripTile(self.thumbnail(kf), kf.name, int(kf.speed)) for kf in kfs]
        sel = self.rows.index(self.selected) if self.selected in self.rows else None
        return draw_strip(tiles, sel, STRIP_PER_ROW, STRIP_TILE)

    def rebuild(self) -> None:
        """The motion list, the keyframe strip and the selected keyframe's controls."""
        with self._lock:
            motion = self.motion()
            names = ("",) if self.program is None else tuple(m.name for m in self.program.motions)
            self.motion_select.options = names
            self.motion_select.value = self.motion_name if self.motion_name in names else names[0]
            kfs = [] if motion is None else list(motion.keyframes)
            self.rows = [kf.name for kf in kfs]
            if self.selected not in self.rows:
                self.selected = self.rows[0] if self.rows else ""
            labels = tuple(self._label(i, kf.name) for i, kf in enumerate(kfs)) or ("",)
            self.keyframe_select.options = labels
            if self.selected:
                i = self.rows.index(self.selected)
                self.keyframe_select.value = labels[i]
                self.keyframe_speed.value = int(kfs[i].speed)
            self._summary = self.program_summary()
            self.refresh_readout()
            for w in (self.strip, self.keyframe_select, self.keyframe_speed,
                      self.keyframe_actions):  # fmt: skip
                w.visible = bool(kfs)
            if kfs:
                self.strip.image = self.draw_strip()
