"""``robotsim export RUN --format html``: one self-contained page that replays the run
in 3D in any browser, with no server and no network request.

The page holds the run as JSON (poses base64-encoded float64, exactly as recorded;
shapes as their parameters, meshes as float32 vertices and uint32 faces; the signals
for the plots, at most :data:`PLOT_POINTS` points each) and the player, a few hundred
lines of JavaScript of ours (``player.js``: WebGL, orbit camera, play/pause/scrub,
signal plots with a time cursor and event marks). Its Content-Security-Policy allows
no fetch, no external script, style, font or image: the page cannot reach the network.
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.export.camera import studio_view
from robotsim.export.replay import Replay
from robotsim.recording.scene import geometry_doc

__all__ = ["PLOT_POINTS", "page_data", "write_html"]

#: Points a plotted signal keeps at most (every k-th sample beyond it).
PLOT_POINTS = 2000
FOVY_DEG = 45.0

CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; connect-src 'none'; font-src 'none'; base-uri 'none'; form-action 'none'"
)


def _b64(a: np.ndarray, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(a, dtype=dtype).tobytes()).decode("ascii")


def _shape_key(doc: dict[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True, allow_nan=False)


def page_data(replay: Replay) -> dict[str, Any]:
    """What the page's player reads (see the module doc)."""
    from robotsim.export.meshes import triangles
    from robotsim.model.geometry import Mesh

    replay.require_scene("an HTML replay")
    shapes: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    frames = []
    tracks = []
    for ti, tr in enumerate(replay.tracks):
        pose = np.empty((len(tr.t), len(tr.frames), 7))
        pose[..., :3] = tr.T_world[..., :3, 3]
        from robotsim.spatial import R_to_quat

        pose[..., 3:] = R_to_quat(tr.T_world[..., :3, :3])
        tracks.append(
            {
                "name": tr.name,
                "t": _b64(tr.t, "<f8"),
                "pose": _b64(pose, "<f8"),
                "frames": len(tr.frames),
            }
        )
        for fi, f in enumerate(tr.frames):
            visuals = []
            for v in f.visuals:
                doc = geometry_doc(v.geometry)
                key = _shape_key(doc)
                if key not in index:
                    index[key] = len(shapes)
                    if isinstance(v.geometry, Mesh):
                        verts, faces = triangles(v.geometry)
                        doc = {
                            "type": "mesh",
                            "vertices": _b64(verts, "<f4"),
                            "faces": _b64(faces, "<u4"),
                        }
                    shapes.append(doc)
                visuals.append(
                    {
                        "shape": index[key],
                        "m": np.asarray(v.T_frame_shape).T.reshape(-1).tolist(),  # column-major
                        "rgba": [float(c) for c in v.rgba],
                    }
                )
            frames.append({"name": f.name, "track": ti, "index": fi, "visuals": visuals})
    t0, t1 = replay.time_span()
    eye, target = studio_view(replay.view, math.radians(FOVY_DEG))
    return {
        "title": f"run {replay.info.id}: {replay.info.scenario}",
        "t0": t0,
        "t1": max(t1, t0 + 1e-6),
        "shapes": shapes,
        "frames": frames,
        "tracks": tracks,
        "ground": _ground(replay),
        "camera": {"eye": eye.tolist(), "target": target.tolist(), "fovy": math.radians(FOVY_DEG)},
        "plots": _plots(replay),
        "events": [
            {"t": float(e["t"]), "type": str(e["type"]), "robot": e.get("robot")}
            for e in replay.events
        ],
        "intervals": _intervals(replay),
    }


def _intervals(replay: Replay) -> list[dict[str, Any]]:
    """Collision intervals (``collision`` events whose data give their ``end``), shaded
    in the plot."""
    out = []
    for e in replay.events:
        data = e.get("data") or {}
        end = data.get("end") if isinstance(data, dict) else None
        if e["type"] == "collision" and isinstance(end, (int, float)) and math.isfinite(end):
            out.append({"start": float(e["t"]), "end": float(end), "robot": e.get("robot")})
    return out


def _ground(replay: Replay) -> dict[str, Any] | None:
    """The ground to draw: its size, or three times the framed box for an unbounded one."""
    g = replay.ground
    if g is None:
        return None
    size = g.get("size")
    if not size:
        lo, hi = replay.view
        span = 3.0 * max(2.0, float(np.max(hi[:2] - lo[:2])))
        size = [span, span]
    return {"size": [float(v) for v in size], "rgba": list(g.get("rgba") or (0.8, 0.8, 0.8, 1))}


def _plots(replay: Replay) -> list[dict[str, Any]]:
    """Every recorded signal, thinned to :data:`PLOT_POINTS`; the ones shown first: the
    distance curves if the run has any, else the first robot's first three signals
    (its response: x, y, heading for a mobile run)."""
    out = []
    for group, tab in replay.signals.items():
        for j, name in enumerate(tab.names):
            col = tab.values[:, j]
            ok = ~np.isnan(col)
            if not ok.any():
                continue
            t, v = tab.t[ok], col[ok]
            step = max(1, math.ceil(len(t) / PLOT_POINTS))
            out.append(
                {
                    "group": group,
                    "name": name,
                    "t": _b64(t[::step], "<f4"),
                    "v": _b64(v[::step], "<f4"),
                    "on": False,
                }
            )
    shown = [p for p in out if "distance" in p["name"]]
    if not shown and out:
        first = out[0]["group"]
        shown = [p for p in out if p["group"] == first][:3]
    for p in shown:
        p["on"] = True
    return out


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
html, body {{ margin: 0; height: 100%; font: 13px system-ui, sans-serif; color: #222; }}
body {{ display: flex; flex-direction: column; }}
#main {{ flex: 1; display: flex; min-height: 0; }}
#view {{ flex: 1; min-width: 0; display: block; background: #eef0f2; }}
#side {{ width: 36%; min-width: 260px; display: flex; flex-direction: column;
  border-left: 1px solid #ccc; }}
#signals {{ height: 8.5em; margin: 4px; }}
#plot {{ flex: 1; min-height: 0; width: 100%; }}
#bar {{ display: flex; gap: 8px; align-items: center; padding: 6px 8px;
  border-top: 1px solid #ccc; }}
#scrub {{ flex: 1; }}
#time {{ font-variant-numeric: tabular-nums; min-width: 7em; }}
#nogl {{ display: none; position: absolute; top: 40%; left: 10%; color: #a00; }}
h1 {{ font-size: 13px; margin: 4px 8px; font-weight: 600; }}
</style></head>
<body>
<h1>{title}</h1>
<div id="main"><canvas id="view"></canvas>
<div id="side"><select id="signals" multiple aria-label="signals to plot"></select>
<canvas id="plot"></canvas></div></div>
<div id="nogl">This browser has no WebGL: the 3D view is off; the plots still work.</div>
<div id="bar"><button id="play">Play</button>
<input id="scrub" type="range" min="0" max="10000" value="0" aria-label="time">
<span id="time">t = 0.00 s</span>
<select id="speed" aria-label="speed"><option value="0.25">0.25x</option>
<option value="0.5">0.5x</option><option value="1" selected>1x</option>
<option value="2">2x</option><option value="4">4x</option><option value="10">10x</option>
</select></div>
<script id="robotsim-data" type="application/json">{data}</script>
<script>{player}</script>
</body></html>
"""


def write_html(replay: Replay, path: str | os.PathLike[str]) -> Path:
    """Write the replay's self-contained HTML page to ``path``."""
    data = json.dumps(page_data(replay), allow_nan=False, separators=(",", ":"))
    # inside <script>, "</" could end the element: JSON allows escaping the slash
    data = data.replace("</", "<\\/")
    player = resources.files("robotsim.export").joinpath("player.js").read_text("utf-8")
    title = html.escape(f"robotsim run {replay.info.id}: {replay.info.scenario}")
    page = PAGE.format(csp=CSP, title=title, data=data, player=player)
    path = Path(path)
    path.write_text(page, encoding="utf-8")
    return path
