"""Drive a mobile robot to a goal over UDP, from a separate process.

Start a server, then this controller::

    robotsim serve omni3 --udp 127.0.0.1:9870            # physics (MuJoCo)
    python examples/udp_goal_controller.py --goal 2,1,0.5

The controller reads the robot's pose with ``state`` requests, computes a saturated
proportional twist towards the goal in the robot frame (the omni base is holonomic:
it translates and turns at once) and sends it with ``set_base_velocity`` at ``--hz``.
It stops the robot within the goal tolerance and prints one JSON line with the result.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

from robotsim.remote import Client, RemoteError


def twist_towards(
    pose: tuple[float, float, float],
    goal: tuple[float, float, float],
    kp: float = 1.2,
    kr: float = 2.0,
    vmax: float = 0.6,
    wmax: float = 1.5,
) -> tuple[float, float, float]:
    """Body-frame ``(vx, vy, omega)`` from a world pose error, speeds clipped."""
    x, y, th = pose
    ex, ey = goal[0] - x, goal[1] - y
    eth = math.atan2(math.sin(goal[2] - th), math.cos(goal[2] - th))
    c, s = math.cos(th), math.sin(th)
    vx, vy = kp * (c * ex + s * ey), kp * (-s * ex + c * ey)
    speed = math.hypot(vx, vy)
    if speed > vmax:
        vx, vy = vx * vmax / speed, vy * vmax / speed
    return vx, vy, max(-wmax, min(wmax, kr * eth))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default="127.0.0.1:9870", help="HOST:PORT of robotsim serve")
    ap.add_argument("--robot", default=None, help="robot name (default: the first mobile one)")
    ap.add_argument("--goal", default="2,1,0", help="x,y,yaw (m, m, rad) in the world")
    ap.add_argument("--tolerance", type=float, default=0.05, help="position tolerance (m)")
    ap.add_argument("--hz", type=float, default=20.0, help="control rate (wall clock)")
    ap.add_argument("--timeout", type=float, default=60.0, help="give up after (wall s)")
    args = ap.parse_args(argv)
    goal = tuple(float(v) for v in args.goal.split(","))
    if len(goal) != 3:
        ap.error("--goal needs x,y,yaw")
    with Client(args.server, timeout=1.0, retries=2) as sim:
        robots = sim.info()["robots"]
        robot = args.robot or next((n for n, r in robots.items() if r["mobile"]), None)
        if robot is None:
            print(json.dumps({"reached": False, "error": "no mobile robot served"}))
            return 2
        t_start, end = sim.ping(), time.monotonic() + args.timeout
        reached = False
        while time.monotonic() < end:
            base = sim.state([robot])["robots"][robot]["base"]
            pose = (base["position"][0], base["position"][1], base["yaw"])
            dist = math.hypot(goal[0] - pose[0], goal[1] - pose[1])
            dyaw = abs(math.atan2(math.sin(goal[2] - pose[2]), math.cos(goal[2] - pose[2])))
            if dist <= args.tolerance and dyaw <= 0.05:
                reached = True
                break
            sim.set_base_velocity(robot, *twist_towards(pose, goal))
            time.sleep(1.0 / args.hz)
        sim.set_base_velocity(robot, 0.0, 0.0, 0.0)
        final = sim.state([robot])
        base = final["robots"][robot]["base"]
        print(
            json.dumps(
                {
                    "reached": reached,
                    "robot": robot,
                    "sim_time_s": final["t"] - t_start,
                    "position": base["position"],
                    "yaw": base["yaw"],
                }
            )
        )
    return 0 if reached else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RemoteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
