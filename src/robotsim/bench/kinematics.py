"""``robotsim bench kinematics``: batched and single FK of PUMA 560, and one humanoid
frame (all link poses + anchor update). Peers (pinocchio, Robotics Toolbox) are timed
on the same work when installed, with the ratio of their time to ours.

- ``fk_single_us``: ``model.fk(q)`` for one ``(6,)`` configuration, from Python.
- ``fk_batch_cfg_per_s``: ``model.fk(q)`` on 1 M configurations with ``threads``
  threads (all cores); ``fk_batch_cfg_per_s_1thread`` the same on one thread.
- ``*_cpu``: the same figures from this thread's CPU time instead of wall time (what
  they would be on an otherwise idle core; the machine may be shared).
"""

from __future__ import annotations

import importlib.util
import time
from typing import Any

import numpy as np

from robotsim.bench.timing import median_time
from robotsim.kinematics.floating import AnchoredState
from robotsim.kinematics.threads import default_threads
from robotsim.model import load_robot

__all__ = ["run"]


def run(quick: bool = False) -> dict[str, Any]:
    puma = load_robot("puma560")
    rng = np.random.default_rng(0)
    n = 100_000 if quick else 1_000_000
    q = rng.uniform(puma.lower, puma.upper, size=(n, 6))
    threads = default_threads()
    puma.fk(q[:8])
    t_batch, t_batch1, c_batch1 = [], [], []
    cpu = time.thread_time
    for _ in range(3 if quick else 7):  # interleaved, so machine load hits both alike
        t_batch.append(median_time(lambda: puma.fk(q, threads=threads), repeats=1, warmup=0))
        t_batch1.append(median_time(lambda: puma.fk(q, threads=1), repeats=1, warmup=0))
        c_batch1.append(median_time(lambda: puma.fk(q, threads=1), 1, 0, clock=cpu))
    q1 = q[0].copy()
    inner = 200 if quick else 2000
    t_single = median_time(lambda: puma.fk(q1), repeats=7, inner=inner)
    c_single = median_time(lambda: puma.fk(q1), repeats=7, inner=inner, clock=cpu)
    out: dict[str, Any] = {
        "fk_batch_n": n,
        "fk_batch_cfg_per_s": n / float(np.median(t_batch)),
        "fk_batch_cfg_per_s_1thread": n / float(np.median(t_batch1)),
        "fk_batch_cfg_per_s_1thread_cpu": n / float(np.median(c_batch1)),
        "fk_single_us": t_single * 1e6,
        "fk_single_us_cpu": c_single * 1e6,
        "threads": threads,
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
    out.update(_dynamics(puma, q[: 10_000 if quick else 100_000], quick))
    out["peers"] = _peers(q, quick)
    _ratios(out)
    return out


def _ratios(out: dict[str, Any]) -> None:
    """Each peer's figures divided by ours (``> 1``: we are faster)."""
    for peer in out["peers"].values():
        if not isinstance(peer, dict):
            continue
        if "fk_single_us_ours_interleaved" in peer:
            peer["fk_single_ours_over_theirs"] = (
                peer["fk_single_us_ours_interleaved"] / peer["fk_single_us"]
            )
        for key in ("fk_single_us_ets_eval", "fk_single_us_dh_model"):
            if key in peer:
                peer[f"{key}_over_ours"] = peer[key] / out["fk_single_us"]
        if "fk_batch_cfg_per_s" in peer:
            peer["ours_batch_over_theirs"] = out["fk_batch_cfg_per_s"] / peer["fk_batch_cfg_per_s"]


def _dynamics(puma: Any, q: np.ndarray, quick: bool) -> dict[str, Any]:
    """Batched inverse dynamics and mass matrices of the PUMA 560 (our NumPy RNEA)."""
    qd = np.full_like(q, 0.5)
    t_id = median_time(lambda: puma.inverse_dynamics(q, qd, qd), repeats=3 if quick else 5)
    qm = q[: len(q) // 10]
    t_m = median_time(lambda: puma.mass_matrix(qm), repeats=3 if quick else 5)
    return {"id_batch_cfg_per_s": len(q) / t_id, "mass_matrix_batch_cfg_per_s": len(qm) / t_m}


def _peers(q: np.ndarray, quick: bool) -> dict[str, Any]:
    """Peer libraries on the same PUMA 560 work, with their largest deviation from ours."""
    peers: dict[str, Any] = {}
    puma = load_robot("puma560")
    if importlib.util.find_spec("pinocchio") is not None:
        peers["pinocchio"] = _pinocchio(puma, q[: 20_000 if quick else 200_000])
    if importlib.util.find_spec("roboticstoolbox") is not None:
        peers["roboticstoolbox"] = _rtb(puma, q[: 20_000 if quick else 200_000])
    if not peers:
        peers["note"] = "neither pinocchio (pin) nor roboticstoolbox-python is installed"
    return peers


def _pinocchio(puma: Any, q: np.ndarray) -> dict[str, Any]:
    import pinocchio as pin

    from robotsim.model.urdf import to_urdf_string

    model = pin.buildModelFromXML(to_urdf_string(puma))
    data = model.createData()
    fid = model.getFrameId("tool")

    def loop() -> list[np.ndarray]:
        out = []
        for row in q:
            pin.framesForwardKinematics(model, data, row)
            out.append(data.oMf[fid].homogeneous)
        return out

    t = median_time(loop, repeats=3)
    q0 = q[0].copy()
    theirs, ours, ratios = [], [], []
    for _ in range(15):  # interleaved with ours, so machine load hits both alike
        a = median_time(lambda: pin.framesForwardKinematics(model, data, q0), repeats=1,
                        inner=2000, clock=time.thread_time)  # fmt: skip
        b = median_time(lambda: puma.fk(q0), repeats=1, inner=2000, clock=time.thread_time)
        theirs.append(a)
        ours.append(b)
        ratios.append(b / a)
    err = np.max(np.abs(np.array(loop()[:1000]) - puma.fk(q[:1000])))
    return {
        "fk_batch_cfg_per_s": len(q) / t,
        "fk_single_us": float(np.median(theirs)) * 1e6,
        "fk_single_us_ours_interleaved": float(np.median(ours)) * 1e6,
        "fk_single_ours_over_theirs_paired": float(np.median(ratios)),
        "max_abs_diff_vs_ours": float(err),
        "method": "framesForwardKinematics per call (result left in data), CPU time, "
        "interleaved with ours in 15 rounds (paired: median of the per-round ratios); "
        "batch: a python loop reading oMf (model from our URDF export)",
    }


def _rtb(puma: Any, q: np.ndarray) -> dict[str, Any]:
    import roboticstoolbox as rtb

    robot = rtb.models.DH.Puma560()
    ets = robot.ets()
    t = median_time(lambda: ets.fkine(q), repeats=3)
    t1 = median_time(lambda: robot.fkine(q[0]), repeats=5, inner=200)
    t1e = median_time(lambda: ets.eval(q[0]), repeats=5, inner=2000)
    err = np.max(np.abs(np.array([ets.eval(row) for row in q[:1000]]) - puma.fk(q[:1000])))
    return {
        "fk_batch_cfg_per_s": len(q) / t,
        "fk_single_us_dh_model": t1 * 1e6,
        "fk_single_us_ets_eval": t1e * 1e6,
        "max_abs_diff_vs_ours": float(err),
        "method": "ETS.fkine on the (N, 6) batch (C-accelerated); DHRobot.fkine for one",
    }
