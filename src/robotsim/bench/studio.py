"""``robotsim bench studio``: how many scene updates per second the studio can send.

One update = new configurations for three robots (the humanoid, the dual arm with
hands and the PUMA when the library has them), their link poses from the kinematics
and one atomic batch of pose messages to the viser server. No browser is attached: this
is the server's cost per frame, which bounds the live update rate (the target is >= 30
updates/s with three robots).
"""

from __future__ import annotations

import socket
from typing import Any

import numpy as np

from robotsim.bench.timing import median_time
from robotsim.model import library_names

__all__ = ["run"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(quick: bool = False) -> dict[str, Any]:
    from robotsim.studio import Studio

    have = library_names()
    names = [n for n in ("humanoid17", "dual_arm_hands", "puma560") if n in have]
    while len(names) < 3:
        names.append("puma560")
    studio = Studio(port=_free_port())
    try:
        views = [studio.add_robot(n) for n in names]
        rng = np.random.default_rng(0)
        configs = []
        for v in views:
            lo = np.where(np.isfinite(v.model.lower), v.model.lower, -np.pi)
            hi = np.where(np.isfinite(v.model.upper), v.model.upper, np.pi)
            configs.append(rng.uniform(lo, hi, size=(64, v.model.nq)))
        k = [0]

        def update() -> None:
            i = k[0] % 64
            for v, qs in zip(views, configs):
                v.set_q(qs[i])
            studio.push()
            k[0] += 1

        inner = 20 if quick else 100
        t = median_time(update, repeats=3 if quick else 7, inner=inner)
        links = sum(len(v.model.links) for v in views)
    finally:
        studio.stop()
    return {
        "scene_updates_per_s": 1.0 / t,
        "scene_update_ms": t * 1e3,
        "robots": names,
        "links_per_update": links,
        "note": "server side, no browser attached",
    }
