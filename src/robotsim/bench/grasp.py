"""Grasp benchmark: success rate and trials per second on a generated object set.

The set (made here with trimesh, written to a temporary folder as mesh files, so the
meshes go through the same loaders and convex decomposition as a user's): boxes of three
aspect ratios, two cylinders, a torus-like ring, a thin plate, an L-shaped part, a random
convex blob and a non-convex (lumpy) blob, all a few centimetres across.

Transfer: the hand-to-hand transfer planned from each object's geometry (``script:
planned``, :mod:`robotsim.grasp.transfer`) with the object where the shipped scenario's
ball rests (and four more of the ball's size), the share whose transfer succeeds in each
mode (the object ends held by the receiving hand: 2 s alone, slip <= 1 cm, lifted >= 0.1
m), and per object the reason of each failure (it names the phase). In MuJoCo the
figure ``transfer_physics_success_rate`` holds the object by finger contacts and friction
alone; ``transfer_physics_assisted_success_rate`` adds the weld assist.

Hands: the three-finger hand of the built-in ``dual_arm_hands`` always; the Franka Panda
when its URDF is found (``$ROBOTSIM_PANDA_URDF``, else ``../shared/fixtures`` next to a
checkout). Figures: per hand the success rate over every trial and per object, the mean
plan time, and ``grasp_trials_per_s`` (plan + physics, the CPU time of this one thread,
what one core does; the wall-clock rate and the load average beside it, the machine may
be shared).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["make_objects", "run"]


def _l_part() -> Any:
    import trimesh

    outline = np.array([[0, 0], [0.06, 0], [0.06, 0.025], [0.025, 0.025], [0.025, 0.06], [0, 0.06]])
    tri = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 5], [3, 4, 5]])
    m = trimesh.creation.extrude_triangulation(outline, tri, height=0.025)
    m.apply_translation(-m.bounds.mean(axis=0))
    return m


def _lumpy(rng: np.random.Generator, radius: float, bumps: float) -> Any:
    import trimesh

    s = trimesh.creation.icosphere(subdivisions=3, radius=1.0)
    d = np.asarray(s.vertices)
    a = rng.uniform(1, 3, 3)
    ph = rng.uniform(0, 2 * np.pi, 3)
    r = radius * (1 + bumps * np.sin(a[0] * d[:, 0] + ph[0]) * np.cos(a[1] * d[:, 1] + ph[1])
                  + 0.5 * bumps * np.sin(a[2] * d[:, 2] + ph[2]))  # fmt: skip
    return trimesh.Trimesh(d * r[:, None], s.faces)


def make_objects(folder: str | Path, seed: int = 7) -> dict[str, str]:
    """Write the benchmark set into ``folder``; ``{name: --object text or file}``."""
    import trimesh

    rng = np.random.default_rng(seed)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "ring.obj": trimesh.creation.torus(0.03, 0.009, major_sections=32, minor_sections=12),
        "plate.stl": trimesh.creation.box(extents=(0.09, 0.05, 0.012)),
        "l_part.obj": _l_part(),
        "convex_blob.stl": trimesh.convex.convex_hull(
            rng.normal(size=(40, 3)) * [0.02, 0.016, 0.013]
        ),
        "lumpy_blob.obj": _lumpy(rng, 0.022, 0.3),
    }
    for name, mesh in files.items():
        mesh.export(out / name)
    shapes = {
        "brick": "box:0.05,0.03,0.07",
        "cube": "box:0.04,0.04,0.04",
        "bar": "box:0.08,0.025,0.025",
        "can": "cylinder:0.025,0.09",
        "rod": "cylinder:0.015,0.12",
    }
    return {**shapes, **{Path(n).stem: str(out / n) for n in files}}


def _panda() -> Path | None:
    env = os.environ.get("ROBOTSIM_PANDA_URDF")
    if env:
        return Path(env) if Path(env).is_file() else None
    here = Path(__file__).resolve()
    for up in [Path.cwd(), *Path.cwd().parents, *here.parents]:
        p = up.parent / "shared" / "fixtures" / "urdf" / "franka_panda" / "panda.urdf"
        if p.is_file():
            return p
    return None


def _hand_figures(
    robot: str, hand: str | None, objects: dict[str, str], trials: int
) -> dict[str, Any]:
    from robotsim.grasp.run import grasp_trials, prepare

    per: dict[str, float] = {}
    reasons: dict[str, int] = {}
    n = ok = 0
    plan = []
    cpu = wall = setup = 0.0
    for name, text in objects.items():
        w0 = time.perf_counter()
        run = prepare(robot, text, hand=hand)
        setup += time.perf_counter() - w0
        c0, w0 = time.thread_time(), time.perf_counter()
        summary, _ = grasp_trials(run, trials=trials, seed=11)
        cpu += time.thread_time() - c0
        wall += time.perf_counter() - w0
        # the scene's set-up (load, compile, decomposition, reach map) is not a trial
        per[name] = summary["success_rate"]
        n += summary["trials"]
        ok += summary["successes"]
        plan += [r["plan_s"] for r in summary["results"]]
        for k, v in summary["reasons"].items():
            reasons[k] = reasons.get(k, 0) + v
    return {
        "success_rate": ok / n,
        "trials": n,
        "per_object": per,
        "mean_plan_s": float(np.mean(plan)),
        "trials_per_s": n / cpu if cpu > 0 else None,
        "trials_per_s_wall": n / wall if wall > 0 else None,
        "setup_s_wall": setup,
        "failures": reasons,
    }


def run(quick: bool = False) -> dict[str, Any]:
    trials = 1 if quick else 5
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="robotsim-grasp-bench-") as tmp:
        objects = make_objects(tmp)
        if quick:
            objects = {k: objects[k] for k in ("brick", "can", "ring")}
        hands = {"three_finger": ("dual_arm_hands", "L_hand")}
        panda = _panda()
        if panda is not None:
            hands["panda"] = (str(panda), None)
        else:
            out["panda"] = None
            out["panda_note"] = "Panda URDF not found (set ROBOTSIM_PANDA_URDF)"
        tps = []
        for key, (robot, hand) in hands.items():
            fig = _hand_figures(robot, hand, objects, trials)
            out[key] = fig
            out[f"{key}_success_rate"] = fig["success_rate"]
            if fig["trials_per_s"]:
                tps.append((fig["trials"], fig["trials"] / fig["trials_per_s"]))
        # the hand-to-hand transfer of the same set, planned from each object, and a few
        # more objects of the ball's size
        extra = {"cube_4.5": "box:0.045,0.045,0.045", "ellipsoid": "ellipsoid:0.03,0.025,0.028",
                 "capsule": "capsule:0.022,0.03", "short_can": "cylinder:0.025,0.06"}  # fmt: skip
        # --quick: one object (a planned transfer is ~6 CPU s in kinematic mode alone)
        chosen = {"brick": objects["brick"]} if quick else {**objects, **extra}
        modes = ("kinematic",) if quick else ("kinematic", "physics", "physics_assisted")
        out.update(transfer_figures(chosen, modes))
    n = sum(t for t, _ in tps)
    s = sum(c for _, c in tps)
    out["grasp_trials_per_s"] = n / s if s > 0 else None
    out["trials_per_object"] = trials
    out["load_average_1min"] = os.getloadavg()[0]
    return out


def transfer_figures(objects: dict[str, str], modes: tuple[str, ...]) -> dict[str, Any]:
    """The planned hand-to-hand transfer of each object resting on its lowest point where
    the shipped scenario's ball rests: per mode the share whose transfer succeeds (it
    ends held by the receiving hand: ``robotsim.hands.transfer``), per object, and the
    reason of each failure (the phase). ``physics``: MuJoCo, the object held by finger
    contacts and friction alone (a planned transfer's default); ``physics_assisted``:
    the same with the weld assist (``physics.weld_assist: true``, docs/hands.md)."""
    from robotsim.errors import ScenarioError
    from robotsim.grasp.transfer import run_planned_transfer
    from robotsim.hands.scenario_spec import hand_scenario_from_data
    from robotsim.objects import load_object, parse_object_arg
    from robotsim.shipped import shipped_dir
    from robotsim.validation import read_yaml_file

    base = read_yaml_file(shipped_dir("scenario") / "hand_ball_transfer.yaml", ScenarioError)
    ball = base.pop("ball")
    base["script"] = "planned"
    physics = {k: v for k, v in base.get("physics", {}).items() if k != "weld_assist"}
    table_top = ball["position"][2] - ball["radius"]
    out: dict[str, Any] = {}
    for mode in modes:
        per: dict[str, bool] = {}
        why: dict[str, str] = {}
        for name, text in objects.items():
            spec = parse_object_arg(text)
            lowest = float(load_object(spec).bounds[0, 2])
            obj = spec.model_dump(exclude_none=True)
            obj["position"] = [ball["position"][0], ball["position"][1], table_top - lowest]
            assisted = mode == "physics_assisted"
            data = {**base, "object": obj, "physics": {**physics, "weld_assist": assisted}}
            s, scene = hand_scenario_from_data(data, "bench-transfer.yaml")
            summary = run_planned_transfer(s, scene, "physics" if assisted else mode)
            verdict = summary["transfer"]
            if mode != "kinematic":  # the options the figure was measured with
                out[f"transfer_{mode}_options"] = summary["options"]
            per[name] = bool(verdict["success"])
            if not per[name]:
                why[name] = verdict["reason"]
        out[f"transfer_{mode}_success_rate"] = sum(per.values()) / len(per)
        out[f"transfer_{mode}"] = per
        out[f"transfer_{mode}_failures"] = why
    return out
