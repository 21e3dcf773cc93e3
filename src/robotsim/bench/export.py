"""``robotsim bench export``: how fast runs leave robotsim, and how exactly.

One run of the shipped ``soccer_obstacles`` scenario (physics, 60 s simulated; 10 s
with ``--quick``) is recorded into a fresh run store, then:

- ``mcap_export_rtf``, ``rerun_export_rtf``: simulated seconds exported per wall
  second (reading the run store, forward kinematics, encoding, writing; median of
  repeats); ``..._per_cpu_s``: per CPU second of this process (all its threads), what
  the export costs on an otherwise idle machine (see ``load_average_1min``);
- ``mcap_bytes_per_sim_min``: the MCAP file's size per simulated minute (the run
  records no sensors);
- ``mp4_fps``: 640 x 480 frames rendered (MuJoCo, EGL) and encoded (H.264) per wall
  second, the renderer's one-off set-up (compiling the scene, the GL context) left
  out and reported as ``mp4_setup_s``; ``mp4_cpu_ms_per_frame``: CPU time of this
  process per frame (software rendering, encoding);
- ``html_first_frame_s``: from navigation start to the first drawn frame of the HTML
  replay in headless Chromium (Debian's ``/usr/bin/chromium``, software WebGL);
  ``html_network_requests``: requests the page made besides its own file;
- ``gym_steps_per_s``: steps per wall second of ``robotsim.gym.make("soccer_obstacles")``
  (the soccer robot in its MuJoCo world, one process, seeded random actions, resets
  included); ``gym_steps_per_cpu_s`` per CPU second;
- ``replay_max_pose_error_m``: the largest difference (m, any element of any link's
  world pose, at every sample) between the run store's poses and those read back from
  the MCAP file (``mcap`` reader, transform tree composed), the Rerun file (Rerun's own
  reader) and the HTML page (the matrices it draws, at 20 sample times); each also
  on its own (``..._mcap``, ``..._rerun``, ``..._html``).
"""

from __future__ import annotations

import contextlib
import io
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["run"]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def _record(folder: Path, duration: float) -> Path:
    from robotsim.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        rc = main(["run", "soccer_obstacles", "--out", str(folder), "--duration", str(duration)])
    if rc != 0:
        raise RuntimeError("bench export: recording the soccer run failed")
    return folder / "runs.sqlite"


def _median_wall(fn: Any, repeats: int) -> tuple[float, float]:
    """Median wall and CPU (this process, all its threads) seconds of ``fn()``."""
    fn()  # warm-up: imports, caches
    walls, cpus = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def _mcap_poses(path: Path) -> dict[str, np.ndarray]:
    """Every frame's world pose at every /tf message naming it (float64)."""
    from mcap.reader import make_reader
    from mcap_protobuf.decoder import DecoderFactory

    from robotsim.spatial import make_T, quat_to_R

    out: dict[str, list[np.ndarray]] = {}
    with path.open("rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        for _, _, _, msg in reader.iter_decoded_messages(topics=["/tf"]):
            local: dict[str, np.ndarray] = {}
            for tf in msg.transforms:
                r, p = tf.rotation, tf.translation
                T = make_T(quat_to_R([r.w, r.x, r.y, r.z]), [p.x, p.y, p.z])
                parent = local.get(tf.parent_frame_id, np.eye(4))
                local[tf.child_frame_id] = parent @ T
            for name, T in local.items():
                out.setdefault(name, []).append(T)
    return {k: np.stack(v) for k, v in out.items()}


def _rerun_poses(path: Path) -> dict[str, np.ndarray]:
    """Every entity's Transform3D over time (float32 read back as float64)."""
    import pyarrow as pa
    from rerun.chunk import RrdReader

    from robotsim.spatial import make_T, quat_to_R

    cols: dict[str, dict[str, list[Any]]] = {}
    for chunk in RrdReader(path).stream().to_chunks():
        batch = chunk.to_record_batch()
        names = batch.schema.names
        if "Transform3D:translation" not in names or "sim_time" not in names:
            continue
        ent = cols.setdefault(str(chunk.entity_path), {"t": [], "p": [], "q": []})
        ent["t"] += batch.column("sim_time").cast(pa.int64()).to_pylist()
        ent["p"] += [v[0] for v in batch.column("Transform3D:translation").to_pylist()]
        ent["q"] += [v[0] for v in batch.column("Transform3D:quaternion").to_pylist()]
    out = {}
    for ent, c in cols.items():
        order = np.argsort(c["t"], kind="stable")
        q = np.asarray(c["q"], float)[order]
        out[ent] = make_T(
            quat_to_R(np.column_stack([q[:, 3], q[:, :3]])), np.asarray(c["p"], float)[order]
        )
    return out


def _html(path: Path, replay: Any) -> tuple[float | None, int | None, float | None, str]:
    """(first frame s, other requests, pose error m, note) from headless Chromium."""
    if not CHROMIUM.exists():
        return None, None, None, "no /usr/bin/chromium"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            firsts, requests = [], 0
            err = 0.0
            for k in range(3):
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                seen: list[str] = []
                page.on("request", lambda r, seen=seen: seen.append(r.url))
                url = path.resolve().as_uri()
                page.goto(url)
                deadline = time.monotonic() + 120
                while not page.evaluate("() => Boolean(window.robotsim && window.robotsim.ready)"):
                    if time.monotonic() > deadline:
                        return None, None, None, "the page never drew a frame"
                    page.wait_for_timeout(20)
                firsts.append(page.evaluate("() => window.robotsim.firstFrameMs") / 1000.0)
                requests = max(requests, len([u for u in seen if u != url]))
                if k == 0:
                    for tr in replay.tracks:
                        for i in np.linspace(0, len(tr.t) - 1, 20).round().astype(int):
                            page.evaluate(f"() => window.robotsim.setTime({float(tr.t[i])!r})")
                            poses = page.evaluate("() => window.robotsim.poses()")
                            for j, fr in enumerate(tr.frames):
                                got = np.asarray(poses[fr.name])
                                err = max(err, float(np.abs(got - tr.T_world[i, j]).max()))
                page.close()
        finally:
            browser.close()
    return statistics.median(firsts), requests, err, "headless Chromium, software WebGL"


def _gym(quick: bool) -> dict[str, Any]:
    import robotsim.gym as rg

    env = rg.make("soccer_obstacles")
    rng = np.random.default_rng(0)
    n = 500 if quick else 3000
    actions = rng.uniform(-1, 1, (n, *env.action_space.shape)).astype(np.float32)
    walls, cpus = [], []
    for _ in range(1 if quick else 3):
        env.reset(seed=0)
        t0, c0 = time.perf_counter(), time.process_time()
        for a in actions:
            _, _, terminated, truncated, _ = env.step(a)
            if terminated or truncated:
                env.reset()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    env.close()
    return {
        "gym_steps_per_s": n / statistics.median(walls),
        "gym_steps_per_cpu_s": n / statistics.median(cpus),
    }


def _pose_error(replay: Any, poses: dict[str, np.ndarray], key: Any) -> float:
    err = 0.0
    for tr in replay.tracks:
        if not tr.moving:
            continue
        for j, fr in enumerate(tr.frames):
            got = poses[key(fr.name)]
            err = max(err, float(np.abs(got - tr.T_world[:, j]).max()))
    return err


def run(quick: bool = False) -> dict[str, Any]:
    from robotsim.export import export_file, load_replay
    from robotsim.export.rerun_file import entity_path
    from robotsim.export.video import ReplayRenderer, frame_times, write_video
    from robotsim.recording import RunStore

    duration = 10.0 if quick else 60.0
    repeats = 3 if quick else 5
    out: dict[str, Any] = {"export_run": f"soccer_obstacles, {duration:g} s simulated, physics"}
    with tempfile.TemporaryDirectory(prefix="robotsim-bench-export-") as tmp:
        folder = Path(tmp)
        db = _record(folder / "run", duration)
        with RunStore(db) as store:
            rid = store.run("last").id
            mcap = folder / "run.mcap"
            t, c = _median_wall(lambda: export_file(store, rid, "mcap", mcap), repeats)
            out["mcap_export_rtf"] = duration / t
            out["mcap_export_rtf_per_cpu_s"] = duration / c
            out["mcap_bytes_per_sim_min"] = mcap.stat().st_size / (duration / 60.0)
            rrd = folder / "run.rrd"
            t, c = _median_wall(lambda: export_file(store, rid, "rerun", rrd), repeats)
            out["rerun_export_rtf"] = duration / t
            out["rerun_export_rtf_per_cpu_s"] = duration / c
            replay = load_replay(store, rid)
            out["replay_max_pose_error_m_mcap"] = _pose_error(
                replay, _mcap_poses(mcap), lambda n: n
            )
            out["replay_max_pose_error_m_rerun"] = _pose_error(
                replay, _rerun_poses(rrd), lambda n: "/" + entity_path(n)
            )
            # video: 640 x 480, the run at 6x so the frames span all of it
            speed = duration / 10.0
            frames = len(frame_times(replay, 30.0, speed))
            t0 = time.perf_counter()
            ReplayRenderer(replay, 640, 480).close()
            out["mp4_setup_s"] = time.perf_counter() - t0
            walls, cpus = [], []
            for _ in range(1 if quick else 3):
                t0, c0 = time.perf_counter(), time.process_time()
                write_video(replay, folder / "run.mp4", "mp4", 640, 480, 30.0, "studio", speed)
                walls.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
            out["mp4_fps"] = frames / max(1e-9, statistics.median(walls) - out["mp4_setup_s"])
            out["mp4_cpu_ms_per_frame"] = 1000.0 * statistics.median(cpus) / frames
            out["mp4_frames"] = frames
            page = export_file(store, rid, "html", folder / "run.html")
            out["html_bytes"] = page.stat().st_size
            first, requests, err, note = _html(page, replay)
            out["html_first_frame_s"] = first
            out["html_network_requests"] = requests
            out["replay_max_pose_error_m_html"] = err
            out["html_browser"] = note
    out.update(_gym(quick))
    errors = [out[k] for k in out if k.startswith("replay_max_pose_error_m_")]
    out["replay_max_pose_error_m"] = None if None in errors else max(errors)
    import os

    out["load_average_1min"] = os.getloadavg()[0]
    json.dumps(out, allow_nan=False)
    return out
