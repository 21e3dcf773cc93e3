"""The immutable robot description: links, joints, frames, poses.

A :class:`RobotModel` is built once (from a DH table, URDF, MJCF, robot YAML or the
Python builder) and never changes; configurations and floating-base state live in
separate objects (:mod:`robotsim.kinematics`).

The kinematics lives one layer up: :mod:`robotsim.kinematics` imports this module,
never the other way round. ``RobotModel.tree/fk/fk_all/jacobian/ik`` are thin
delegates that reach the engine by its import path at first use (a plug-in slot, like
an entry point), so the model package has no import of the kinematics package.

Joint geometry: the pose of a child link in its parent's frame is

    T_parent_child(q) = origin @ M(axis, q) @ post

with ``M`` a rotation about ``axis`` (revolute/continuous) or a translation along it
(prismatic), both expressed in the joint frame ``origin``. ``post`` is the identity for
URDF joints; it lets standard-DH links keep the DH frame as the link frame and MJCF
joints sit away from their body's origin.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError, ModelError, UnknownNameError
from robotsim.model.geometry import Shape, readonly

__all__ = [
    "Frame",
    "Inertial",
    "Joint",
    "JointDynamics",
    "JointType",
    "Limits",
    "Link",
    "Mimic",
    "RobotModel",
]


class JointType(enum.Enum):
    REVOLUTE = "revolute"
    CONTINUOUS = "continuous"
    PRISMATIC = "prismatic"
    FIXED = "fixed"
    FLOATING = "floating"

    @property
    def movable(self) -> bool:
        return self in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC)


@dataclass(frozen=True)
class Limits:
    """Joint limits in SI units (rad or m; rad/s or m/s; N m or N). ``inf`` = none."""

    lower: float = -np.inf
    upper: float = np.inf
    velocity: float = np.inf
    effort: float = np.inf

    def __post_init__(self) -> None:
        for name in ("lower", "upper", "velocity", "effort"):
            if np.isnan(getattr(self, name)):
                raise InputError(f"joint limit {name} is NaN")
        if self.lower > self.upper:
            raise InputError(f"joint limits: lower {self.lower} > upper {self.upper}")
        if self.velocity <= 0 or self.effort <= 0:
            raise InputError("joint velocity and effort limits must be > 0")


@dataclass(frozen=True)
class Mimic:
    """``q_this = multiplier * q[joint] + offset`` (coupled joints, URDF ``<mimic>``)."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(frozen=True)
class JointDynamics:
    """Joint-space terms beside the rigid bodies, per unit of the joint's ``q`` (SI).

    ``armature``: reflected rotor inertia (kg m^2, or kg on a prismatic joint), added to
    the joint's diagonal of the mass matrix (a motor's ``Jm * G^2``). ``damping``:
    viscous friction (N m s/rad). ``friction``: Coulomb friction (N m), opposing the
    motion. ``stiffness`` (N m/rad) pulls the joint towards ``rest`` (rad or m), a
    Hooke's-law spring. MuJoCo's ``armature``, ``damping``, ``frictionloss``,
    ``stiffness`` and ``springref``; URDF's ``<dynamics damping friction>``.
    """

    armature: float = 0.0
    damping: float = 0.0
    friction: float = 0.0
    stiffness: float = 0.0
    rest: float = 0.0

    def __post_init__(self) -> None:
        for name in ("armature", "damping", "friction", "stiffness"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v >= 0):
                raise InputError(f"joint {name} must be finite and >= 0, got {v!r}")
        if not np.isfinite(self.rest):
            raise InputError(f"joint rest position must be finite, got {self.rest!r}")

    @property
    def passive(self) -> bool:
        """Any term set (a non-zero armature, damping, friction or stiffness)."""
        return any((self.armature, self.damping, self.friction, self.stiffness))


@dataclass(frozen=True, eq=False)
class Joint:
    name: str
    type: JointType
    parent: str
    child: str
    origin: np.ndarray = field(default_factory=lambda: readonly(np.eye(4)))
    axis: np.ndarray = field(default_factory=lambda: readonly([0.0, 0.0, 1.0]))
    post: np.ndarray = field(default_factory=lambda: readonly(np.eye(4)))
    limits: Limits = field(default_factory=Limits)
    mimic: Mimic | None = None
    dynamics: JointDynamics = field(default_factory=JointDynamics)

    def __post_init__(self) -> None:
        object.__setattr__(self, "origin", readonly(self.origin, (4, 4)))
        object.__setattr__(self, "post", readonly(self.post, (4, 4)))
        axis = np.array(self.axis, dtype=np.float64)
        if axis.shape != (3,):
            raise InputError(f"joint {self.name!r}: axis must have 3 numbers")
        if not (np.isfinite(self.origin).all() and np.isfinite(self.post).all()):
            raise InputError(f"joint {self.name!r}: origin contains NaN or inf")
        n = float(np.sqrt(axis @ axis))
        if self.type.movable:
            if not np.isfinite(n) or n < 1e-12:
                raise InputError(f"joint {self.name!r}: axis must be a non-zero vector")
            axis = axis / n
        object.__setattr__(self, "axis", readonly(axis))

    @property
    def movable(self) -> bool:
        return self.type.movable

    @property
    def actuated(self) -> bool:
        """Movable and not a mimic: has its own entry in ``q``."""
        return self.type.movable and self.mimic is None


@dataclass(frozen=True, eq=False)
class Inertial:
    """Mass (kg), centre of mass in the link frame (m), inertia about the CoM in the
    link axes (kg m^2, 3x3)."""

    mass: float
    com: np.ndarray = field(default_factory=lambda: readonly(np.zeros(3)))
    inertia: np.ndarray = field(default_factory=lambda: readonly(np.eye(3) * 1e-6))

    def __post_init__(self) -> None:
        if not np.isfinite(self.mass) or self.mass < 0:
            raise InputError(f"mass must be finite and >= 0, got {self.mass}")
        object.__setattr__(self, "com", readonly(self.com, (3,)))
        object.__setattr__(self, "inertia", readonly(self.inertia, (3, 3)))

    def problem(self, rtol: float = 1e-9) -> str | None:
        """Why this inertia is not physically possible, or None if it is.

        Refused: NaN or inf, a tensor that is not symmetric, a negative principal moment
        (below ``-rtol`` times the largest), and, on a link with mass, principal moments
        ``a <= b <= c`` that break the triangle inequality ``a + b >= c`` (equality only
        for a flat body); ``rtol`` (relative to ``c``) absorbs rounding in files.

        Accepted as files give them (pinocchio computes with them, MuJoCo bounds them:
        :func:`robotsim.model.inertia_bounds.physics_inertials`): a zero or singular
        tensor (a point mass, a thin rod; onshape-to-robot's frame links of mass 1e-9
        and zero inertia), any mass down to 0, and on a massless link (``mass == 0``)
        any symmetric positive semi-definite tensor: it is not a body's but a lumped
        term such as a rotor's inertia (the Robotics Toolbox's PUMA 560 link 1, mass 0
        and ``diag(0, 0.35, 0)``).
        """
        I = np.asarray(self.inertia)
        if not np.all(np.isfinite(I)):
            return "inertia contains NaN or inf"
        scale = float(np.max(np.abs(I)))
        if scale == 0.0:
            return None
        if not np.allclose(I, I.T, rtol=0.0, atol=rtol * scale):
            return "inertia is not symmetric"
        ev = np.linalg.eigvalsh(I / 2.0 + I.T / 2.0)  # halves first: no overflow
        if ev[0] < -rtol * max(abs(ev[2]), abs(ev[0])):
            return (
                f"inertia has a negative principal moment (principal moments {_fmt(ev)} "
                "kg m^2; each must be >= 0)"
            )
        if self.mass > 0.0 and ev[0] + ev[1] < ev[2] * (1.0 - rtol):
            return (
                f"inertia violates the triangle inequality (principal moments {_fmt(ev)} "
                f"kg m^2: {ev[0]:.6g} + {ev[1]:.6g} < {ev[2]:.6g})"
            )
        return None


def _links_with_bad_inertia(links: Sequence[Link], rtol: float = 1e-9) -> list[Link]:
    """The links whose inertial :meth:`Inertial.problem` may refuse, found for all links
    at once (one batched ``eigvalsh``): the same tests, so that a model of 20,000 links
    is checked in milliseconds; the caller asks ``problem()`` of these few for the
    message."""
    with_inertial = [lk for lk in links if lk.inertial is not None]
    if not with_inertial:
        return []
    I = np.stack([lk.inertial.inertia for lk in with_inertial])  # type: ignore[union-attr]
    mass = np.array([lk.inertial.mass for lk in with_inertial])  # type: ignore[union-attr]
    finite = np.isfinite(I).all(axis=(1, 2))
    I = np.where(finite[:, None, None], I, 0.0)
    scale = np.abs(I).max(axis=(1, 2))
    # every test below is scale-free: divide by the largest entry (no overflow)
    I = I / np.where(scale > 0, scale, 1.0)[:, None, None]
    asym = np.abs(I - np.swapaxes(I, 1, 2)).max(axis=(1, 2)) > rtol
    try:
        ev = np.linalg.eigvalsh((I + np.swapaxes(I, 1, 2)) / 2.0)
    except np.linalg.LinAlgError:
        return with_inertial  # let each link's own check decide
    negative = ev[:, 0] < -rtol * np.maximum(np.abs(ev[:, 2]), np.abs(ev[:, 0]))
    triangle = (mass > 0.0) & (ev[:, 0] + ev[:, 1] < ev[:, 2] * (1.0 - rtol))
    bad = ~finite | ((scale > 0.0) & (asym | negative | triangle))
    return [with_inertial[i] for i in np.nonzero(bad)[0]]


def _fmt(v: np.ndarray) -> str:
    return "[" + ", ".join(f"{x:.6g}" for x in v) + "]"


@dataclass(frozen=True, eq=False)
class Link:
    name: str
    visuals: tuple[Shape, ...] = ()
    collisions: tuple[Shape, ...] = ()
    inertial: Inertial | None = None


@dataclass(frozen=True, eq=False)
class Frame:
    """A named frame rigidly attached to a link (tool, fingertip, foot sole...)."""

    name: str
    link: str
    T_link_frame: np.ndarray = field(default_factory=lambda: readonly(np.eye(4)))

    def __post_init__(self) -> None:
        object.__setattr__(self, "T_link_frame", readonly(self.T_link_frame, (4, 4)))


@dataclass(frozen=True, eq=False)
class RobotModel:
    """An immutable robot: a tree of links joined by joints.

    ``links[0]`` is the root. ``joints`` are stored in depth-first pre-order (a joint
    comes after the joint of its parent link; a limb's joints stay together). ``q``
    vectors list the *actuated* joints (movable, not mimic) in that order:
    :attr:`joint_names`.

    Attributes:
        floating: the root moves freely in the world (humanoids, mobile bases); its
            pose lives in :class:`robotsim.kinematics.AnchoredState`, not in ``q``.
        default_frame: the frame or link ``fk``/``jacobian``/``ik`` use when none is named.
        poses: named configurations, joint name -> value (rad or m).
        kind: a free-form tag for listings ("arm", "humanoid", "mobile", ...).
    """

    name: str
    links: tuple[Link, ...]
    joints: tuple[Joint, ...]
    frames: tuple[Frame, ...] = ()
    poses: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    floating: bool = False
    default_frame: str | None = None
    kind: str = "robot"
    source: Path | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        links, joints = _validate_and_sort(self.name, self.links, self.joints)
        for lk in _links_with_bad_inertia(links):
            bad = None if lk.inertial is None else lk.inertial.problem()
            if bad is not None:
                where = f"{self.source}: " if self.source is not None else ""
                raise ModelError(f"{where}robot {self.name!r}: link {lk.name!r}: {bad}")
        object.__setattr__(self, "links", links)
        object.__setattr__(self, "joints", joints)
        object.__setattr__(self, "frames", tuple(self.frames))
        link_names = {lk.name for lk in links}
        names = set(link_names)
        for fr in self.frames:
            if fr.link not in link_names:
                raise ModelError(
                    f"robot {self.name!r}: frame {fr.name!r} is on unknown link {fr.link!r}"
                )
            if fr.name in names:
                raise ModelError(f"robot {self.name!r}: frame name {fr.name!r} is used twice")
            names.add(fr.name)
        if self.default_frame is not None and self.default_frame not in names:
            raise ModelError(
                f"robot {self.name!r}: default frame {self.default_frame!r} does not exist"
            )
        poses = {}
        jn = {j.name: j for j in joints}
        for pname, values in dict(self.poses).items():
            for jname, v in values.items():
                if jname not in jn:
                    raise UnknownNameError("joint", jname, self.joint_names)
                if not np.isfinite(v):
                    raise InputError(f"pose {pname!r}: joint {jname!r} value is not finite")
            poses[pname] = dict(values)
        object.__setattr__(self, "poses", poses)

    # ------------------------------------------------------------------ names
    @cached_property
    def link_names(self) -> tuple[str, ...]:
        return tuple(lk.name for lk in self.links)

    @cached_property
    def joint_names(self) -> tuple[str, ...]:
        """Actuated joints, in ``q`` order."""
        return tuple(j.name for j in self.joints if j.actuated)

    @property
    def tool_frame(self) -> str:
        """The frame or link ``fk``/``jacobian``/``ik`` use when none is named:
        :attr:`default_frame`, else the last link."""
        return self.default_frame or self.link_names[-1]

    @cached_property
    def prismatic_mask(self) -> np.ndarray:
        """``(nq,)`` bool: True where the ``q`` entry is a prismatic joint (metres),
        False where it is an angle (radians)."""
        kind = {j.name: j.type for j in self.joints}
        return np.array([kind[n] is JointType.PRISMATIC for n in self.joint_names], dtype=bool)

    @cached_property
    def frame_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.frames)

    @property
    def nq(self) -> int:
        return len(self.joint_names)

    @property
    def root(self) -> str:
        return self.links[0].name

    @cached_property
    def _joint_by_name(self) -> dict[str, Joint]:
        return {j.name: j for j in self.joints}

    @cached_property
    def _link_by_name(self) -> dict[str, Link]:
        return {lk.name: lk for lk in self.links}

    def joint(self, name: str) -> Joint:
        try:
            return self._joint_by_name[name]
        except KeyError:
            raise UnknownNameError("joint", name, [j.name for j in self.joints]) from None

    def link(self, name: str) -> Link:
        try:
            return self._link_by_name[name]
        except KeyError:
            raise UnknownNameError("link", name, self.link_names) from None

    def joint_index(self, name: str) -> int:
        """Index of an actuated joint in ``q``."""
        try:
            return self.joint_names.index(name)
        except ValueError:
            raise UnknownNameError("joint", name, self.joint_names) from None

    def parent_joint(self, link: str) -> Joint | None:
        self.link(link)
        for j in self.joints:
            if j.child == link:
                return j
        return None

    # ------------------------------------------------------------- limits/q
    @cached_property
    def lower(self) -> np.ndarray:
        """Lower position limits of the actuated joints ``(nq,)`` (``-inf`` if none)."""
        return readonly([self.joint(n).limits.lower for n in self.joint_names])

    @cached_property
    def upper(self) -> np.ndarray:
        return readonly([self.joint(n).limits.upper for n in self.joint_names])

    @cached_property
    def velocity_limits(self) -> np.ndarray:
        return readonly([self.joint(n).limits.velocity for n in self.joint_names])

    def zero(self) -> np.ndarray:
        """The zero configuration ``(nq,)``, clipped into the limits."""
        return np.clip(np.zeros(self.nq), self.lower, self.upper)

    def q_from(self, values: Mapping[str, float], base: ArrayLike | None = None) -> np.ndarray:
        """A ``q`` vector from joint values by name; others from ``base`` (or zero)."""
        q = self.zero() if base is None else np.array(base, dtype=np.float64)
        for name, v in values.items():
            q[self.joint_index(name)] = float(v)
        return q

    def pose(self, name: str) -> np.ndarray:
        """A named pose as a ``q`` vector."""
        if name not in self.poses:
            raise UnknownNameError("pose", name, list(self.poses))
        return self.q_from(self.poses[name])

    def check_limits(self, q: ArrayLike, tol: float = 1e-9) -> None:
        """Raise :class:`InputError` naming the first joint of ``q`` outside its limits."""
        qa = np.asarray(q, dtype=np.float64).reshape(-1, self.nq)
        if not np.all(np.isfinite(qa)):
            raise InputError(f"{self.name}: configuration contains NaN or inf")
        bad = (qa < self.lower - tol) | (qa > self.upper + tol)
        if np.any(bad):
            row, col = np.argwhere(bad)[0]
            raise InputError(
                f"{self.name}: joint {self.joint_names[col]!r} = {qa[row, col]:.6g} is outside "
                f"its limits [{self.lower[col]:.6g}, {self.upper[col]:.6g}]"
            )

    # --------------------------------------------------------- kinematics
    # Delegates to robotsim.kinematics (the primary API: kinematics.fk(model, q), ...).
    @cached_property
    def tree(self) -> Any:
        """The compiled :class:`robotsim.kinematics.tree.KinematicTree` the kernels run
        on (built on first use, cached on the model)."""
        return kinematics_engine().compile_tree(self)

    def fk(self, q: ArrayLike, link: str | None = None, threads: int | None = None) -> np.ndarray:
        """World pose ``(..., 4, 4)`` of ``link`` (a link or frame name; default frame if
        None) for ``q`` ``(..., nq)``, the root at the world origin; see
        :func:`robotsim.kinematics.fk`. ``threads``: for large batches (None: all
        cores), same result as one thread."""
        fast = self.tree._fast_fk()
        # From now on ``self.fk`` is the compiled tree's own function: the 1 us
        # single-configuration path has one Python call, not two.
        self.__dict__["fk"] = fast
        return fast(q, link, threads)  # type: ignore[no-any-return]

    def fk_all(self, q: ArrayLike, threads: int | None = None) -> np.ndarray:
        """Poses of every link ``(..., nlinks, 4, 4)`` in :attr:`link_names` order."""
        return self.tree.fk_all(q, threads)

    def jacobian(self, q: ArrayLike, link: str | None = None, local: bool = False) -> np.ndarray:
        """Geometric Jacobian ``(..., 6, nq)``, rows ``[v; w]``; see
        :func:`robotsim.kinematics.jacobian`."""
        return kinematics_engine().jacobian(self, q, link, local=local)  # type: ignore[no-any-return]

    def ik(
        self,
        target: ArrayLike,
        link: str | None = None,
        q0: ArrayLike | None = None,
        **options: Any,
    ) -> Any:
        """Inverse kinematics, an :class:`robotsim.kinematics.IKResult`; see
        :func:`robotsim.kinematics.solve_ik`."""
        return kinematics_engine().solve_ik(self, target, link=link, q0=q0, **options)

    def __getstate__(self) -> dict[str, Any]:
        # the compiled kinematics is rebuilt on demand, not pickled
        return {k: v for k, v in self.__dict__.items() if k not in ("tree", "fk", "dynamics")}

    # ----------------------------------------------------------- dynamics
    # Delegates to robotsim.kinematics (kinematics.inverse_dynamics(model, ...), ...).
    @cached_property
    def dynamics(self) -> Any:
        """The compiled :class:`robotsim.kinematics.dynamics.Dynamics` arrays (built on
        first use, cached on the model)."""
        return kinematics_engine().compile_dynamics(self)

    def inverse_dynamics(
        self,
        q: ArrayLike,
        qd: ArrayLike,
        qdd: ArrayLike,
        gravity: ArrayLike | None = None,
        passive: bool = True,
    ) -> np.ndarray:
        """Joint torques/forces ``(..., nq)`` that produce ``qdd`` at ``(q, qd)`` (root
        fixed, gravity -z by default), with the joints' armature, damping, friction and
        springs unless ``passive=False``; see :func:`robotsim.kinematics.inverse_dynamics`."""
        return kinematics_engine().inverse_dynamics(  # type: ignore[no-any-return]
            self, q, qd, qdd, gravity=gravity, passive=passive
        )

    def gravity_torques(self, q: ArrayLike, gravity: ArrayLike | None = None) -> np.ndarray:
        """Torques ``(..., nq)`` holding ``q`` still against gravity (N m or N)."""
        return kinematics_engine().gravity_torques(self, q, gravity=gravity)  # type: ignore[no-any-return]

    def mass_matrix(self, q: ArrayLike) -> np.ndarray:
        """Joint-space inertia ``(..., nq, nq)`` including armature (kg m^2, kg)."""
        return kinematics_engine().mass_matrix(self, q)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return (
            f"RobotModel({self.name!r}, links={len(self.links)}, joints={len(self.joints)}, "
            f"nq={self.nq}, floating={self.floating})"
        )


KINEMATICS_ENGINE = "robotsim.kinematics"
"""Import path of the package behind ``RobotModel.tree/fk/jacobian/ik``; it provides
``compile_tree(model)``, ``jacobian(model, ...)`` and ``solve_ik(model, ...)``."""


def kinematics_engine() -> ModuleType:
    """The kinematics package, loaded by its import path on first use (the model layer
    sits below it and does not import it)."""
    return importlib.import_module(KINEMATICS_ENGINE)


def _validate_and_sort(
    robot: str, links: Sequence[Link], joints: Sequence[Joint]
) -> tuple[tuple[Link, ...], tuple[Joint, ...]]:
    """Check the tree (unique names, one root, no dangling parent, no cycle, valid
    mimics) and return links/joints in topological order, root first."""
    if not links:
        raise ModelError(f"robot {robot!r} has no links")
    by_name: dict[str, Link] = {}
    for lk in links:
        if lk.name in by_name:
            raise ModelError(f"robot {robot!r}: link name {lk.name!r} is used twice")
        by_name[lk.name] = lk
    jnames: set[str] = set()
    child_of: dict[str, Joint] = {}
    for j in joints:
        if j.name in jnames:
            raise ModelError(f"robot {robot!r}: joint name {j.name!r} is used twice")
        jnames.add(j.name)
        if j.parent not in by_name:
            raise ModelError(
                f"robot {robot!r}: joint {j.name!r} has unknown parent link {j.parent!r}"
            )
        if j.child not in by_name:
            raise ModelError(
                f"robot {robot!r}: joint {j.name!r} has unknown child link {j.child!r}"
            )
        if j.child in child_of:
            raise ModelError(
                f"robot {robot!r}: link {j.child!r} is the child of two joints "
                f"({child_of[j.child].name!r} and {j.name!r})"
            )
        if j.type is JointType.FLOATING:
            raise ModelError(
                f"robot {robot!r}: joint {j.name!r} is floating; a floating joint is only "
                "allowed between the world and the root (set RobotModel.floating instead)"
            )
        child_of[j.child] = j
    roots = [lk.name for lk in links if lk.name not in child_of]
    if len(roots) != 1:
        if not roots:
            raise ModelError(f"robot {robot!r}: the joints form a cycle (no root link)")
        raise ModelError(
            f"robot {robot!r}: expected one root link, found {len(roots)}: {roots[:10]}"
        )
    children: dict[str, list[Joint]] = {}
    for j in joints:
        children.setdefault(j.parent, []).append(j)
    # Depth-first pre-order, children in declaration order (MuJoCo's and most URDF
    # tools' order): a limb's joints stay together in q.
    order_links = [by_name[roots[0]]]
    order_joints: list[Joint] = []
    stack = list(reversed(children.get(roots[0], [])))
    seen = {roots[0]}
    while stack:
        j = stack.pop()
        if j.child in seen:
            raise ModelError(f"robot {robot!r}: joint {j.name!r} closes a cycle")
        seen.add(j.child)
        order_joints.append(j)
        order_links.append(by_name[j.child])
        stack.extend(reversed(children.get(j.child, [])))
    if len(order_links) != len(links):
        cyc = sorted(set(by_name) - seen)
        raise ModelError(f"robot {robot!r}: links {cyc[:10]} are part of a cycle")
    # Mimic checks:
    actuated = {j.name for j in order_joints if j.actuated}
    for j in order_joints:
        if j.mimic is not None:
            if not j.movable:
                raise ModelError(f"robot {robot!r}: fixed joint {j.name!r} cannot mimic")
            if j.mimic.joint not in actuated:
                raise ModelError(
                    f"robot {robot!r}: joint {j.name!r} mimics {j.mimic.joint!r}, which is "
                    "not an actuated joint"
                )
    return tuple(order_links), tuple(order_joints)
