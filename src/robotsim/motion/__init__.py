"""Motion programs (seed 000): keyframes with speed levels and thumbnails, motions,
programs; interpolation and the paper's two speed methods; kinematic playback with the
support foot as the root of the tree; a static walk; the physics check.

The editor-facing API: :func:`load_program` / :func:`save_program`; the frozen
:class:`Program`, :class:`Motion` and :class:`Keyframe` with ``add_keyframe``,
``delete_keyframe``, ``move_keyframe``, ``duplicate_keyframe``, ``replace_keyframe``,
``set_speed``, ``Program.with_motion``; :func:`keyframe_from_q` (record a pose),
:func:`keyframe_poses` (the pose each keyframe reaches); :func:`render_thumbnails` and
:func:`render_pose_png` (lazy import of :mod:`robotsim.motion.render`, which needs MuJoCo).
"""

from robotsim.motion.balance import com_world as com_world
from robotsim.motion.gait import WalkParams as WalkParams
from robotsim.motion.gait import static_walk as static_walk
from robotsim.motion.playback import PlaybackResult as PlaybackResult
from robotsim.motion.playback import Player as Player
from robotsim.motion.playback import StepMeasure as StepMeasure
from robotsim.motion.playback import compare_speed_methods as compare_speed_methods
from robotsim.motion.playback import play as play
from robotsim.motion.profile import RobotProfile as RobotProfile
from robotsim.motion.profile import SoleSpec as SoleSpec
from robotsim.motion.profile import check_capacity as check_capacity
from robotsim.motion.profile import load_profile as load_profile
from robotsim.motion.schema import Keyframe as Keyframe
from robotsim.motion.schema import Motion as Motion
from robotsim.motion.schema import Program as Program
from robotsim.motion.schema import ProgramStep as ProgramStep
from robotsim.motion.schema import load_program as load_program
from robotsim.motion.schema import program_from_dict as program_from_dict
from robotsim.motion.schema import save_program as save_program
from robotsim.motion.schema import speed_seconds as speed_seconds
from robotsim.motion.support import ContactSettings as ContactSettings
from robotsim.motion.support import SupportTracker as SupportTracker
from robotsim.motion.support import Switch as Switch
from robotsim.motion.timeline import Samples as Samples
from robotsim.motion.timeline import Timeline as Timeline
from robotsim.motion.timeline import compile_program as compile_program
from robotsim.motion.timeline import keyframe_from_q as keyframe_from_q
from robotsim.motion.timeline import keyframe_poses as keyframe_poses

__all__ = [
    "ContactSettings",
    "Keyframe",
    "Motion",
    "PlaybackResult",
    "Player",
    "Program",
    "ProgramStep",
    "RobotProfile",
    "Samples",
    "SoleSpec",
    "StepMeasure",
    "SupportTracker",
    "Switch",
    "Timeline",
    "WalkParams",
    "check_capacity",
    "com_world",
    "compare_speed_methods",
    "compile_program",
    "keyframe_from_q",
    "keyframe_poses",
    "load_profile",
    "load_program",
    "play",
    "program_from_dict",
    "render_pose_png",
    "render_thumbnails",
    "save_program",
    "speed_seconds",
    "static_walk",
]


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    if name in ("render_thumbnails", "render_pose_png"):
        from robotsim.motion import render

        return getattr(render, name)
    raise AttributeError(name)
