"""Program the humanoid like the paper's users: record poses as keyframes, chain motions,
play them with the support foot as the root, check them on physics, send them to the robot.

    python examples/humanoid_motion_program.py [OUT_DIR]

The robot here is the software emulator on a pty pair; with a real controller, pass its
serial device to ``ControllerLink`` instead.
"""

from __future__ import annotations

import os
import sys
import tempfile
import tty
from pathlib import Path

import numpy as np

from robotsim import load_robot
from robotsim.motion import (
    Motion,
    Program,
    ProgramStep,
    compile_program,
    keyframe_from_q,
    load_profile,
    play,
    render_pose_png,
    save_program,
)
from robotsim.motion.physics_check import check_physics
from robotsim.robotlink import ControllerLink, FdTransport, RobotEmulator, SerialTransport


def main(out: Path) -> int:
    model = load_robot("humanoid17")
    profile = load_profile("humanoid17")
    arms = ["left_shoulder_pitch", "right_shoulder_pitch", "left_elbow", "right_elbow"]

    # 1. "Pose the robot with the mouse" and capture each pose as a keyframe.
    crouch = model.pose("crouch")
    poses = {
        "reach": model.q_from({"left_shoulder_pitch": -1.4, "right_shoulder_pitch": -1.4}, crouch),
        "bend": model.q_from(
            {
                "left_shoulder_pitch": -1.4,
                "right_shoulder_pitch": -1.4,
                "left_elbow": 1.2,
                "right_elbow": 1.2,
            },
            crouch,
        ),
        "rest": crouch,
    }
    keyframes = []
    for i, (name, q) in enumerate(poses.items()):
        kf = keyframe_from_q(model, q, name, speed=5, joints=arms)
        thumb = render_pose_png(model, q, out / "thumbs" / f"{name}.png", profile.soles)
        keyframes.append(
            kf.model_copy(update={"thumbnail": str(thumb.relative_to(out)), "hold": 0.2 * i})
        )
    wave = Motion(name="arm_exercise", interpolation="minjerk", keyframes=keyframes)
    program = Program(
        name="exercise",
        robot="humanoid17",
        start="crouch",
        motions=[wave],
        sequence=[ProgramStep(motion="arm_exercise", repeat=3)],
    )
    path = save_program(program, out / "exercise.yaml")
    print(f"saved {path} ({len(keyframes)} keyframes, repeated 3 times)")

    # 2. Play it kinematically (support foot = root of the tree) and on physics.
    result = play(model, compile_program(program, model), profile.soles)
    check = check_physics(result, profile)
    print(
        f"played {result.ticks} ticks; stance slip {result.max_stance_slip_m:.1e} m; "
        f"physics: {check.verdict} (max tilt {np.max(check.tilt_deg):.1f} deg)"
    )

    # 3. Upload to the robot controller and read it back.
    master, slave = os.openpty()
    tty.setraw(slave)
    robot = RobotEmulator(FdTransport(master, "robot"), model, profile).start()
    try:
        with ControllerLink(SerialTransport(os.ttyname(slave))) as link:
            report = link.upload(program)
            back = link.download()
    finally:
        robot.stop()
        os.close(master)
        os.close(slave)
    print(
        f"uploaded {report.size} bytes in {report.chunks} chunks; downloaded copy "
        f"{'matches' if back == program else 'DIFFERS'}"
    )
    return 0 if back == program and check.verdict == "stands" else 1


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="motion_"))
    sys.exit(main(target))
