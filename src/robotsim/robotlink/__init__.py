"""Serial link to real robots: Dynamixel servos (live) and the robot controller
(program upload/download), plus a robot-side emulator for tests and demos."""

from robotsim.robotlink.controller import ControllerLink as ControllerLink
from robotsim.robotlink.controller import UploadReport as UploadReport
from robotsim.robotlink.emulator import FaultPlan as FaultPlan
from robotsim.robotlink.emulator import RobotEmulator as RobotEmulator
from robotsim.robotlink.servomap import ServoMap as ServoMap
from robotsim.robotlink.servos import ServoBus as ServoBus
from robotsim.robotlink.servos import StreamReport as StreamReport
from robotsim.robotlink.servos import stream as stream
from robotsim.robotlink.transport import FdTransport as FdTransport
from robotsim.robotlink.transport import SerialTransport as SerialTransport

__all__ = [
    "ControllerLink",
    "FaultPlan",
    "FdTransport",
    "RobotEmulator",
    "SerialTransport",
    "ServoBus",
    "ServoMap",
    "StreamReport",
    "UploadReport",
    "stream",
]
