"""Infer a :class:`Profile` from a model's structure and geometry (names are hints only).

At the zero pose (root at the origin, z up):

- *endpoints* are the links right after the last movable joint of each branch; the tree
  is cut at *branch links* (a link below which two or more endpoints hang) into
  *segments* of movable joints;
- a *gripper* is a branch link reached by an arm-like segment (>= 2 joints) from which
  two or more short segments (<= 4 joints, each reaching less than half as far as the
  segment above) hang: the fingers; the fingertip is the finger geometry farthest out;
- *wheels*, their passive *rollers* and the drive: :mod:`robotsim.profile.wheels`
  (a driven wheel is a spinning joint whose child geometry is a disc touching the
  ground, or whose child carries three or more rollers round its axle; two parallel
  wheels make a differential drive, three or four with non-parallel axles an
  omnidirectional one);
- a *leg* is a terminal segment of >= 3 joints whose foot geometry reaches the robot's
  lowest point, with the hip above it; the foot is the child of the last joint whose
  subtree holds the whole sole; later joints are toes. The sole polygon is the convex
  hull of the foot's collision geometry within ``SOLE_TOL`` (0.5 mm) of its lowest point; the sole
  frame is a model frame on the foot lying on that plane if there is one, else a frame
  ``<foot>_sole`` added at the polygon's centroid, axes parallel to the base's;
- a *head* is a limb that sits on the body's middle, on top: its first joint lies on
  the plane the body is mirrored about (sideways within 15 % of the half width of the
  mirrored limbs or hips), at the shoulders or above (no lower than the highest
  mirrored limb's start, else the hips, by half that half width), and its geometry
  rises from there; it has no mirror twin and
  ends in no gripper. Only a robot with legs or a mirrored pair of arms has one (a
  single arm standing on its base is an arm);
- an *arm* is any other terminal segment of >= 2 joints (or one ending in a gripper);
  its tool frame is a model frame on the end link (names like tool/tcp/ee/grasp
  preferred), the fingertips' midpoint for a gripper, else the end link itself;
- left/right come from the side (y) a limb lies on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from robotsim.model.robot import RobotModel
from robotsim.profile.shapes import link_points as _link_points
from robotsim.profile.shapes import shape_points
from robotsim.profile.types import Arm, Foot, Gripper, Head, Kind, Leg, Profile, SiteFrame
from robotsim.profile.wheels import (
    casters_below,
    drive_of_wheels,
    find_wheels,
    wheel_inertia_fixes,
)

__all__ = ["SOLE_TOL", "infer_profile", "shape_points"]

SOLE_TOL = 5e-4  # m: geometry this close to a foot's lowest point is sole
_TOOL_HINT = re.compile(r"tool|tcp|ee\b|end_?eff|grasp|flange|gripper", re.I)
_SOLE_HINT = re.compile(r"sole|foot|contact", re.I)


# --------------------------------------------------------------------- geometry
def _hull2d(p: np.ndarray) -> np.ndarray:
    """Convex hull ``(k, 2)`` counter-clockwise (monotone chain)."""
    pts = np.unique(np.round(p, 12), axis=0)
    if len(pts) < 3:
        return pts
    pts = pts[np.lexsort((pts[:, 1], pts[:, 0]))]

    def half(points: Iterable[np.ndarray]) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for q in points:
            while len(out) >= 2:
                a, b = out[-2], out[-1]
                if (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]) > 1e-15:
                    break
                out.pop()
            out.append(q)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


# --------------------------------------------------------------------- structure
class _Tree:
    def __init__(self, model: RobotModel) -> None:
        self.m = model
        self.children: dict[str, list] = {}
        self.parent_joint = {}
        for j in model.joints:
            self.children.setdefault(j.parent, []).append(j)
            self.parent_joint[j.child] = j
        q0 = model.zero()
        T = model.fk_all(q0)
        self.T = {n: T[i] for i, n in enumerate(model.link_names)}

    def subtree(self, link: str) -> list[str]:
        out, stack = [], [link]
        while stack:
            n = stack.pop()
            out.append(n)
            stack.extend(j.child for j in self.children.get(n, []))
        return out

    def movable_below(self, link: str) -> bool:
        return any(j.movable for n in self.subtree(link) for j in self.children.get(n, []))

    def path(self, link: str) -> list:
        """Joints from the root down to ``link``."""
        out = []
        while link in self.parent_joint:
            j = self.parent_joint[link]
            out.append(j)
            link = j.parent
        return out[::-1]

    def points(self, links: Iterable[str]) -> np.ndarray:
        pts = [_link_points(self.m, n, self.T[n]) for n in links]
        pts = [p for p in pts if len(p)]
        return np.vstack(pts) if pts else np.zeros((0, 3))


def _q_joints(joints: Iterable) -> tuple[str, ...]:
    return tuple(j.name for j in joints if j.actuated)


# --------------------------------------------------------------------- main
def infer_profile(model: RobotModel) -> Profile:
    """The profile of ``model`` inferred from its structure and geometry (module doc)."""
    tree = _Tree(model)
    notes: list[str] = []
    all_pts = tree.points(model.link_names)
    zmin = float(all_pts[:, 2].min()) if len(all_pts) else 0.0
    height = float(np.ptp(all_pts[:, 2])) if len(all_pts) else 1.0

    # base link: skip massless roots hanging on one fixed joint (URDF 'world', footprints)
    base = model.root
    while True:
        lk = model.link(base)
        kids = tree.children.get(base, [])
        massless = lk.inertial is None or lk.inertial.mass == 0
        if massless and not lk.collisions and len(kids) == 1 and not kids[0].movable:
            base = kids[0].child
        else:
            break
    T_base = tree.T[base]
    R_base = T_base[:3, :3]

    # mass and CoM
    mass, mc = 0.0, np.zeros(3)
    for n in model.link_names:
        ine = model.link(n).inertial
        if ine is not None and ine.mass > 0:
            mass += ine.mass
            mc += ine.mass * (tree.T[n][:3, :3] @ np.asarray(ine.com) + tree.T[n][:3, 3])
    com = mc / mass if mass > 0 else T_base[:3, 3]

    # wheels (and their passive rollers): profile/wheels.py
    wheels, wheel_links = find_wheels(tree, zmin, height, T_base)
    fixes = wheel_inertia_fixes(model, wheels)
    if fixes:
        notes.append("wheel/roller inertia beyond its mass and size: "
                     + "; ".join(why for _, why in fixes.values())
                     + "; physics uses its geometry's")  # fmt: skip
    drive = drive_of_wheels(wheels)
    if drive is not None and drive.type == "diff":
        axle = min(w.position[2] + w.radius for w in wheels)  # base frame
        lowest = R_base @ np.array([0.0, 0.0, axle]) + T_base[:3, 3]
        drive = replace(drive, casters=casters_below(tree, wheel_links, float(lowest[2])))
    if wheels and drive is None:
        notes.append(f"{len(wheels)} wheel(s) found ({', '.join(w.joint for w in wheels)}) "
                     "but no 2-wheel differential or 3/4-wheel omni layout")  # fmt: skip

    # endpoints and branch links
    endpoints = []
    for n in model.link_names:
        if n in wheel_links:
            continue
        pj = tree.parent_joint.get(n)
        if pj is None or not pj.movable:
            continue
        if not tree.movable_below(n):
            endpoints.append(n)
    paths = {e: tree.path(e) for e in endpoints}
    chain = {e: [j.parent for j in paths[e]] + [e] for e in endpoints}

    def branch_of(link: str) -> str:
        """The deepest link of ``link``'s path shared with the path of an endpoint that
        does not hang below ``link`` (where its limb starts)."""
        mine = [j.parent for j in tree.path(link)] + [link]
        below = set(tree.subtree(link))
        best = 0
        for o in endpoints:
            if o in below:
                continue
            for k, (a, b) in enumerate(zip(mine, chain[o])):
                if a != b:
                    break
                best = max(best, k)
        return mine[best]

    def segment(start: str, end: str) -> list:
        js = tree.path(end)
        names = [j.parent for j in js]
        k = names.index(start) if start in names else 0
        return [j for j in js[k:] if j.movable]

    def reach(start: str, links: Iterable[str]) -> float:
        p = tree.points(links)
        if not len(p):
            p = np.array([tree.T[n][:3, 3] for n in links])
        return float(np.max(np.linalg.norm(p - tree.T[start][:3, 3], axis=1)))

    groups: dict[str, list[str]] = {}
    for e in endpoints:
        groups.setdefault(branch_of(e), []).append(e)

    # grippers: a branch link with >= 2 short terminal segments, reached by an arm
    grippers: list[Gripper] = []
    gripper_of: dict[str, Gripper] = {}
    for b, ends in groups.items():
        if len(ends) < 2 or b == model.root:
            continue
        segs = [segment(b, e) for e in ends]
        if any(len(s) > 4 or not s for s in segs):
            continue
        above = branch_of(b)
        up = segment(above, b)
        if len(up) < 2:
            continue
        finger_reach = max(reach(b, tree.subtree(s[0].child)) for s in segs)
        arm_reach = reach(above, [above, *[j.child for j in up]])
        if finger_reach >= 0.5 * arm_reach:
            continue
        tips = [_fingertip(tree, b, e, f"{b}_tip{i + 1}") for i, e in enumerate(ends)]
        g = Gripper(f"{b}", b, tuple(_q_or_all(s) for s in segs), tuple(tips))
        grippers.append(g)
        gripper_of[b] = g

    # legs and arms from terminal segments (a gripper counts as its arm's end)
    terminal: list[tuple[str, str]] = []  # (start branch link, end link)
    for e in endpoints:
        b = branch_of(e)
        if b in gripper_of:
            continue
        terminal.append((b, e))
    for b in gripper_of:
        terminal.append((branch_of(b), b))

    legs: list[Leg] = []
    feet: list[Foot] = []
    arms: list[Arm] = []
    tol = max(0.01 * height, 2e-3)
    hint_arm = model.kind in ("arm", "dual_arm", "dual-arm")
    leg_candidates = []
    for b, e in terminal:
        seg = segment(b, e)
        if e in gripper_of or hint_arm or len(seg) < 3:
            continue
        pts = tree.points(tree.subtree(e))
        if not len(pts) or pts[:, 2].min() > zmin + tol:
            continue
        if tree.T[seg[0].child][2, 3] < pts[:, 2].min() + 0.3 * height * 0.5:
            continue  # the hip is not above the foot
        leg_candidates.append((b, e, seg))
    if len(leg_candidates) >= 2:
        for _, _, seg in leg_candidates:
            foot_link, ankle_k = _foot_link(tree, seg)
            foot = _foot(tree, model, foot_link, R_base)
            if foot is None:
                continue
            side = _side(tree.T[foot_link][:3, 3] - T_base[:3, 3], R_base)
            name = _unique(side + "_leg", [lg.name for lg in legs])
            fname = _unique(side + "_foot", [f.name for f in feet])
            toes = _q_joints(seg[ankle_k + 1 :])
            feet.append(Foot(fname, foot.link, foot.sole, foot.polygon, toes))
            legs.append(Leg(name, _q_joints(seg[: ankle_k + 1]), fname))
    leg_ends = {e for b, e, _ in leg_candidates} if legs else set()
    limbs = []  # (start branch, end link, segment) of everything not a leg
    for b, e in terminal:
        if e not in leg_ends and segment(b, e):
            limbs.append((b, e, segment(b, e)))
    head_ends = _heads(tree, limbs, [c[2] for c in leg_candidates] if legs else [],
                       T_base, gripper_of)  # fmt: skip
    heads: list[Head] = []
    for _, e, seg in limbs:
        if e in head_ends:
            heads.append(Head(_unique("head", [h.name for h in heads]), _q_joints(seg), e))
            continue
        g = gripper_of.get(e)
        if len(seg) < 2 and g is None:
            continue
        side = _side(tree.T[e][:3, 3] - T_base[:3, 3], R_base)
        name = _unique(side + "_arm", [a.name for a in arms])
        tool = _tool(tree, model, e, g)
        arms.append(Arm(name, _q_joints(seg), tool, g.name if g else None))
    if len(arms) == 1 and arms[0].name.endswith("_arm"):
        arms[0] = Arm("arm", arms[0].joints, arms[0].tool, arms[0].gripper)
    if len(legs) == 1:
        legs, feet = [], []

    if drive is not None:
        kind = Kind.MOBILE_DIFF if drive.type == "diff" else Kind.MOBILE_OMNI
    elif len(legs) >= 2:
        kind = Kind.HUMANOID if len(arms) >= 2 and len(legs) == 2 else Kind.LEGGED
    elif len(arms) == 1:
        kind = Kind.ARM
    elif len(arms) == 2:
        kind = Kind.DUAL_ARM
    else:
        kind = Kind.OTHER
    for loop in model.metadata.get("closed_loops", ()):
        a, b = loop["links"]
        notes.append(f"closed kinematic loop <{loop['kind']}> {a} - {b}: not closed here "
                     "(robotsim models the tree; a gripper on it cannot grasp)")  # fmt: skip
    return Profile(
        robot=model.name,
        kind=kind,
        base_link=base,
        mass=float(mass),
        com=tuple(float(x) for x in com),
        legs=tuple(legs),
        feet=tuple(feet),
        arms=tuple(arms),
        grippers=tuple(grippers),
        heads=tuple(heads),
        wheels=tuple(wheels),
        drive=drive,
        notes=tuple(notes),
    )


# --------------------------------------------------------------------- helpers
def _heads(
    tree: _Tree,
    limbs: list[tuple[str, str, list]],
    legs: list[list],
    T_base: np.ndarray,
    grippers: dict[str, Gripper],
) -> set[str]:
    """The end links of the limbs that are heads (module docs): on the body's middle,
    on top, rising, unpaired. ``limbs``: (start branch, end link, joints) of the
    non-leg limbs; ``legs``: the legs' joints; base frame at the zero pose."""

    def start(seg: list) -> np.ndarray:
        j = seg[0]
        T = tree.T[j.child]
        post = np.asarray(j.post)
        anchor = T[:3, :3] @ (-(post[:3, :3].T @ post[:3, 3])) + T[:3, 3]
        return T_base[:3, :3].T @ (anchor - T_base[:3, 3])  # base frame

    starts = [start(seg) for _, _, seg in limbs]
    hips = [start(seg) for seg in legs]

    def mirrored(i: int) -> int | None:
        a = starts[i]
        for k, b in enumerate(starts):
            tol = 0.1 * max(abs(a[1]), abs(b[1])) + 1e-3
            if k != i and abs(a[1] + b[1]) < tol and np.all(np.abs((a - b)[[0, 2]]) < tol):
                return k
        return None

    pairs = [i for i in range(len(limbs)) if mirrored(i) is not None and abs(starts[i][1]) > 1e-3]
    if not pairs and len(hips) < 2:
        return set()  # nothing to be a head beside: a lone arm is an arm
    half = max([abs(starts[i][1]) for i in pairs] + [abs(h[1]) for h in hips])
    top = max([starts[i][2] for i in pairs] or [h[2] for h in hips])
    out = set()
    for i, (_, e, seg) in enumerate(limbs):
        s = starts[i]
        if i in pairs or e in grippers or abs(s[1]) > 0.15 * half or s[2] < top - 0.5 * half:
            continue
        pts = tree.points(tree.subtree(seg[0].child))
        if len(pts):
            z = (pts - T_base[:3, 3]) @ T_base[:3, 2]  # base-frame heights
            if float(np.mean(z)) < s[2]:
                continue  # hangs down from where it starts: not on top
        out.add(e)
    return out


def _after(tree: _Tree, above: str, j) -> bool:
    """Whether joint ``j`` lies below link ``above``."""
    return j.child in tree.subtree(above) and j.child != above


def _q_or_all(seg: list) -> tuple[str, ...]:
    return tuple(j.name for j in seg)


def _side(v_world: np.ndarray, R_base: np.ndarray) -> str:
    y = float((R_base.T @ v_world)[1])
    return "left" if y > 1e-6 else ("right" if y < -1e-6 else "center")


def _unique(name: str, taken: list[str]) -> str:
    if name not in taken:
        return name
    k = 2
    while f"{name}{k}" in taken:
        k += 1
    return f"{name}{k}"


def _foot_link(tree: _Tree, seg: list) -> tuple[str, int]:
    """The foot (child of the deepest joint whose subtree holds every sole link: the
    links with geometry at the leg's lowest point) and that joint's index in ``seg``."""
    leg = tree.subtree(seg[0].child)
    low = {n: tree.points([n]) for n in leg}
    zlow = min(float(p[:, 2].min()) for p in low.values() if len(p))
    soles = {n for n, p in low.items() if len(p) and p[:, 2].min() <= zlow + SOLE_TOL}
    for k in range(len(seg) - 1, -1, -1):
        if soles <= set(tree.subtree(seg[k].child)):
            return seg[k].child, k
    return seg[0].child, 0


def _foot(tree: _Tree, model: RobotModel, foot_link: str, R_base: np.ndarray) -> Foot | None:
    sub = tree.subtree(foot_link)
    p = tree.points(sub)
    if not len(p):
        return None
    zlow = p[:, 2].min()
    sole_pts = p[p[:, 2] <= zlow + SOLE_TOL]
    # a model frame on the foot lying on the sole plane with z (anti)parallel to world z
    T_foot = tree.T[foot_link]
    frames = [f for f in model.frames if f.link in sub]
    frames.sort(key=lambda f: 0 if _SOLE_HINT.search(f.name) else 1)
    sole = None
    for fr in frames:
        T = tree.T[fr.link] @ np.asarray(fr.T_link_frame)
        if abs(T[2, 3] - zlow) <= SOLE_TOL and T[2, 2] > 1 - 1e-6:
            T_lf = np.linalg.inv(T_foot) @ T
            sole = SiteFrame(fr.name, foot_link, _tl(T_lf))
            T_sole = T
            break
    if sole is None:
        c = sole_pts.mean(axis=0)
        T_sole = np.eye(4)
        T_sole[:3, :3] = _yaw_only(R_base)
        T_sole[:3, 3] = [c[0], c[1], zlow]
        T_lf = np.linalg.inv(T_foot) @ T_sole
        sole = SiteFrame(f"{foot_link}_sole", foot_link, _tl(T_lf), added=True)
    local = (sole_pts - T_sole[:3, 3]) @ T_sole[:3, :3]
    hull = _hull2d(local[:, :2])
    if len(hull) < 3:  # a line contact (one capsule): give it the capsule's own width
        return None
    return Foot(foot_link, foot_link, sole, tuple((float(x), float(y)) for x, y in hull))


def _yaw_only(R: np.ndarray) -> np.ndarray:
    x = R[:, 0].copy()
    x[2] = 0.0
    if np.linalg.norm(x) < 1e-9:
        return np.eye(3)
    x /= np.linalg.norm(x)
    z = np.array([0.0, 0.0, 1.0])
    return np.column_stack([x, np.cross(z, x), z])


def _tl(T: np.ndarray) -> tuple[tuple[float, ...], ...]:
    T = np.array(T, dtype=np.float64)
    T[np.abs(T) < 1e-15] = 0.0
    return tuple(tuple(float(x) for x in row) for row in T)


def _fingertip(tree: _Tree, hand: str, end: str, name: str) -> SiteFrame:
    """The fingertip: the finger geometry farthest from the hand along the fingers'
    direction (the centroid of the points within 2 mm of the farthest)."""
    model = tree.m
    frames = [f for f in model.frames if f.link in tree.subtree(end)]
    tips = [f for f in frames if re.search(r"tip", f.name, re.I)]
    if tips:
        f = tips[0]
        return SiteFrame(f.name, f.link, _tl(np.asarray(f.T_link_frame)))
    T_hand = tree.T[hand]
    p = tree.points(tree.subtree(end))
    if not len(p):
        p = tree.T[end][:3, 3][None]
    d = tree.T[end][:3, 3] - T_hand[:3, 3]
    if np.linalg.norm(d) < 1e-9:
        d = p.mean(axis=0) - T_hand[:3, 3]
    d = d / (np.linalg.norm(d) or 1.0)
    s = (p - T_hand[:3, 3]) @ d
    tip = p[s >= s.max() - 2e-3].mean(axis=0)
    T = np.eye(4)
    T[:3, :3] = T_hand[:3, :3]
    T[:3, 3] = tip
    return SiteFrame(name, end, _tl(np.linalg.inv(tree.T[end]) @ T), added=True)


def _frame_link(model: RobotModel, tree: _Tree, name: str) -> bool:
    """A link that is only a frame: welded to its parent, no shapes, no mass, nothing
    below it (URDF's way of naming a point: a TCP, a flange)."""
    lk = model.link(name)
    pj = tree.parent_joint.get(name)
    return (
        pj is not None
        and not pj.movable
        and not lk.collisions
        and not lk.visuals
        and (lk.inertial is None or lk.inertial.mass == 0)
        and not tree.children.get(name)
    )


def _tool(tree: _Tree, model: RobotModel, end: str, g: Gripper | None) -> SiteFrame:
    """The arm's tool frame: a model frame (or frame link) on the end named like a
    tool; for a gripper, the frame nearest its fingertips' midpoint (else that midpoint,
    added); otherwise the frame farthest out from the end link (a flange, a tool0), else
    the end link itself."""
    below = tree.subtree(end)
    cands = [SiteFrame(f.name, f.link, _tl(np.asarray(f.T_link_frame)))
             for f in model.frames if f.link in below]  # fmt: skip
    cands += [SiteFrame(n, n, _tl(np.eye(4))) for n in below if _frame_link(model, tree, n)]
    hinted = [f for f in cands if _TOOL_HINT.search(f.name)]
    if hinted:
        return hinted[0]

    def where(f: SiteFrame) -> np.ndarray:
        return (tree.T[f.link] @ f.T)[:3, 3]

    T_end = tree.T[end]
    if g is not None:
        tips = [tree.T[t.link] @ t.T for t in g.fingertips]
        mid = np.mean([t[:3, 3] for t in tips], axis=0)
        reach = float(np.linalg.norm(mid - T_end[:3, 3]))
        near = [f for f in cands if np.linalg.norm(where(f) - mid) < 0.5 * reach]
        if near:
            return min(near, key=lambda f: float(np.linalg.norm(where(f) - mid)))
        T = np.eye(4)
        T[:3, :3] = T_end[:3, :3]
        T[:3, 3] = mid
        return SiteFrame(f"{end}_tool", end, _tl(np.linalg.inv(T_end) @ T), added=True)
    if cands:
        return max(cands, key=lambda f: float(np.linalg.norm(where(f) - T_end[:3, 3])))
    return SiteFrame(end, end, _tl(np.eye(4)))
