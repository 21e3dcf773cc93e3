"""A hand or gripper as the grasp planner sees it, measured once on the model from its
robot profile (:mod:`robotsim.profile`): nothing is taken from names.

- **fingers**: the profile's fingers; each is driven by one actuated joint (its first
  non-mimic joint, or the joint its mimic follows: a Panda's second finger follows the
  first). Which way a joint closes is measured (the fingertips come together), and so
  are the open and closed ends of its range. A finger with several actuated joints (an
  Allegro- or Shadow-like hand: a spread joint and separately driven phalanges) curls:
  its phalanges (the actuated joints flexing about parallel axes) close together,
  driven by the one sweeping the tip farthest; a finger's spread joint stays where the
  hand waits, and the thumb's turns it to face the fingers. A curl ends where the
  opening stops narrowing.
- **tip paths**: every fingertip's centre in the tool frame at ``S`` closures
  ``s = 0`` (open) .. ``1`` (closed), all fingers driven together.
- **where a finger touches**: a fingertip sphere (its centre and radius); else the flat
  pad of the fingertip link's hull that faces the closing motion (its middle, and
  points towards both of its ends: a pad touches anywhere along its length); else the
  tip frame and the distance from it to the link's surface along the closing motion.
- **thumb**: the finger whose closing motion opposes the others' most (for two fingers,
  the first).
- **grasp frame** ``T_tool_grasp`` at each closure: origin at the tips' centroid;
  ``x`` (closing axis) from the thumb tip towards the other tips (for sliding fingers,
  along their motion: flat pads press along it wherever the tip frames sit), ``z``
  (approach) from the palm (the gripper link's origin) towards the tips, made
  orthogonal to ``x``.
- **reach**: the widest object between the thumb and the other tips (the tips' spread
  when open, minus the tip radii), the finger force (joint effort, over the lever from
  the joint axis to the tip for revolute fingers).
- **points**: every link's collision surface sampled (link frames), for the planner's
  collision checks against tables, the object and the other arm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.errors import InputError, UnknownNameError
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Sphere
from robotsim.model.robot import RobotModel

__all__ = ["GraspHand", "grasp_hands", "link_points", "pick_hand", "start_pose"]

PATH_SAMPLES = 41
DEFAULT_TIP_RADIUS = 0.008
POINTS_PER_LINK = 80


@dataclass(frozen=True, eq=False)
class GraspHand:
    """One hand or gripper on one arm (module docstring). Angles rad, lengths m.

    Attributes:
        model: the robot, with the profile's frames added.
        name, arm: the gripper and arm names of the profile.
        arm_joints: the arm's actuated joints (shoulder to wrist).
        tool: the tool frame (IK target).
        finger_joints: the actuated joint of each finger (may repeat: one joint can
            drive two fingers).
        drive_joints: the distinct actuated finger joints.
        open_q, closed_q: ``drive_joints`` values, fully open and fully closed.
        tips: fingertip frames; ``tip_radius`` ``(k,)`` m.
        thumb: index of the thumb finger.
        paths: tip centres in the tool frame ``(k, S, 3)`` at closures ``(S,)``.
        T_tool_grasp: ``(4, 4)`` the grasp frame (x closing, z approach) at half
            closure; ``grasp_frames`` ``(S, 4, 4)`` at each closure, and
            ``contact_frames`` the same axes with the origin midway between where the
            thumb and the other tips touch an object ``widths`` ``(S,)`` m wide.
        pad_offsets: ``(m, 3)`` (tool frame) points along the pads besides their middle
            (flat pads touch anywhere along their length); one zero row for round tips.
        max_width: widest object (m) the hand opens around.
        min_width: narrowest (m) it closes on.
        grip_force: force (N) one finger presses with at its rated effort.
        finger_links: the links each finger moves ``(k,)`` of tuples (incl. the tip).
        hand_links: every link of the hand (palm and fingers).
    """

    model: RobotModel
    name: str
    arm: str
    arm_joints: tuple[str, ...]
    tool: str
    finger_joints: tuple[str, ...]
    drive_joints: tuple[str, ...]
    open_q: np.ndarray
    closed_q: np.ndarray
    tips: tuple[str, ...]
    tip_radius: np.ndarray
    thumb: int
    closures: np.ndarray
    paths: np.ndarray
    T_tool_grasp: np.ndarray
    grasp_frames: np.ndarray
    contact_frames: np.ndarray
    widths: np.ndarray
    pad_offsets: np.ndarray
    max_width: float
    min_width: float
    grip_force: float
    finger_links: tuple[tuple[str, ...], ...]
    hand_links: tuple[str, ...]
    home: np.ndarray
    finger_force: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # (joint, index into drive_joints, open, closed): phalanges that follow a drive
    coupled: tuple[tuple[str, int, float, float], ...] = ()
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def n_fingers(self) -> int:
        return len(self.tips)

    def balanced_effort(self) -> dict[str, float]:
        """The share of its rated effort each drive squeezes with so that the thumb
        and the fingers opposing it push equally hard (``{drive: share}``): with every
        finger at full effort, two fingers against one thumb push the object into the
        thumb until it gives way. A drive moving the thumb and an opposing finger
        together (a parallel gripper) is balanced already (1)."""
        out = {d: 1.0 for d in self.drive_joints}
        t = self.thumb
        d_t = self.finger_joints[t]
        others = [k for k in range(self.n_fingers) if k != t]
        if len(self.finger_force) != self.n_fingers or any(
            self.finger_joints[k] == d_t for k in others
        ):
            return out
        f_t = float(self.finger_force[t])
        f_o = float(sum(self.finger_force[k] for k in others))
        both = min(f_t, f_o)
        out[d_t] = both / f_t
        for k in others:
            out[self.finger_joints[k]] = both / f_o
        return out

    def q_fingers(self, s: float, q: np.ndarray) -> np.ndarray:
        """``q`` ``(nq,)`` with the fingers at closure ``s`` (0 open, 1 closed)."""
        out = np.array(q, float)
        idx = [self.model.joint_index(j) for j in self.drive_joints]
        out[idx] = self.open_q + float(s) * (self.closed_q - self.open_q)
        for j, _, lo, hi in self.coupled:
            out[self.model.joint_index(j)] = lo + float(s) * (hi - lo)
        return out

    @property
    def finger_q_index(self) -> list[int]:
        """Indices in ``q`` of every joint the fingers' closure sets (drives and the
        phalanges that follow them)."""
        m = self.model
        return [m.joint_index(j) for j in (*self.drive_joints, *(c[0] for c in self.coupled))]

    def follow(self, q: np.ndarray) -> np.ndarray:
        """``q`` with every following phalanx at its drive's closure in ``q``."""
        out = np.array(q, float)
        m = self.model
        for j, d, lo, hi in self.coupled:
            i = m.joint_index(self.drive_joints[d])
            span = self.closed_q[d] - self.open_q[d]
            s = np.clip((out[i] - self.open_q[d]) / span, 0.0, 1.0) if span else 0.0
            out[m.joint_index(j)] = lo + s * (hi - lo)
        return out

    def random_arm_q(self, samples: int, seed: int) -> np.ndarray:
        """``(samples, nq)`` configurations: the home pose with every arm joint drawn
        uniformly within its limits (within +-pi where a limit is missing)."""
        m = self.model
        rng = np.random.default_rng(seed)
        q = np.tile(self.home, (samples, 1))
        for j in self.arm_joints:
            i = m.joint_index(j)
            lo, hi = float(m.lower[i]), float(m.upper[i])
            lo, hi = (lo, hi) if np.isfinite(lo) and np.isfinite(hi) else (-np.pi, np.pi)
            q[:, i] = rng.uniform(lo, hi, samples)
        return q

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "arm": self.arm,
            "fingers": self.n_fingers,
            "thumb": self.tips[self.thumb],
            "tool": self.tool,
            "max_width_m": self.max_width,
            "min_width_m": self.min_width,
            "grip_force_n": self.grip_force,
            "tip_radius_m": [float(r) for r in self.tip_radius],
        }


# ----------------------------------------------------------------- link points
def _shape_mesh(geometry: Any) -> Any:
    """A shape as MuJoCo collides it: a mesh as its convex hull, primitives tessellated."""
    import trimesh

    g = geometry
    if isinstance(g, Mesh):
        from robotsim.model.meshes import load_mesh

        raw = load_mesh(g.path)
        return trimesh.convex.convex_hull(np.asarray(raw.vertices) * np.asarray(g.scale))
    if isinstance(g, Box):
        return trimesh.creation.box(extents=g.size)
    if isinstance(g, Sphere):
        return trimesh.creation.icosphere(subdivisions=1, radius=g.radius)
    if isinstance(g, Cylinder):
        return trimesh.creation.cylinder(radius=g.radius, height=g.length, sections=12)
    if isinstance(g, Capsule):
        return trimesh.creation.capsule(height=g.length, radius=g.radius, count=[8, 8])
    if isinstance(g, Ellipsoid):
        m = trimesh.creation.icosphere(subdivisions=1, radius=1.0)
        m.vertices = m.vertices * np.asarray(g.radii)
        return m
    return None  # pragma: no cover - closed set of geometries


def _shape_points(geometry: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    import trimesh

    m = _shape_mesh(geometry)
    if m is None or len(m.faces) == 0:
        return np.zeros((0, 3)) if m is None else np.asarray(m.vertices, float)
    pts, _ = trimesh.sample.sample_surface(m, n, seed=int(rng.integers(1 << 31)))
    v = np.asarray(m.vertices, float)
    return np.concatenate([np.asarray(pts, float), v[:: max(1, len(v) // 20)]])


def link_points(
    model: RobotModel, per_link: int = POINTS_PER_LINK, seed: int = 0
) -> dict[str, np.ndarray]:
    """Points on every link's collision surface (visual if it has none), link frame:
    ``{link: (n, 3)}`` (links without geometry are left out)."""
    rng = np.random.default_rng(seed)
    out = {}
    for lk in model.links:
        shapes = lk.collisions or lk.visuals
        pts = []
        for s in shapes:
            try:
                p = _shape_points(s.geometry, per_link, rng)
            except Exception:  # an unreadable visual mesh: the link has no points
                continue
            T = np.asarray(s.T_link_shape)
            pts.append(p @ T[:3, :3].T + T[:3, 3])
        if pts:
            out[lk.name] = np.concatenate(pts)
    return out


# ----------------------------------------------------------------- measurement
def _driver(model: RobotModel, finger: tuple[str, ...]) -> str:
    for j in finger:
        if j in model.joint_names:
            return j
    for j in finger:
        jt = model.joint(j)
        if jt.mimic is not None and jt.mimic.joint in model.joint_names:
            return jt.mimic.joint
    raise InputError(f"{model.name}: finger {list(finger)} has no actuated joint")


def _curl(
    model: RobotModel, q_ref: np.ndarray, finger: tuple[str, ...], k: int, tips: tuple[str, ...]
) -> tuple[str, tuple[float, float] | None, list[tuple[str, float, float]]]:
    """A finger with several actuated joints (module docstring). Its phalanges are the
    largest set of its actuated hinges whose axes are parallel (within 25 deg); they
    curl together, each towards the end of its range that, all of them there, brings
    the tip nearest the first phalanx's joint (makers let a finger flex much further
    than it bends back). The drive is the phalanx that sweeps the tip the farthest.
    Returns the drive, its open and closed ends and the phalanges that follow it with
    theirs; a finger with one actuated joint, or no two parallel ones: its first
    actuated joint (or the one sweeping farthest), None (:func:`_measure` measures its
    ends), none following."""
    own = [j for j in finger if j in model.joint_names]
    hinge = ("revolute", "continuous")
    limited = [j for j in own if model.joint(j).type.value in hinge
               and np.isfinite(model.lower[model.joint_index(j)])
               and np.isfinite(model.upper[model.joint_index(j)])]  # fmt: skip
    if len(own) < 2 or len(limited) < 2:
        return _driver(model, finger), None, []
    tree = model.tree

    def axis_world(j: str) -> np.ndarray:
        jt = model.joint(j)
        Tj = tree.fk(q_ref, jt.child)
        a = Tj[:3, :3] @ (np.asarray(jt.post)[:3, :3].T @ np.asarray(jt.axis, float))
        return a / np.linalg.norm(a)

    def tip(q: np.ndarray) -> np.ndarray:
        return tree.fk(q, tips[k])[:3, 3]

    def sweep(j: str) -> float:
        i = model.joint_index(j)
        qa, qb = q_ref.copy(), q_ref.copy()
        qa[i], qb[i] = model.lower[i], model.upper[i]
        return float(np.linalg.norm(tip(qa) - tip(qb)))

    axes = {j: axis_world(j) for j in limited}
    parallel = np.cos(np.radians(25.0))
    groups = [[o for o in limited if abs(float(axes[o] @ axes[j])) > parallel] for j in limited]
    group = max(groups, key=lambda g: (len(g), max(sweep(j) for j in g)))
    if len(group) < 2:
        return max(limited, key=sweep), None, []
    drive = max(group, key=sweep)
    idx = [model.joint_index(j) for j in group]
    qa, qb = q_ref.copy(), q_ref.copy()
    qa[idx], qb[idx] = model.lower[idx], model.upper[idx]
    root = tree.fk(q_ref, model.joint(group[0]).child)[:3, 3]
    to_upper = np.linalg.norm(tip(qb) - root) < np.linalg.norm(tip(qa) - root)
    ends = {
        j: (float(model.lower[i]), float(model.upper[i]))
        if to_upper
        else (float(model.upper[i]), float(model.lower[i]))
        for j, i in zip(group, idx)
    }
    follow = [(j, *ends[j]) for j in group if j != drive]
    return drive, ends[drive], follow


SPREAD_SAMPLES = 9


def _spread(model: RobotModel, home: np.ndarray, fingers: Any, curls: list, tips: tuple[str, ...],
            drives: list[str], open_q: np.ndarray, closed_q: np.ndarray, coupled: tuple,
            ) -> np.ndarray:  # fmt: skip
    """Where the thumb of a hand with curling fingers waits: the thumb is the finger
    whose tip's closing motion opposes the others' most (as in :func:`_hand`); each of
    its other actuated joints (its opposition, its spread) goes to the value of
    ``SPREAD_SAMPLES`` across its range where its tip, as the hand closes, comes nearest
    the other tips' centroid, so that it closes against the fingers rather than across
    the palm or past them. The fingers' spread joints stay where the hand
    waits (turned together they would close onto each other)."""
    tree = model.tree
    idx = [model.joint_index(d) for d in drives]
    cidx = [model.joint_index(c[0]) for c in coupled]
    clo, chi = np.array([c[2] for c in coupled]), np.array([c[3] for c in coupled])

    def closing(q: np.ndarray, s: np.ndarray) -> np.ndarray:  # (n, k, 3) tips at closures s
        Q = np.array(q, float).reshape(-1, len(home)).repeat(len(s), axis=0)
        ss = np.tile(s, len(Q) // len(s))[:, None]
        Q[:, idx] = open_q + ss * (closed_q - open_q)
        Q[:, cidx] = clo + ss * (chi - clo)
        return tree.fk_frames(Q, list(tips))[..., :3, 3]

    p = closing(home, np.array([0.45, 0.55]))
    motion = p[1] - p[0]
    k_all = len(tips)
    scores = [float(motion[i] @ np.delete(motion, i, axis=0).mean(axis=0)) for i in range(k_all)]
    k = int(np.argmin(scores))
    d, _, follow = curls[k]
    moved = {d, *(j for j, _, _ in follow)}
    free = [j for j in fingers[k] if j in model.joint_names and j not in moved
            and np.isfinite(model.lower[model.joint_index(j)])
            and np.isfinite(model.upper[model.joint_index(j)])]  # fmt: skip
    q = home.copy()
    s = np.linspace(0.0, 1.0, 21)
    for _ in range(2):
        for j in free:
            i = model.joint_index(j)
            values = np.linspace(model.lower[i], model.upper[i], SPREAD_SAMPLES)
            Q = np.tile(q, (len(values), 1))
            Q[:, i] = values
            p = closing(Q, s).reshape(len(values), len(s), k_all, 3)
            rest = np.delete(p, k, axis=2).mean(axis=2)
            cost = np.linalg.norm(p[:, :, k] - rest, axis=-1).min(axis=1)
            q[i] = values[int(np.argmin(cost))]
    return q


def _subtree(model: RobotModel, link: str) -> list[str]:
    out, stack = [], [link]
    while stack:
        lk = stack.pop()
        out.append(lk)
        stack.extend(j.child for j in model.joints if j.parent == lk)
    return out


PAD_COS = np.cos(np.radians(10.0))
PAD_MIN_AREA = 2e-5  # m^2: a face this large facing the closing motion is a pad
PAD_RADIUS = 0.005
PAD_SPREAD = 0.9  # the pad points sit this share of the way to the pad's ends


def _hull_of(model: RobotModel, link: str) -> Any:
    """The convex hull of a link's collision shapes (what MuJoCo collides), link frame."""
    import trimesh

    pts = []
    for s in model.link(link).collisions:
        try:
            m = _shape_mesh(s.geometry)
        except Exception:  # an unreadable mesh: no hull from it
            continue
        if m is not None:
            T = np.asarray(s.T_link_shape)
            pts.append(np.asarray(m.vertices) @ T[:3, :3].T + T[:3, 3])
    if not pts:
        return None
    try:
        return trimesh.convex.convex_hull(np.concatenate(pts))
    except Exception:  # flat or degenerate geometry: no hull
        return None


def _contact_point(model: RobotModel, link: str, T_link_tip: np.ndarray, direction: np.ndarray,
                   along: np.ndarray, points: dict[str, np.ndarray],
                   ) -> tuple[np.ndarray, float, tuple[float, float]]:  # fmt: skip
    """Where a fingertip touches, in its link frame, the radius of the sphere the
    planner models it with, and how far the touching surface reaches from there along
    ``along`` (the approach axis, link frame) both ways: a sphere shape's centre and
    radius; else the middle of the flat pad facing the closing ``direction`` (faces of
    the link's hull within 10 deg, at least 20 mm^2) as a 5 mm sphere just behind it,
    with the pad's length; else the tip frame and the distance from it to the link's
    surface along ``direction``."""
    d = direction / np.linalg.norm(direction)
    for s in model.link(link).collisions:
        if isinstance(s.geometry, Sphere):
            return np.asarray(s.T_link_shape)[:3, 3].copy(), float(s.geometry.radius), (0.0, 0.0)
    hull = _hull_of(model, link)
    if hull is not None:
        facing = np.asarray(hull.face_normals) @ d > PAD_COS
        area = np.asarray(hull.area_faces)[facing]
        if area.sum() >= PAD_MIN_AREA:
            c = (np.asarray(hull.triangles_center)[facing] * area[:, None]).sum(axis=0) / area.sum()
            a = along - (along @ d) * d
            a = a / max(np.linalg.norm(a), 1e-12)
            corners = np.asarray(hull.vertices)[np.unique(np.asarray(hull.faces)[facing])]
            t = (corners - c) @ a
            return c - PAD_RADIUS * d, PAD_RADIUS, (float(t.min()), float(t.max()))
    tip = np.asarray(T_link_tip)[:3, 3]
    pts = points.get(link)
    if pts is None or not len(pts):
        return tip.copy(), DEFAULT_TIP_RADIUS, (0.0, 0.0)
    rel = pts - tip
    ahead = rel @ d
    lateral = np.linalg.norm(rel - np.outer(ahead, d), axis=1)
    near = (lateral < 0.004) & (ahead > 0)
    if not near.any():
        return tip.copy(), DEFAULT_TIP_RADIUS, (0.0, 0.0)
    return tip.copy(), float(np.clip(ahead[near].max(), 0.002, 0.03)), (0.0, 0.0)


def _measure(
    model: RobotModel,
    q_ref: np.ndarray,
    drives: list[str],
    tips: tuple[str, ...],
    finger_of_drive: list[list[int]],
) -> tuple[np.ndarray, np.ndarray]:
    """Open and closed ends of each drive joint: the end that brings its tips towards
    the centroid of all the tips is closed."""
    tree = model.tree
    lo, hi = [], []
    for jn, fingers in zip(drives, finger_of_drive, strict=True):
        i = model.joint_index(jn)
        a, b = float(model.lower[i]), float(model.upper[i])
        if not (np.isfinite(a) and np.isfinite(b)):
            raise InputError(f"{model.name}: finger joint {jn!r} needs finite limits to grasp")
        qa, qb = q_ref.copy(), q_ref.copy()
        qa[i], qb[i] = a, b

        def spread(q: np.ndarray, fingers: list[int] = fingers) -> float:
            p = tree.fk_frames(q, list(tips))[:, :3, 3]
            c = p.mean(axis=0)
            return float(sum(np.linalg.norm(p[k] - c) for k in fingers))

        if spread(qa) <= spread(qb):
            lo.append(b)  # open
            hi.append(a)  # closed
        else:
            lo.append(a)
            hi.append(b)
    return np.array(lo), np.array(hi)


def start_pose(model: RobotModel, arm_joints: tuple[str, ...] | list[str]) -> np.ndarray:
    """Where an arm waits: the model's ``ready``, ``home`` or ``initial`` pose, else the
    middle of each arm joint's range (0 for an unlimited joint): a bent arm away from
    the singular stretched pose a zero configuration often is."""
    for name in ("ready", "home", "initial"):
        if name in model.poses:
            return model.pose(name)
    q = model.zero()
    for j in arm_joints:
        i = model.joint_index(j)
        lo, hi = float(model.lower[i]), float(model.upper[i])
        q[i] = 0.5 * (lo + hi) if np.isfinite(lo) and np.isfinite(hi) else 0.0
    return q


def _grasp_frame(
    tips: np.ndarray,
    paths: np.ndarray,
    thumb: int,
    others: list[int],
    palm: np.ndarray,
    prismatic: bool,
    model: RobotModel,
    g: Any,
) -> np.ndarray:
    c = tips.mean(axis=0)
    if prismatic:
        travel = paths[:, -1] - paths[:, 0]
        x = travel[thumb] - travel[others].mean(axis=0)
    else:
        x = tips[others].mean(axis=0) - tips[thumb]
    if np.linalg.norm(x) < 1e-9:
        x = paths[others, 0].mean(axis=0) - paths[thumb, 0]
    x = x / np.linalg.norm(x)
    z = c - palm
    z -= (z @ x) * x
    if np.linalg.norm(z) < 1e-9:
        raise InputError(f"{model.name}: gripper {g.name!r}: the palm lies on the closing axis")
    z /= np.linalg.norm(z)
    T = np.eye(4)
    T[:3, :3] = np.column_stack([x, np.cross(z, x), z])
    T[:3, 3] = c
    return T


def _open_chains(model: RobotModel, g: Any) -> None:
    """Refuse a gripper whose fingers close a kinematic loop (a four-bar or adaptive
    linkage joined by an MJCF ``<connect>``/``<weld>``): the tree robotsim models would
    move a linkage that is not there, in the planner and in physics."""
    hand = set(_subtree(model, g.link))
    for loop in model.metadata.get("closed_loops", ()):
        if hand & set(loop["links"]):
            a, b = loop["links"]
            where = model.source if model.source is not None else model.name
            raise InputError(
                f"{where}: gripper {g.name!r}: <equality><{loop['kind']}> joins {a!r} and "
                f"{b!r}, so its fingers form a closed linkage; grasp supports fingers on "
                "open chains (serial joints, coupled by <equality><joint> or URDF <mimic>)"
            )


def _hand(model: RobotModel, prof: Any, arm: Any, points: dict[str, np.ndarray],
          s_end: float | None = None) -> GraspHand:  # fmt: skip
    """The hand of ``arm`` (module docstring); ``s_end``: where a curl ends (a hand
    whose curling fingers open their grip again past the narrowest closure is measured
    again with its closed end there)."""
    g = next(gr for gr in prof.grippers if gr.name == arm.gripper)
    _open_chains(model, g)
    tips = tuple(t.name for t in g.fingertips)
    if len(tips) < 2:
        raise InputError(
            f"{model.name}: gripper {g.name!r} has {len(tips)} fingertip(s); a grasp "
            "needs 2 or more"
        )
    home = start_pose(model, arm.joints)
    curls = [_curl(model, home, f, k, tips) for k, f in enumerate(g.fingers)]
    finger_joints = tuple(d for d, _, _ in curls)
    drives = list(dict.fromkeys(finger_joints))
    finger_of_drive = [[k for k, j in enumerate(finger_joints) if j == d] for d in drives]
    open_q, closed_q = _measure(model, home, drives, tips, finger_of_drive)
    for d, ends, _ in curls:
        if ends is not None:
            open_q[drives.index(d)], closed_q[drives.index(d)] = ends
    coupled = tuple((j, drives.index(d), lo, hi) for d, _, follow in curls for j, lo, hi in follow)
    if coupled:
        home = _spread(model, home, g.fingers, curls, tips, drives, open_q, closed_q, coupled)
        if s_end is not None:
            curled = [drives.index(d) for d, ends, _ in curls if ends is not None]
            closed_q[curled] = open_q[curled] + s_end * (closed_q[curled] - open_q[curled])
            coupled = tuple((j, i, lo, lo + s_end * (hi - lo)) for j, i, lo, hi in coupled)
    tree = model.tree
    closures = np.linspace(0.0, 1.0, PATH_SAMPLES)
    idx = [model.joint_index(j) for j in drives]
    Q = np.tile(home, (PATH_SAMPLES, 1))
    Q[:, idx] = open_q + closures[:, None] * (closed_q - open_q)
    for j, _, lo, hi in coupled:
        Q[:, model.joint_index(j)] = lo + closures * (hi - lo)
    F = tree.fk_frames(Q, [arm.tool.name, *tips])  # (S, 1 + k, 4, 4)
    T_tool = F[:, 0]
    Rt = np.swapaxes(T_tool[:, :3, :3], -1, -2)
    tipw = F[:, 1:, :3, 3]
    paths = np.einsum("sij,skj->ksi", Rt, tipw - T_tool[:, None, :3, 3])  # (k, S, 3)
    k = len(tips)
    mid = PATH_SAMPLES // 2
    motion = paths[:, mid + 1] - paths[:, mid - 1]
    # where each finger touches: a flat pad facing the closing motion, or the tip
    # frame with its radius (module docstring)
    links = [t.link for t in g.fingertips]
    T_links = tree.fk_frames(Q, links)  # (S, k, 4, 4)
    local, radii, reach = [], [], []
    for i, t in enumerate(g.fingertips):
        d_world = T_tool[mid, :3, :3] @ motion[i]
        d_link = T_links[mid, i, :3, :3].T @ d_world
        z_link = T_links[mid, i, :3, :3].T @ T_tool[mid, :3, 2]
        c, r_i, ext = _contact_point(model, t.link, t.T, d_link, z_link, points)
        local.append(c)
        radii.append(r_i)
        reach.append(ext)
    r = np.array(radii)
    # points along each pad (tool z): a pad touches anywhere along its length
    lo = max(e[0] for e in reach) * PAD_SPREAD
    hi = min(e[1] for e in reach) * PAD_SPREAD
    shifts = np.array([0.0, lo, hi]) if hi - lo > 0.004 else np.zeros(1)
    pad_offsets = shifts[:, None] * np.array([0.0, 0.0, 1.0])  # (m, 3), tool frame
    tipw = np.einsum("skij,kj->ski", T_links[..., :3, :3], np.array(local)) + T_links[..., :3, 3]
    paths = np.einsum("sij,skj->ksi", Rt, tipw - T_tool[:, None, :3, 3])  # (k, S, 3)
    motion = paths[:, mid + 1] - paths[:, mid - 1]
    if k == 2:
        thumb = 0
    else:
        scores = [float(motion[i] @ np.delete(motion, i, axis=0).mean(axis=0)) for i in range(k)]
        thumb = int(np.argmin(scores))
    others = [i for i in range(k) if i != thumb]
    palm = T_tool[mid, :3, :3].T @ (tree.fk(Q[mid], g.link)[:3, 3] - T_tool[mid, :3, 3])
    prismatic = all(model.joint(d).type.value == "prismatic" for d in drives)
    frames = np.empty((PATH_SAMPLES, 4, 4))
    for si in range(PATH_SAMPLES):
        frames[si] = _grasp_frame(paths[:, si], paths, thumb, others, palm, prismatic, model, g)
    T_tool_grasp = frames[mid]
    Tw = tree.fk_frames(Q[mid], list(tips))
    # contact frames: the grasp axes, origin between where the thumb and the other tips
    # would touch (tip centres moved by their radii along the closing axis)
    contact = frames.copy()
    for si in range(PATH_SAMPLES):
        xs = frames[si, :3, 0]
        a = paths[thumb, si] + r[thumb] * xs
        b = paths[others, si].mean(axis=0) - r[others].mean() * xs
        contact[si, :3, 3] = 0.5 * (a + b)
    # opening: thumb tip to the other tips along the closing axis, minus the radii
    gap = np.array([(paths[others, si].mean(axis=0) - paths[thumb, si]) @ frames[si, :3, 0]
                    for si in range(PATH_SAMPLES)])  # fmt: skip
    gaps = gap - r[thumb] - r[others].mean()
    widening = np.flatnonzero(np.diff(gaps) > 1e-4)  # the first minimum of the opening
    narrowest = int(widening[0]) if len(widening) else PATH_SAMPLES - 1
    if coupled and s_end is None and 0 < narrowest < PATH_SAMPLES - 1:
        return _hand(model, prof, arm, points, float(closures[narrowest]))
    max_width = float(gaps.max())
    min_width = float(max(gaps.min(), 0.0))
    # grip force: the drive's effort, over the lever from a revolute axis to the tip
    forces = []
    order = [fk_ for fingers in finger_of_drive for fk_ in fingers]
    for d, fingers in zip(drives, finger_of_drive, strict=True):
        jt = model.joint(d)
        eff = jt.limits.effort if np.isfinite(jt.limits.effort) and jt.limits.effort > 0 else 20.0
        if jt.type.value in ("revolute", "continuous"):
            Tj = tree.fk(Q[mid], jt.child)
            axis_w = Tj[:3, :3] @ (np.asarray(jt.post)[:3, :3].T @ np.asarray(jt.axis))
            for fk_ in fingers:
                tip = Tw[fk_, :3, 3] - Tj[:3, 3]
                lever = float(np.linalg.norm(np.cross(axis_w / np.linalg.norm(axis_w), tip)))
                forces.append(eff / max(lever, 1e-3))
        else:
            forces += [eff] * len(fingers)
    finger_links = tuple(tuple(_subtree(model, model.joint(j).child)) for f in g.fingers
                         for j in [f[0]])  # fmt: skip
    return GraspHand(
        model=model, name=g.name, arm=arm.name, arm_joints=tuple(arm.joints), tool=arm.tool.name,
        finger_joints=finger_joints, drive_joints=tuple(drives), open_q=open_q, closed_q=closed_q,
        tips=tips, tip_radius=r, thumb=thumb, closures=closures, paths=paths,
        T_tool_grasp=T_tool_grasp, grasp_frames=frames, contact_frames=contact, widths=gaps,
        pad_offsets=pad_offsets,
        max_width=max_width, min_width=min_width,
        grip_force=float(min(forces)), finger_links=finger_links,
        hand_links=tuple(_subtree(model, g.link)), home=home,
        finger_force=np.array(forces)[np.argsort(order)], coupled=coupled,
    )  # fmt: skip


def grasp_hands(model: RobotModel, profile_file: Any = None) -> dict[str, GraspHand]:
    """Every hand or gripper on an arm in the model's profile, by gripper name."""
    from robotsim.profile.resolve import resolve_profile, with_frames

    prof = resolve_profile(model, profile_file)
    arms = [a for a in prof.arms if a.gripper is not None]
    if not arms:
        raise InputError(
            f"{model.name}: no arm with a hand or gripper in its profile (found "
            f"{len(prof.arms)} arm(s), {len(prof.grippers)} gripper(s)); see docs/profiles.md"
        )
    m = with_frames(model, prof)
    points = link_points(m)
    return {a.gripper: _hand(m, prof, a, points) for a in arms}  # type: ignore[misc]


def pick_hand(hands: dict[str, GraspHand], name: str | None) -> GraspHand:
    """The named hand, or the first."""
    if name is None:
        return next(iter(hands.values()))
    if name not in hands:
        raise UnknownNameError("hand", name, hands)
    return hands[name]
