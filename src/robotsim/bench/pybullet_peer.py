"""PyBullet as a peer of ``bench physics``: the soccer scene's omni robot rebuilt from
the compiled MuJoCo model (the same masses, wheel positions, axles, radius, motors and
the paper's anisotropic wheel friction) on a plane among the same eight obstacles,
stepped at the same timestep. Bare stepping only (no controller, no recording) against
our bare ``mj_step`` of the same settled scene, interleaved, CPU time."""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

__all__ = ["pybullet_peer"]


def _quat_x_to(axis: np.ndarray) -> list[float]:
    """xyzw quaternion turning the x axis onto unit ``axis``."""
    x = np.array([1.0, 0.0, 0.0])
    c = float(x @ axis)
    if c < -1.0 + 1e-12:
        return [0.0, 0.0, 1.0, 0.0]
    v = np.cross(x, axis)
    q = np.array([v[0], v[1], v[2], 1.0 + c])
    return list(q / np.linalg.norm(q))


def pybullet_peer(world: Any, robot: str, quick: bool) -> dict[str, Any]:
    """Time PyBullet stepping a copy of ``world``'s robot ``robot`` (a settled omni
    base) and its static obstacles; ``world`` is stepped alongside (bare ``mj_step``)."""
    import mujoco
    import pybullet as p

    m, d = world.model, world.data
    info = world.drives[robot]
    base = m.body(f"{robot}/base").id if f"{robot}/base" in world.body_names else None
    if base is None:
        return {"note": f"robot {robot!r} has no body '{robot}/base'"}
    cid = p.connect(p.DIRECT)
    try:
        h = float(m.opt.timestep)
        p.setTimeStep(h, physicsClientId=cid)
        p.setGravity(*m.opt.gravity, physicsClientId=cid)
        plane = p.createCollisionShape(p.GEOM_PLANE, physicsClientId=cid)
        p.createMultiBody(0, plane, physicsClientId=cid)
        for b in range(1, m.nbody):
            name = m.body(b).name
            if not name.startswith("obstacle"):
                continue
            g = int(m.body_geomadr[b])
            r, half = float(m.geom_size[g][0]), float(m.geom_size[g][1])
            shape = p.createCollisionShape(
                p.GEOM_CYLINDER, radius=r, height=2 * half, physicsClientId=cid
            )
            p.createMultiBody(0, shape, basePosition=list(d.xpos[b]), physicsClientId=cid)
        R = d.xmat[base].reshape(3, 3)
        joints = [m.joint(j).id for j in info.wheel_joints]
        bodies = [int(m.jnt_bodyid[j]) for j in joints]
        axes = [R.T @ d.xaxis[j] for j in joints]
        sphere = [
            p.createCollisionShape(p.GEOM_SPHERE, radius=info.wheel_radius, physicsClientId=cid)
            for _ in joints
        ]
        robot_id = p.createMultiBody(
            baseMass=float(m.body_mass[base]),
            baseCollisionShapeIndex=-1,
            basePosition=list(d.xpos[base]),
            baseOrientation=list(np.roll(d.xquat[base], -1)),
            linkMasses=[float(m.body_mass[b]) for b in bodies],
            linkCollisionShapeIndices=sphere,
            linkVisualShapeIndices=[-1] * len(joints),
            linkPositions=[list(R.T @ (d.xpos[b] - d.xpos[base])) for b in bodies],
            linkOrientations=[_quat_x_to(a) for a in axes],
            linkInertialFramePositions=[[0.0, 0.0, 0.0]] * len(joints),
            linkInertialFrameOrientations=[[0.0, 0.0, 0.0, 1.0]] * len(joints),
            linkParentIndices=[0] * len(joints),
            linkJointTypes=[p.JOINT_REVOLUTE] * len(joints),
            linkJointAxis=[[1.0, 0.0, 0.0]] * len(joints),
            physicsClientId=cid,
        )
        mu = float(info.surface.mu)
        for k in range(len(joints)):  # grip along the rolling direction, ~0 along the axle
            p.changeDynamics(
                robot_id, k, lateralFriction=mu, anisotropicFriction=[1e-5 / mu, 1.0, 1.0],
                physicsClientId=cid,
            )  # fmt: skip
        actuator = mujoco.mjtObj.mjOBJ_ACTUATOR
        act = [int(mujoco.mj_name2id(m, actuator, j)) for j in info.wheel_joints]
        p.setJointMotorControlArray(
            robot_id, list(range(len(joints))), p.VELOCITY_CONTROL,
            targetVelocities=[float(d.ctrl[a]) for a in act],
            forces=[float(m.actuator_forcerange[a][1]) or 5.0 for a in act],
            physicsClientId=cid,
        )  # fmt: skip
        p.stepSimulation(physicsClientId=cid)
        steps = 200 if quick else 500
        for _ in range(steps):  # settle
            p.stepSimulation(physicsClientId=cid)
        spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
        saved = np.empty(mujoco.mj_stateSize(m, spec))
        mujoco.mj_getState(m, d, saved, spec)
        theirs, ours = [], []
        cpu = time.thread_time
        for _ in range(5 if quick else 9):
            t0 = cpu()
            for _ in range(steps):
                p.stepSimulation(physicsClientId=cid)
            theirs.append((cpu() - t0) / steps)
            mujoco.mj_setState(m, d, saved, spec)
            t0 = cpu()
            mujoco.mj_step(m, d, steps)
            ours.append((cpu() - t0) / steps)
        mujoco.mj_setState(m, d, saved, spec)
        mujoco.mj_forward(m, d)
        v = p.getBaseVelocity(robot_id, physicsClientId=cid)[0]
        contacts = len(p.getContactPoints(bodyA=robot_id, physicsClientId=cid))
    finally:
        p.disconnect(cid)
    t_theirs, t_ours = statistics.median(theirs), statistics.median(ours)
    return {
        "step_us": t_theirs * 1e6,
        "mj_step_us_ours_interleaved": t_ours * 1e6,
        "ours_over_theirs": t_ours / t_theirs,
        "contacts": contacts,
        "base_speed_m_s": float(np.hypot(v[0], v[1])),
        "timestep_s": h,
        "method": "the soccer robot rebuilt in PyBullet (sphere wheels with the same "
        "radius, masses, axles, velocity motors and anisotropic friction mu along the "
        "rolling direction, 1e-5 along the axle), same obstacles and timestep; bare "
        "stepSimulation vs bare mj_step from the settled state, CPU time, interleaved",
    }
