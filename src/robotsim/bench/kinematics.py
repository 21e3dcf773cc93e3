"""``robotsim bench kinematics``: batched and single FK of PUMA 560, and one humanoid
frame (all link poses + anchor update). Peers (pinocchio, Robotics Toolbox) are timed
on the same work when installed."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from robotsim.bench.timing import median_time
from robotsim.kinematics.floating import AnchoredState
from robotsim.model import load_robot

__all__ = ["run"]


def run(quick: bool = False) -> dict[str, Any]:
    puma = load_robot("puma560")
    rng = np.random.default_rng(0)
    n = 100_000 if quick else 1_000_000
    q = rng.uniform(puma.lower, puma.upper, size=(n, 6))
    puma.fk(q[:8])
    t_batch = median_time(lambda: puma.fk(q), repeats=3 if quick else 7)
    q1 = q[0].copy()
    t_single = median_time(lambda: puma.fk(q1), repeats=7, inner=200 if quick else 2000)
    out: dict[str, Any] = {
        "fk_batch_n": n,
        "fk_batch_cfg_per_s": n / t_batch,
        "fk_single_us": t_single * 1e6,
        "threads": 1,
    }
    try:
        hum = load_robot("humanoid17")
    except Exception:  # the humanoid may not be in the library yet
        hum = None
    if hum is not None:
        st = AnchoredState(hum, anchor=hum.frame_names[0] if hum.frame_names else None)
        qs = rng.uniform(np.maximum(hum.lower, -0.5), np.minimum(hum.upper, 0.5), (64, hum.nq))
        k = [0]

        def frame() -> None:
            st.set_q(qs[k[0] % 64])
            st.link_poses()
            k[0] += 1

        out["humanoid_frame_us"] = median_time(frame, repeats=7, inner=200 if quick else 2000) * 1e6
    out["peers"] = _peers(q, quick)
    return out


def _peers(q: np.ndarray, quick: bool) -> dict[str, Any]:
    peers: dict[str, Any] = {}
    ours_single = None
    if importlib.util.find_spec("pinocchio") is not None:
        peers["pinocchio"] = _pinocchio(q[: 20_000 if quick else 100_000])
    if importlib.util.find_spec("roboticstoolbox") is not None:
        peers["roboticstoolbox"] = _rtb(q[: 2_000 if quick else 20_000])
    del ours_single
    if not peers:
        peers["note"] = "neither pinocchio (pin) nor roboticstoolbox-python is installed"
    return peers


def _pinocchio(q: np.ndarray) -> dict[str, Any]:
    import pinocchio as pin

    from robotsim.model.urdf import to_urdf_string

    model = pin.buildModelFromXML(to_urdf_string(load_robot("puma560")))
    data = model.createData()
    fid = model.getFrameId("tool") if model.existFrame("tool") else model.nframes - 1

    def loop() -> None:
        for row in q:
            pin.framesForwardKinematics(model, data, row)
            data.oMf[fid]

    t = median_time(loop, repeats=3)
    return {"fk_batch_cfg_per_s": len(q) / t, "method": "python loop over framesForwardKinematics"}


def _rtb(q: np.ndarray) -> dict[str, Any]:
    import roboticstoolbox as rtb

    robot = rtb.models.DH.Puma560()
    ets = robot.ets()

    def loop() -> None:
        for row in q:
            ets.fkine(row)

    t = median_time(loop, repeats=3)
    t1 = median_time(lambda: robot.fkine(q[0]), repeats=5, inner=200)
    return {"fk_batch_cfg_per_s": len(q) / t, "fk_single_us_dh": t1 * 1e6,
            "method": "python loop over ETS.fkine (C-accelerated)"}  # fmt: skip
