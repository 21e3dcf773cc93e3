"""Grasp candidates on an object's surface, in the object frame.

1. **Surface points**: ``n`` points on the collision surface
   (:func:`robotsim.objects.query.sample_surface`), each with its outward normal: half
   of them where the surface faces most nearly sideways (so the closing axis can lie
   level with the table), half at random.
2. **Opposing points**: from each point a ray goes into the object along the inward
   normal to where it leaves (:func:`robotsim.objects.query.ray_exit`); the width is
   the ray's length. A pair is **antipodal** when the far side's normal lies within the
   friction cone around the ray (``mu``): two fingers pressing along the ray can hold it.
   For three fingers the thumb goes on the first point and the two fingers on the far
   side (an opposing thumb/finger triple). When fewer than a quarter of ``max_pairs``
   pairs are found (an object mostly wider than the hand opens, such as a mug whose
   handle is the only part it spans), the rest of the sampled surface points are tried
   too.
3. **Hand poses**: the hand's closing axis along the ray, the thumb's side at the first
   point, ``rolls`` turns about that axis (the approach direction), the hand's closure
   chosen so its opening matches the width.
4. **Closing**: from fully open, every fingertip follows its path until its sphere
   touches the surface (stop at touch, per finger); a finger that never touches, or a
   hand that cannot open clear of the object, drops the candidate. The contacts (point,
   inward normal) are where the tips touched.
5. **Rank**: the grasp-wrench-space margin of the contacts (its fast estimate,
   :func:`robotsim.grasp.quality.approx_margins`), a little for approaching from
   above, for contacts around the centre of mass and for a closing axis level with
   the table. The planner certifies the ones it
   keeps with the exact margin and the weight they hold (:func:`score_contacts`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from robotsim.grasp.hand import GraspHand
from robotsim.grasp.quality import approx_margins, contact_wrenches, gws_margin, wrench_reach
from robotsim.objects.load import GraspObject
from robotsim.objects.query import ray_exit, sample_surface, signed_distance, surface_contact

COARSE = 4
EDGE_SHIFT = 0.0025  # m: the surface must go on this far from a contact towards the palm
EDGE_INSET = 0.001  # m: (tested this far under the surface: curvature and facets pass)
TIP_SLACK = 0.001  # m: a fingertip may come this much nearer the table than its margin

__all__ = [
    "Candidates",
    "Contacts",
    "close_fingers",
    "raise_tips",
    "rank_contacts",
    "sample_candidates",
    "score_contacts",
]


@dataclass(frozen=True, eq=False)
class Contacts:
    """Where closing fingers touched, for ``B`` hand poses: ``touched`` ``(B, k)``,
    closure at touch ``s`` ``(B, k)``, ``points`` ``(B, k, 3)`` and inward ``normals``
    ``(B, k, 3)`` (object frame), and whether the open hand was ``clear`` ``(B,)``."""

    touched: np.ndarray
    s: np.ndarray
    points: np.ndarray
    normals: np.ndarray
    clear: np.ndarray
    steady: np.ndarray | None = None

    @property
    def complete(self) -> np.ndarray:
        return self.clear & self.touched.all(axis=1)

    @property
    def on_faces(self) -> np.ndarray:
        """``(B,)``: the surface goes on ``EDGE_SHIFT`` from every contact towards the
        palm (no tip sits on an edge it would slide off)."""
        if self.steady is None:
            return np.ones(len(self.s), bool)
        return self.steady.all(axis=1)


@dataclass(frozen=True, eq=False)
class Candidates:
    """Scored candidates (object frame): ``T_obj_tool`` ``(B, 4, 4)``, their
    ``contacts``, estimated GWS ``margin`` ``(B,)`` and ``score`` ``(B,)``, best first;
    ``frame`` ``(B,)``: the closure sample whose contact frame placed the hand;
    ``opening`` ``(B,)``: the closure sample the hand opens to before closing;
    ``counts`` says how many survived each stage (for the reason when none do)."""

    T_obj_tool: np.ndarray
    contacts: Contacts
    margin: np.ndarray
    score: np.ndarray
    frame: np.ndarray
    counts: dict[str, int]
    opening: np.ndarray = field(default_factory=lambda: np.zeros(0, int))

    def __len__(self) -> int:
        return len(self.score)


def close_fingers(
    hand: GraspHand,
    obj: GraspObject,
    T_obj_tool: np.ndarray,
    tol: float = 2e-4,
    start: np.ndarray | None = None,
) -> Contacts:
    """Close every finger from ``start`` (a closure sample per pose ``(B,)``, a multiple
    of ``COARSE``; default fully open) along its path until its tip touches ``obj``,
    for hand poses ``T_obj_tool`` ``(B, 4, 4)`` (tool frame in the object frame). A pose
    is ``clear`` when no tip touches at its start."""
    T = np.asarray(T_obj_tool, float).reshape(-1, 4, 4)
    B, k0, S = len(T), hand.n_fingers, len(hand.closures)
    m = len(hand.pad_offsets)
    # every finger as m spheres along its pad ("virtual tips", finger-major)
    paths = (hand.paths[:, None] + hand.pad_offsets[None, :, None, :]).reshape(k0 * m, S, 3)
    radius = np.repeat(hand.tip_radius, m)
    k = k0 * m
    far = float(radius.max()) + 0.01
    r = radius[None, :]
    # coarse pass over every COARSE-th closure, then the samples before the first touch
    coarse = np.arange(0, S, COARSE)
    if coarse[-1] != S - 1:
        coarse = np.append(coarse, S - 1)
    Pc = np.einsum("bij,ksj->bksi", T[:, :3, :3], paths[:, coarse]) + T[:, None, None, :3, 3]
    dc, _ = signed_distance(obj.piece_set, Pc, far=far)
    hit_c = dc - r[..., None] <= tol
    c0 = np.zeros(B, int) if start is None else np.asarray(start, int) // COARSE
    clear = ~hit_c[np.arange(B), :, c0].any(axis=1)
    hit_c &= np.arange(len(coarse))[None, None, :] >= c0[:, None, None]  # closing from start
    touched = hit_c.any(axis=2)
    ci = np.where(touched, hit_c.argmax(axis=2), len(coarse) - 1)
    lo = coarse[np.maximum(ci - 1, c0[:, None])]  # last free coarse sample (or the start)
    hi = coarse[ci]
    span = np.arange(COARSE + 1)
    fine = np.minimum(lo[..., None] + span, hi[..., None])  # (B, k, COARSE + 1)
    b_i, k_i = np.meshgrid(np.arange(B), np.arange(k), indexing="ij")
    Pf = (
        np.einsum("bij,bkfj->bkfi", T[:, :3, :3], paths[k_i[..., None], fine])
        + T[:, None, None, :3, 3]
    )
    df, _ = signed_distance(obj.piece_set, Pf, far=far)
    gap = df - r[..., None]
    hit = gap <= tol
    fi = np.where(hit.any(axis=2), hit.argmax(axis=2), COARSE)
    f0 = np.maximum(fi - 1, 0)
    g0, g1 = gap[b_i, k_i, f0], gap[b_i, k_i, fi]
    frac = np.where((fi > 0) & (g0 > g1), np.clip(g0 / np.maximum(g0 - g1, 1e-12), 0, 1), 0.0)
    s0, s1 = hand.closures[fine[b_i, k_i, f0]], hand.closures[fine[b_i, k_i, fi]]
    s = np.where(touched, s0 + frac * (s1 - s0), np.inf)
    p0, p1 = Pf[b_i, k_i, f0], Pf[b_i, k_i, fi]
    centre = p0 + frac[..., None] * (p1 - p0)
    # per finger: the pad sphere that touched first
    s = s.reshape(B, k0, m)
    j = np.argmin(s, axis=2)
    bb, ff = np.meshgrid(np.arange(B), np.arange(k0), indexing="ij")
    s = s[bb, ff, j]
    touched = np.isfinite(s)
    centre = centre.reshape(B, k0, m, 3)[bb, ff, j]
    # the true normal where the tip touches: at an edge or a corner it is tilted (a tip
    # on a thin plate's upper edge presses it down, not in)
    _, nrm, _ = surface_contact(obj.pieces, obj.piece_set, centre.reshape(-1, 3))
    nrm = nrm.reshape(centre.shape)
    points = centre - hand.tip_radius[None, :, None] * nrm
    # a tip that sits at an edge on its palm side (the surface ends within EDGE_SHIFT of
    # the contact towards the palm) rides over it as the fingers squeeze and the lift
    # pulls the object away from the palm: the point EDGE_SHIFT towards the palm and
    # EDGE_INSET under the surface must lie inside the object
    ax = np.einsum("bij,j->bi", T[:, :3, :3], hand.T_tool_grasp[:3, 2])
    probe = points - EDGE_SHIFT * ax[:, None, :] - EDGE_INSET * nrm
    d_probe, _ = signed_distance(obj.piece_set, probe)
    steady = (d_probe < 0) | ~touched
    return Contacts(touched, np.where(touched, s, 1.0), points, -nrm, clear, steady)


def raise_tips(
    hand: GraspHand,
    obj: GraspObject,
    T_obj_tool: np.ndarray,
    opening: np.ndarray,
    con: Contacts,
    tips_low: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    up_obj: np.ndarray,
) -> tuple[np.ndarray, Contacts]:
    """Closed hand poses ``(B, 4, 4)`` whose fingertips come too near the table on the
    way to the touch (``tips_low``: how far each must rise) raised that far straight up
    (``up_obj``) and closed again; those still too low marked not clear. The poses and
    their contacts."""
    T = np.array(T_obj_tool, float)
    rows = np.flatnonzero(con.complete)
    low = np.zeros(len(T))
    low[rows] = tips_low(T[rows], opening[rows], con.s[rows])
    up = np.flatnonzero(low > TIP_SLACK)
    if len(up):  # raise the hand so the tips clear the table, and close again
        T[up, :3, 3] += (low[up] + TIP_SLACK)[:, None] * up_obj
        c2 = close_fingers(hand, obj, T[up], start=opening[up])
        low[up] = np.where(c2.complete, tips_low(T[up], opening[up], c2.s), np.inf)
        con = _merge(con, c2, up)
    off = low <= TIP_SLACK
    return T, Contacts(con.touched, con.s, con.points, con.normals, con.clear & off, con.steady)


def _merge(a: Contacts, b: Contacts, rows: np.ndarray) -> Contacts:
    """``a`` with ``rows`` replaced by ``b``."""
    out = []
    for name in ("touched", "s", "points", "normals", "clear", "steady"):
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:
            out.append(None)
            continue
        x = x.copy()
        x[rows] = y
        out.append(x)
    return Contacts(*out)


def _rho(obj: GraspObject) -> float:
    return float(np.max(np.linalg.norm(obj.hull_points - obj.inertial.com, axis=1)))


def rank_contacts(obj: GraspObject, contacts: Contacts, mu: float, torsion: float) -> np.ndarray:
    """The fast estimate of the GWS margin per hand pose ``(B,)`` (0: incomplete)."""
    out = np.zeros(len(contacts.s))
    rows = np.flatnonzero(contacts.complete)
    if len(rows):
        W = contact_wrenches(contacts.points[rows], contacts.normals[rows],
                             obj.inertial.com, mu, _rho(obj), torsion)  # fmt: skip
        out[rows] = approx_margins(W)
    return out


def score_contacts(
    obj: GraspObject,
    points: np.ndarray,
    normals: np.ndarray,
    up_obj: np.ndarray,
    mu: float,
    torsion: float,
    grip: float,
) -> tuple[float, float]:
    """(GWS margin, weights held) of one set of contacts ``(k, 3)``: the exact margin
    and how far the wrench space reaches against gravity, times the grip force the
    ``k`` fingers press with, over the object's weight (``up_obj``: up in the object
    frame)."""
    W = contact_wrenches(points, normals, obj.inertial.com, mu, _rho(obj), torsion)
    margin = gws_margin(W)
    if margin <= 0:
        return 0.0, 0.0
    reach = wrench_reach(W, np.concatenate([up_obj, np.zeros(3)]))
    return margin, float(reach * len(points) * grip / (obj.mass * 9.81))


def _align(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A rotation taking unit ``a`` onto unit ``b``."""
    v = np.cross(a, b)
    c = float(a @ b)
    if np.linalg.norm(v) < 1e-12:
        if c > 0:
            return np.eye(3)
        p = np.array([1.0, 0, 0]) if abs(a[0]) < 0.9 else np.array([0, 1.0, 0])
        axis = np.cross(a, p)
        axis /= np.linalg.norm(axis)
        return 2 * np.outer(axis, axis) - np.eye(3)
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + vx + vx @ vx / (1 + c)


def sample_candidates(
    hand: GraspHand,
    obj: GraspObject,
    T_world_obj: np.ndarray,
    rng: np.random.Generator,
    n_points: int = 160,
    rolls: int = 8,
    mu: float = 0.5,
    torsion: float = 0.005,
    max_up: float = 0.3,
    max_pairs: int = 48,
    max_poses: int = 192,
    pose_ok: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    open_margin: float = 0.02,
) -> Candidates:
    """Sample, place, close and score candidates (module docstring). ``mu`` is the
    friction the planner counts on (below the physical one, for margin);
    ``max_up``: the largest upward component of the approach direction (world), so the
    hand does not come from under the table. ``pose_ok``: a quick test of hand poses
    ``(B, 4, 4)`` (object frame) and their openings ``(B,)`` (closure samples) before the
    fingers close (the planner's: the open hand clear of the table); at most
    ``max_poses`` poses are closed, those approaching most from above with the most level
    closing axis first. ``open_margin`` (m): how much wider than the object the hand
    opens before closing. ``tips_ok``: a test of closed hand poses ``(B, 4, 4)``, their
    openings ``(B,)`` and each finger's closure at touch ``(B, k)``: how far (m) each pose
    must rise for every fingertip's path from the opening to the touch to keep off the
    table (the planner's). Those poses are raised that far (straight up) and closed again;
    those whose tips still come too low are dropped."""
    counts = {"surface points": 0, "within opening": 0, "antipodal": 0, "poses": 0,
              "closing": 0, "force closure": 0}  # fmt: skip
    pts_all, nrm = sample_surface(obj.pieces, 4 * n_points, rng)
    pts = pts_all
    # half the points where the surface faces sideways (a level closing axis), half at
    # random: a lying cylinder's sides are level only along two thin lines
    R_wo = np.asarray(T_world_obj)[:3, :3]
    up_obj = R_wo.T @ np.array([0.0, 0.0, 1.0])
    level = np.argsort(np.abs(nrm @ up_obj))[: n_points // 2]
    rest = np.setdiff1d(np.arange(len(pts)), level)
    pick = np.concatenate(
        [level, rng.choice(rest, size=min(len(rest), n_points - len(level)), replace=False)]
    )
    ps = obj.piece_set
    cos_cone = np.cos(np.arctan(mu))

    def pairs(p: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, ...]:
        # closing directions: along the inward normal, and level (the inward normal
        # made horizontal) where that stays inside the friction cone: a squeeze level
        # with the table across a ring's tube or a lying rod's upper half keeps the tips
        # above the table, where the chord through the normal would end under the object
        lev = -n + np.outer(n @ up_obj, up_obj)
        ln = np.linalg.norm(lev, axis=1)
        lev = lev / np.maximum(ln, 1e-12)[:, None]
        use = (ln > 1e-6) & (np.einsum("ij,ij->i", lev, -n) >= cos_cone)
        use &= np.abs(n @ up_obj) > 0.05  # already level: the normal's own ray
        p = np.concatenate([p, p[use]])
        d = np.concatenate([-n, lev[use]])
        n = np.concatenate([n, n[use]])
        w = ray_exit(ps, p - 1e-6 * n, d)
        fits = np.isfinite(w) & (w >= hand.min_width) & (w <= 0.97 * hand.max_width)
        q_pts = p + np.where(fits, w, 0.0)[:, None] * d
        _, n_far = signed_distance(ps, q_pts - 1e-6 * d)  # the exit face's outward normal
        return p, d, w, fits, fits & (np.einsum("ij,ij->i", n_far, d) >= cos_cone)

    counts["surface points"] = len(pick)
    pts, dirs, w, fits, ok = pairs(pts[pick], nrm[pick])
    if ok.sum() < max_pairs // 4 and len(pick) < len(nrm):
        # few pairs (an object mostly wider than the hand: a mug's handle on a body the
        # hand cannot span): the other surface points too, for the parts it fits
        more = np.setdiff1d(np.arange(len(nrm)), pick)
        p2, d2, w2, f2, ok2 = pairs(pts_all[more], nrm[more])
        pts, dirs, w = (np.concatenate(v) for v in ((pts, p2), (dirs, d2), (w, w2)))
        fits, ok = np.concatenate([fits, f2]), np.concatenate([ok, ok2])
        counts["surface points"] += len(more)
    counts["within opening"] = int(fits.sum())
    counts["antipodal"] = int(ok.sum())
    idx = np.flatnonzero(ok)
    if len(idx) > max_pairs:
        idx = np.sort(rng.choice(idx, size=max_pairs, replace=False))
    k = hand.n_fingers
    none = Contacts(np.zeros((0, k), bool), np.zeros((0, k)), np.zeros((0, k, 3)),
                    np.zeros((0, k, 3)), np.zeros(0, bool))  # fmt: skip
    empty = Candidates(
        np.zeros((0, 4, 4)), none, np.zeros(0), np.zeros(0), np.zeros(0, int), counts
    )
    if not len(idx):
        return empty
    phis = 2 * np.pi * np.arange(rolls) / rolls
    x = dirs[idx]  # closing axes: thumb at the surface point, towards the far side
    a = np.cross(x, up_obj)
    flat = np.linalg.norm(a, axis=1) < 1e-6
    a[flat] = np.cross(x[flat], [1.0, 0.0, 0.0])
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b = np.cross(x, a)
    mid = pts[idx] + 0.5 * w[idx, None] * x
    si = np.argmin(np.abs(hand.widths[None, :] - w[idx, None]), axis=1)
    # open only so far: the pre-shape leaves ``open_margin`` around the object (a finger
    # may have to enter a hole, or stand between the object and its neighbour)
    wide = hand.widths[None, :] >= (w[idx] + open_margin)[:, None]
    wide &= (np.arange(len(hand.widths)) % COARSE == 0)[None, :]
    last = len(hand.widths) - 1 - np.argmax(wide[:, ::-1], axis=1)
    s_open = np.where(wide.any(axis=1), last, 0)
    T_gc_tool = np.linalg.inv(hand.contact_frames[si])  # (n, 4, 4)
    z = np.cos(phis)[None, :, None] * a[:, None] + np.sin(phis)[None, :, None] * b[:, None]
    up_ok = z @ up_obj <= max_up  # (n, rolls)
    pair, roll = np.nonzero(up_ok)
    zz = z[pair, roll]
    xx = x[pair]
    T = np.zeros((len(pair), 4, 4))
    T[:, :3, 0], T[:, :3, 1], T[:, :3, 2] = xx, np.cross(zz, xx), zz
    T[:, :3, 3], T[:, 3, 3] = mid[pair], 1.0
    poses = T @ T_gc_tool[pair]
    if len(hand.pad_offsets) > 1:  # the contact at each point along the pads
        shift = np.tile(np.eye(4), (len(hand.pad_offsets), 1, 1))
        shift[:, :3, 3] = -hand.pad_offsets
        poses = (poses[:, None] @ shift[None]).reshape(-1, 4, 4)
        pair = np.repeat(pair, len(hand.pad_offsets))
    opening = s_open[pair]
    counts["poses"] = len(poses)
    if pose_ok is not None and len(poses):
        ok_pose = pose_ok(poses, opening)
        poses, pair, opening = poses[ok_pose], pair[ok_pose], opening[ok_pose]
        counts["hand clear"] = len(poses)
    if len(poses) > max_poses:
        down = -np.einsum("bi,i->b", poses[:, :3, :3] @ hand.T_tool_grasp[:3, 2], up_obj)
        lvl = np.abs(np.einsum("bi,i->b", poses[:, :3, :3] @ hand.T_tool_grasp[:3, 0], up_obj))
        pre = down - lvl + 0.05 * rng.random(len(poses))
        keep_p = np.argsort(-pre)[:max_poses]
        poses, pair, opening = poses[keep_p], pair[keep_p], opening[keep_p]
    if not len(poses):
        return empty
    T_all = poses
    con = close_fingers(hand, obj, T_all, start=opening)
    counts["closing"] = int(con.complete.sum())
    margin = rank_contacts(obj, con, mu, torsion)
    counts["force closure"] = int((margin > 0).sum())
    counts["on faces"] = int(((margin > 0) & con.on_faces).sum())
    keep = margin > 0
    approach_down = -np.einsum("bi,i->b", T_all[:, :3, :3] @ hand.T_tool_grasp[:3, 2], up_obj)
    # gravity twists the object about the line through the contacts: keep the centre of
    # mass near that line (for more fingers, near their centroid)
    com = np.asarray(obj.inertial.com)
    a, b = con.points[:, hand.thumb], np.delete(con.points, hand.thumb, axis=1).mean(axis=1)
    u = (b - a) / np.maximum(np.linalg.norm(b - a, axis=1, keepdims=True), 1e-12)
    rel = com - a
    lever = np.linalg.norm(rel - np.einsum("bi,bi->b", rel, u)[:, None] * u, axis=1)
    off = lever / _rho(obj)
    # a closing axis level with the table squeezes the object sideways, not into the
    # table or up off it (a tilted squeeze rolls round objects out of the hand)
    tilt = np.abs(np.einsum("bi,i->b", T_all[:, :3, :3] @ hand.T_tool_grasp[:3, 0], up_obj))
    # contacts clear of an edge on the palm side first (an edge contact often holds,
    # but a tip on a face holds more surely)
    score = margin + 0.05 * approach_down - 0.3 * off - 0.1 * tilt + 0.05 * con.on_faces
    order = np.flatnonzero(keep)[np.argsort(-score[keep])]
    sub = Contacts(con.touched[order], con.s[order], con.points[order], con.normals[order],
                   con.clear[order], None if con.steady is None else con.steady[order])  # fmt: skip
    return Candidates(T_all[order], sub, margin[order], score[order], si[pair][order], counts,
                      opening[order])  # fmt: skip
