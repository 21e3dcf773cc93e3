"""Compile a :class:`RobotModel` into flat arrays for the kinematic kernels.

Each joint ``T = origin @ M(axis, q) @ post`` is rewritten as ``A @ Z(q) @ B`` with
``A = origin @ C`` and ``B = C^T @ post``, where the rotation ``C`` maps the local z
axis onto ``axis``: every motion then happens about/along z, which the kernels exploit.
Chains to a single frame fuse consecutive fixed transforms into one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import KinematicsError, UnknownNameError
from robotsim.kinematics import kernels
from robotsim.kinematics.threads import run_rows
from robotsim.model.robot import JointType

if TYPE_CHECKING:
    from robotsim.model.robot import RobotModel

__all__ = ["Chain", "KinematicTree"]

_F8 = np.dtype(np.float64)
_ndarray = np.ndarray
_empty = np.empty


def _z_to_axis(axis: np.ndarray) -> np.ndarray:
    """A rotation C with C @ [0, 0, 1] = axis (axis is a unit vector)."""
    z = np.array([0.0, 0.0, 1.0])
    c = float(axis @ z)
    if c > 1.0 - 1e-15:
        return np.eye(3)
    if c < -1.0 + 1e-15:
        return np.diag([1.0, -1.0, -1.0])
    v = np.cross(z, axis)
    s = np.linalg.norm(v)
    K = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]]) / s
    ang = np.arctan2(s, c)
    return np.eye(3) + np.sin(ang) * K + (1 - np.cos(ang)) * (K @ K)


@dataclass(frozen=True)
class Chain:
    """Fused arrays of the path from the root to one frame (see kernels.chain_fk)."""

    F: np.ndarray  # (K+1, 3, 4)
    jt: np.ndarray  # (K,) int64
    qi: np.ndarray  # (K,) int64
    mult: np.ndarray  # (K,)
    off: np.ndarray  # (K,)
    link: int  # index of the link the frame is on
    prog: np.ndarray  # (K+1, 16) the same, packed for kernels.chain_fk(_one), read-only
    address: int  # address of prog's data, what kernels.chain_fk_one takes


class KinematicTree:
    """Flat arrays of a model's tree plus cached chains; built once per model."""

    def __init__(self, model: RobotModel) -> None:
        self.model = model
        L = len(model.links)
        self.nq = model.nq
        self._shape1 = (model.nq,)
        index = {name: i for i, name in enumerate(model.link_names)}
        self.link_index = index
        self.parent = np.full(L, -1, dtype=np.int64)
        self.jt = np.zeros(L, dtype=np.int64)
        self.qi = np.zeros(L, dtype=np.int64)
        self.mult = np.ones(L)
        self.off = np.zeros(L)
        self.A = np.zeros((L, 3, 4))
        self.B = np.zeros((L, 3, 4))
        self.A[0, :, :3] = np.eye(3)
        self.B[0, :, :3] = np.eye(3)
        qpos = {name: k for k, name in enumerate(model.joint_names)}
        for joint in model.joints:
            i = index[joint.child]
            self.parent[i] = index[joint.parent]
            if joint.movable:
                C = np.eye(4)
                C[:3, :3] = _z_to_axis(np.asarray(joint.axis))
                A = joint.origin @ C
                B = C.T @ joint.post
                self.jt[i] = kernels.PRISMATIC if joint.type is JointType.PRISMATIC else 1
                if joint.mimic is not None:
                    self.qi[i] = qpos[joint.mimic.joint]
                    self.mult[i] = joint.mimic.multiplier
                    self.off[i] = joint.mimic.offset
                else:
                    self.qi[i] = qpos[joint.name]
            else:
                A = joint.origin @ joint.post
                B = np.eye(4)
            self.A[i] = A[:3]
            self.B[i] = B[:3]
        self.frames: dict[str, tuple[int, np.ndarray]] = {
            name: (i, np.eye(4)) for name, i in index.items()
        }
        for fr in model.frames:
            self.frames[fr.name] = (index[fr.link], np.asarray(fr.T_link_frame))
        self._chains: dict[str | None, Chain] = {}
        # the same tree packed for kernels.anchored_fk_at (read-only, kept alive here)
        packed = np.zeros((L, kernels.ANCHORED_ROW))
        packed[:, 0], packed[:, 1], packed[:, 2] = self.parent, self.jt, self.qi
        packed[:, 3], packed[:, 4] = self.mult, self.off
        packed[:, 5:17] = self.A.reshape(L, 12)
        packed[:, 17:29] = self.B.reshape(L, 12)
        packed.setflags(write=False)
        self.packed = packed
        self.packed_address = int(packed.ctypes.data)

    # Compiled once from a frozen model and read by address (Chain.address,
    # packed_address): a copy is the tree itself, never arrays at stale addresses.
    def __copy__(self) -> KinematicTree:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> KinematicTree:
        return self

    # ------------------------------------------------------------------
    def frame(self, name: str | None) -> tuple[int, np.ndarray]:
        """(link index, T_link_frame) of a link or frame name (default frame if None)."""
        if name is None:
            name = self.model.tool_frame
        try:
            return self.frames[name]
        except KeyError:
            raise UnknownNameError("link or frame", name, list(self.frames)) from None

    def path(self, link: int) -> list[int]:
        """Link indices from the root (excluded) down to ``link`` (included)."""
        out = []
        while link > 0:
            out.append(link)
            link = int(self.parent[link])
        return out[::-1]

    def chain(self, name: str | None) -> Chain:
        ch = self._chains.get(name)
        if ch is not None:
            return ch
        li, T_link_frame = self.frame(name)
        acc = np.eye(4)
        Fs, jts, qis, mults, offs = [], [], [], [], []

        def full(M34: np.ndarray) -> np.ndarray:
            return np.vstack([M34, [0.0, 0.0, 0.0, 1.0]])

        for i in self.path(li):
            acc = acc @ full(self.A[i])
            if self.jt[i] != kernels.FIXED:
                Fs.append(acc[:3].copy())
                jts.append(self.jt[i])
                qis.append(self.qi[i])
                mults.append(self.mult[i])
                offs.append(self.off[i])
                acc = full(self.B[i])
        acc = acc @ T_link_frame
        Fs.append(acc[:3].copy())
        K = len(jts)
        prog = np.zeros((K + 1, 16))
        prog[0, 0] = K
        prog[0, 4:] = Fs[0].reshape(12)
        prog[1:, 0], prog[1:, 1], prog[1:, 2], prog[1:, 3] = jts, qis, mults, offs
        prog[1:, 4:] = np.array(Fs[1:]).reshape(K, 12)
        prog.setflags(write=False)
        ch = Chain(
            F=np.ascontiguousarray(np.array(Fs)),
            jt=np.array(jts, dtype=np.int64),
            qi=np.array(qis, dtype=np.int64),
            mult=np.array(mults, dtype=np.float64),
            off=np.array(offs, dtype=np.float64),
            link=li,
            prog=prog,
            address=int(prog.ctypes.data),
        )
        self._chains[name] = ch
        return ch

    def _q2(self, q: ArrayLike) -> tuple[np.ndarray, tuple[int, ...]]:
        qa = np.asarray(q, dtype=np.float64)
        if qa.ndim == 0 or qa.shape[-1] != self.nq:
            raise KinematicsError(
                f"{self.model.name}: q must have shape (..., {self.nq}) for joints "
                f"{list(self.model.joint_names)}, got shape {qa.shape}"
            )
        batch = qa.shape[:-1]
        return np.ascontiguousarray(qa.reshape(math.prod(batch), self.nq)), batch

    # ------------------------------------------------------------------
    def fk(self, q: ArrayLike, name: str | None = None, threads: int | None = None) -> np.ndarray:
        """Pose ``(..., 4, 4)`` of one link or frame, root at the identity.

        ``threads``: threads for a large batch (None: all cores); same result as one.
        One float64 configuration ``(nq,)`` of an already used frame takes a fast path
        (the compiled entry point, no type dispatch, no copies): see :meth:`_fast_fk`.
        """
        if q.__class__ is _ndarray and q.shape == self._shape1 and q.dtype is _F8:
            ch = self._chains.get(name) or self.chain(name)
            out = _empty((4, 4))
            kernels.CHAIN_FK_ONE(q, out, ch.address)
            return out
        q2, batch = self._q2(q)
        prog = self.chain(name).prog
        out = np.empty((q2.shape[0], 4, 4))

        def rows(a: int, b: int) -> None:
            kernels.chain_fk(q2[a:b], prog, out[a:b])

        run_rows(rows, q2.shape[0], threads)
        return out.reshape(*batch, 4, 4)

    def _fast_fk(self) -> Callable[..., np.ndarray]:
        """:meth:`fk` as a closure over this tree's arrays: one Python frame and no
        attribute lookups on the single-configuration path (``model.fk`` becomes this
        function after its first call); the default frame needs no lookup at all."""
        # name -> (address, prog): the tuple keeps each packed chain alive
        progs = {name: (ch.address, ch.prog) for name, ch in self._chains.items()}
        default = self.chain(None)
        default_address = default.address
        shape1 = self._shape1
        general = self.fk
        fk_one = kernels.CHAIN_FK_ONE
        ndarray, f8, empty = _ndarray, _F8, _empty

        # the parameter is named as RobotModel.fk names it: callers pass link=...
        def fk(q: ArrayLike, link: str | None = None, threads: int | None = None) -> np.ndarray:
            if q.__class__ is ndarray and q.shape == shape1 and q.dtype is f8:  # type: ignore[union-attr]
                if link is None:
                    out = empty((4, 4))
                    fk_one(q, out, default_address)
                    return out
                chain = progs.get(link)
                if chain is not None:
                    out = empty((4, 4))
                    fk_one(q, out, chain[0])
                    return out
                ch = self.chain(link)
                progs[link] = (ch.address, ch.prog)
            return general(q, link, threads)

        fk.__doc__ = KinematicTree.fk.__doc__
        fk.chain = default  # type: ignore[attr-defined]  # holds the array at default_address
        return fk

    def fk_all(self, q: ArrayLike, threads: int | None = None) -> np.ndarray:
        """Poses ``(..., L, 4, 4)`` of every link, root at the identity."""
        q2, batch = self._q2(q)
        L = self.parent.shape[0]
        out = np.empty((q2.shape[0], L, 4, 4))

        def rows(a: int, b: int) -> None:
            kernels.tree_fk(q2[a:b], self.parent, self.jt, self.qi, self.mult, self.off,
                            self.A, self.B, out[a:b])  # fmt: skip

        run_rows(rows, q2.shape[0], threads, min_rows=max(64, 4096 // L))
        return out.reshape(*batch, L, 4, 4)

    def fk_frames(self, q: ArrayLike, names: list[str], threads: int | None = None) -> np.ndarray:
        """Poses ``(..., len(names), 4, 4)`` of several links/frames from one tree pass."""
        allT = self.fk_all(q, threads)
        idx = [self.frame(n) for n in names]
        return np.stack([allT[..., i, :, :] @ T for i, T in idx], axis=-3)

    def jacobian_world(
        self, q: ArrayLike, name: str | None = None, threads: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(pose ``(..., 4, 4)``, world-aligned Jacobian ``(..., 6, nq)``)."""
        q2, batch = self._q2(q)
        ch = self.chain(name)
        N = q2.shape[0]
        T = np.empty((N, 4, 4))
        J = np.empty((N, 6, self.nq))

        def rows(a: int, b: int) -> None:
            kernels.chain_jacobian(q2[a:b], ch.F, ch.jt, ch.qi, ch.mult, ch.off, T[a:b], J[a:b])

        run_rows(rows, N, threads)
        return T.reshape(*batch, 4, 4), J.reshape(*batch, 6, self.nq)
