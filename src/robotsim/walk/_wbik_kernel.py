"""Whole-body IK of a floating biped, compiled (numba): see :mod:`robotsim.walk.wbik`.

Unknowns (columns): the root position (3), a rotation of the root about its origin (3,
world axes) and the leg joints (``var``: q columns); every other joint holds its value.
Residual rows: each foot's position (3) and orientation (3), the centre of mass (3)
-- the primary task -- and the root's orientation (3) against its target, the
secondary task, solved in the null space of the primary one (a two-level hierarchy:
Siciliano and Slotine, "A general framework for managing multiple tasks in highly
redundant robotic systems", ICAR 1991): the feet and the CoM are met exactly, the torso
as upright as they let it be. Damped Gauss-Newton steps, joints clipped to their limits
after every step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["wbik_path", "wbik_solve"]


@njit(cache=True, inline="always")
def _compose_into(P, A, out):  # type: ignore[no-untyped-def]
    """``out = P @ A`` as rigid transforms (3, 4)."""
    for r in range(3):
        p0, p1, p2, p3 = P[r, 0], P[r, 1], P[r, 2], P[r, 3]
        for c in range(3):
            out[r, c] = p0 * A[0, c] + p1 * A[1, c] + p2 * A[2, c]
        out[r, 3] = p0 * A[0, 3] + p1 * A[1, 3] + p2 * A[2, 3] + p3


@njit(cache=True)
def tree_world(q, R0, p0, parent, jt, qi, mult, off, A, B, T, Z):  # type: ignore[no-untyped-def]
    """World poses ``T`` (L, 3, 4) of every link with the root at ``(R0, p0)``; ``Z``
    (L, 3, 4) receives each joint's frame after its motion (z = the axis, the origin
    on it)."""
    L = parent.shape[0]
    for r in range(3):
        for c in range(3):
            T[0, r, c] = R0[r, c]
        T[0, r, 3] = p0[r]
    for i in range(1, L):
        J = Z[i]
        _compose_into(T[parent[i]], A[i], J)
        if jt[i] == 1:
            x = mult[i] * q[qi[i]] + off[i]
            c, s = np.cos(x), np.sin(x)
            for r in range(3):
                a0, a1 = J[r, 0], J[r, 1]
                J[r, 0] = a0 * c + a1 * s
                J[r, 1] = -a0 * s + a1 * c
        elif jt[i] != 0:
            x = mult[i] * q[qi[i]] + off[i]
            for r in range(3):
                J[r, 3] += J[r, 2] * x
        _compose_into(J, B[i], T[i])


@njit(cache=True)
def _orientation_error(F, tg, out, o, w):  # type: ignore[no-untyped-def]
    """``out[o:o+3] = w * 0.5 sum_k f_k x t_k`` (sin(angle) axis from the rotation of
    ``F`` to ``tg``; zero at the solution)."""
    ex, ey, ez = 0.0, 0.0, 0.0
    for k in range(3):
        fx, fy, fz = F[0, k], F[1, k], F[2, k]
        tx, ty, tz = tg[0, k], tg[1, k], tg[2, k]
        ex += fy * tz - fz * ty
        ey += fz * tx - fx * tz
        ez += fx * ty - fy * tx
    out[o] = 0.5 * ex * w
    out[o + 1] = 0.5 * ey * w
    out[o + 2] = 0.5 * ez * w


@njit(cache=True)
def _residual_jacobian(  # type: ignore[no-untyped-def]
    q,
    R0,
    p0,
    Rt,
    tree,
    mass,
    com_local,
    foot_link,
    foot_T,
    on_path,
    col_var,
    targets,
    com_t,
    wrot,
    wtorso,
    T,
    Z,
    F,
    Sm,
    Sc,
    r,
    Jm,
):
    parent, jt, qi, mult, off, A, B = tree
    tree_world(q, R0, p0, parent, jt, qi, mult, off, A, B, T, Z)
    L = parent.shape[0]
    # centre of mass and subtree sums
    for i in range(L):
        Ti = T[i]
        cl = com_local[i]
        mi = mass[i]
        for a in range(3):
            Sc[i, a] = mi * (Ti[a, 0] * cl[0] + Ti[a, 1] * cl[1] + Ti[a, 2] * cl[2] + Ti[a, 3])
        Sm[i] = mi
    for i in range(L - 1, 0, -1):
        pa = parent[i]
        Sm[pa] += Sm[i]
        Sc[pa, 0] += Sc[i, 0]
        Sc[pa, 1] += Sc[i, 1]
        Sc[pa, 2] += Sc[i, 2]
    M = Sm[0]
    Jm[:, :] = 0.0
    for f in range(2):
        _compose_into(T[foot_link[f]], foot_T[f], F)
        tg = targets[f]
        o = 6 * f
        for a in range(3):
            r[o + a] = tg[a, 3] - F[a, 3]
        _orientation_error(F, tg, r, o + 3, wrot)
        dx, dy, dz = F[0, 3] - p0[0], F[1, 3] - p0[1], F[2, 3] - p0[2]
        for a in range(3):
            Jm[o + a, a] = 1.0  # the root's translation moves the foot
            Jm[o + 3 + a, 3 + a] = wrot  # its rotation turns it
        # ... and moves it: e_k x (p_foot - p_root)
        Jm[o + 1, 3] = -dz
        Jm[o + 2, 3] = dy
        Jm[o + 0, 4] = dz
        Jm[o + 2, 4] = -dx
        Jm[o + 0, 5] = -dy
        Jm[o + 1, 5] = dx
        for i in range(1, L):
            if jt[i] == 0 or not on_path[f, i]:
                continue
            k = col_var[qi[i]]
            if k < 0:
                continue
            Zi = Z[i]
            zx, zy, zz = Zi[0, 2], Zi[1, 2], Zi[2, 2]
            m = mult[i]
            c = 6 + k
            if jt[i] == 1:
                dx, dy, dz = F[0, 3] - Zi[0, 3], F[1, 3] - Zi[1, 3], F[2, 3] - Zi[2, 3]
                Jm[o + 0, c] += m * (zy * dz - zz * dy)
                Jm[o + 1, c] += m * (zz * dx - zx * dz)
                Jm[o + 2, c] += m * (zx * dy - zy * dx)
                Jm[o + 3, c] += m * zx * wrot
                Jm[o + 4, c] += m * zy * wrot
                Jm[o + 5, c] += m * zz * wrot
            else:
                Jm[o + 0, c] += m * zx
                Jm[o + 1, c] += m * zy
                Jm[o + 2, c] += m * zz
        # rotation rows in the target sole's axes: roll (x), pitch (y), yaw (z)
        for c in range(Jm.shape[1] + 1):
            if c == Jm.shape[1]:
                vx, vy, vz = r[o + 3], r[o + 4], r[o + 5]
            else:
                vx, vy, vz = Jm[o + 3, c], Jm[o + 4, c], Jm[o + 5, c]
            ax = tg[0, 0] * vx + tg[1, 0] * vy + tg[2, 0] * vz
            ay = tg[0, 1] * vx + tg[1, 1] * vy + tg[2, 1] * vz
            az = tg[0, 2] * vx + tg[1, 2] * vy + tg[2, 2] * vz
            if c == Jm.shape[1]:
                r[o + 3], r[o + 4], r[o + 5] = ax, ay, az
            else:
                Jm[o + 3, c], Jm[o + 4, c], Jm[o + 5, c] = ax, ay, az
    cx, cy, cz = Sc[0, 0] / M, Sc[0, 1] / M, Sc[0, 2] / M
    r[12], r[13], r[14] = com_t[0] - cx, com_t[1] - cy, com_t[2] - cz
    dx, dy, dz = cx - p0[0], cy - p0[1], cz - p0[2]
    for a in range(3):
        Jm[12 + a, a] = 1.0
    Jm[13, 3] = -dz
    Jm[14, 3] = dy
    Jm[12, 4] = dz
    Jm[14, 4] = -dx
    Jm[12, 5] = -dy
    Jm[13, 5] = dx
    for i in range(1, L):
        if jt[i] == 0:
            continue
        k = col_var[qi[i]]
        if k < 0:
            continue
        Zi = Z[i]
        zx, zy, zz = Zi[0, 2], Zi[1, 2], Zi[2, 2]
        m = mult[i] / M
        c = 6 + k
        if jt[i] == 1:
            # d(com)/dq = z x (sum of m c below - (mass below) o) / M
            dx = Sc[i, 0] - Sm[i] * Zi[0, 3]
            dy = Sc[i, 1] - Sm[i] * Zi[1, 3]
            dz = Sc[i, 2] - Sm[i] * Zi[2, 3]
            Jm[12, c] += m * (zy * dz - zz * dy)
            Jm[13, c] += m * (zz * dx - zx * dz)
            Jm[14, c] += m * (zx * dy - zy * dx)
        else:
            Jm[12, c] += m * Sm[i] * zx
            Jm[13, c] += m * Sm[i] * zy
            Jm[14, c] += m * Sm[i] * zz
    # the torso: its orientation against the target, softly
    _orientation_error(T[0], Rt, r, 15, wrot * wtorso)
    for a in range(3):
        Jm[15 + a, 3 + a] = wrot * wtorso


@njit(cache=True)
def _cholesky_solve(A, m, Y, ncol):  # type: ignore[no-untyped-def]
    """Solve ``A[:m, :m] X = Y[:m, :ncol]`` in place (``A`` symmetric positive definite,
    overwritten by its Cholesky factor; ``Y`` becomes ``X``)."""
    for j in range(m):
        s = A[j, j]
        for k in range(j):
            s -= A[j, k] * A[j, k]
        d = np.sqrt(max(s, 1e-300))
        A[j, j] = d
        for i in range(j + 1, m):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[j, k]
            A[i, j] = s / d
    for c in range(ncol):
        for i in range(m):
            s = Y[i, c]
            for k in range(i):
                s -= A[i, k] * Y[k, c]
            Y[i, c] = s / A[i, i]
        for i in range(m - 1, -1, -1):
            s = Y[i, c]
            for k in range(i + 1, m):
                s -= A[k, i] * Y[k, c]
            Y[i, c] = s / A[i, i]


@njit(cache=True)
def _solve_hierarchy(Jm, r, order, m1, lam, mu, dx, A, Y, P, J2N, B, y2):  # type: ignore[no-untyped-def]
    """``dx`` (n,) for the rows ``order[:m1]`` (primary) and, in their null space, the
    rows ``order[m1:]`` (secondary): ``dx1 = J1^T (J1 J1^T + lam I)^-1 r1``,
    ``N = I - J1^T (J1 J1^T + lam I)^-1 J1``,
    ``dx = dx1 + (J2 N)^T (J2 N (J2 N)^T + mu I)^-1 (r2 - J2 dx1)``: the secondary step
    is damped by ``mu`` so that where the primary task leaves it (almost) no freedom, it
    does not pull the primary task off. The other arguments are work arrays: ``A``
    (m1, m1), ``Y`` (m1, n + 1), ``P`` (n, n), ``J2N`` (m2, n), ``B`` (m2, m2), ``y2``
    (m2, 1)."""
    n = Jm.shape[1]
    m2 = order.shape[0] - m1
    for i in range(m1):
        ri = order[i]
        for j in range(i + 1):
            rj = order[j]
            s = 0.0
            for k in range(n):
                s += Jm[ri, k] * Jm[rj, k]
            A[i, j] = s
            A[j, i] = s
        A[i, i] += lam
        Y[i, 0] = r[ri]
        for k in range(n):
            Y[i, 1 + k] = Jm[ri, k]
    _cholesky_solve(A, m1, Y, n + 1)
    for a in range(n):
        s = 0.0
        for i in range(m1):
            s += Jm[order[i], a] * Y[i, 0]
        dx[a] = s
        for b in range(n):
            s = 0.0
            for i in range(m1):
                s += Jm[order[i], a] * Y[i, 1 + b]
            P[a, b] = s
    for i in range(m2):
        ri = order[m1 + i]
        for b in range(n):
            s = Jm[ri, b]
            for k in range(n):
                s -= Jm[ri, k] * P[k, b]
            J2N[i, b] = s
    for i in range(m2):
        for j in range(m2):
            s = 0.0
            for k in range(n):
                s += J2N[i, k] * J2N[j, k]
            B[i, j] = s
        B[i, i] += mu
        ri = order[m1 + i]
        s = r[ri]
        for k in range(n):
            s -= Jm[ri, k] * dx[k]
        y2[i, 0] = s
    _cholesky_solve(B, m2, y2, 1)
    for a in range(n):
        s = 0.0
        for i in range(m2):
            s += J2N[i, a] * y2[i, 0]
        dx[a] += s


@njit(cache=True)
def _rotate_left(R, dx, dy, dz):  # type: ignore[no-untyped-def]
    """``R = exp([d]x) R`` in place (Rodrigues)."""
    th = np.sqrt(dx * dx + dy * dy + dz * dz)
    if th < 1e-18:
        return
    kx, ky, kz = dx / th, dy / th, dz / th
    s, c = np.sin(th), np.cos(th)
    C = 1.0 - c
    E = np.empty((3, 3))
    E[0, 0], E[0, 1], E[0, 2] = c + kx * kx * C, kx * ky * C - kz * s, kx * kz * C + ky * s
    E[1, 0], E[1, 1], E[1, 2] = ky * kx * C + kz * s, c + ky * ky * C, ky * kz * C - kx * s
    E[2, 0], E[2, 1], E[2, 2] = kz * kx * C - ky * s, kz * ky * C + kx * s, c + kz * kz * C
    for c in range(3):
        r0, r1, r2 = R[0, c], R[1, c], R[2, c]
        for i in range(3):
            R[i, c] = E[i, 0] * r0 + E[i, 1] * r1 + E[i, 2] * r2


@njit(cache=True)
def wbik_solve(  # type: ignore[no-untyped-def]
    q,
    p,
    R,
    Rt,
    tree,
    mass,
    com_local,
    foot_link,
    foot_T,
    on_path,
    var,
    lo,
    hi,
    targets,
    com_t,
    wrot,
    wroll,
    primary,
    tol,
    max_iter,
    retries,
    err,
):
    """Solve in place: ``q`` (nq,), the root position ``p`` (3,) and orientation ``R``
    (3, 3) start from a guess; ``Rt`` (3, 3) is the torso's target orientation.
    ``primary`` (18,) bool: which residual rows are the primary task (the rows of each
    foot are position x y z then roll, pitch, yaw in the sole's axes; then the CoM, then
    the torso, always secondary); a foot's secondary roll row is weighted ``wroll``.
    ``err`` (6,) receives the largest foot position error (m), the largest foot
    rotation error among the primary rows (rad, as sin), the CoM error (m), the
    iterations used, the torso's deviation from its target (rad) and the largest
    secondary sole roll or yaw (rad)."""
    L = tree[0].shape[0]
    nv = var.shape[0]
    n = 6 + nv
    col_var = np.full(q.shape[0], -1)
    for k in range(nv):
        col_var[var[k]] = k
    m1 = 0
    for i in range(18):
        if primary[i]:
            m1 += 1
    order = np.empty(18, dtype=np.int64)
    a, b = 0, m1
    for i in range(18):
        if primary[i]:
            order[a] = i
            a += 1
        else:
            order[b] = i
            b += 1
    m2 = 18 - m1
    T = np.empty((L, 3, 4))
    Z = np.zeros((L, 3, 4))
    F = np.empty((3, 4))
    Sm = np.empty(L)
    Sc = np.empty((L, 3))
    r = np.empty(18)
    Jm = np.empty((18, n))
    dx = np.empty(n)
    A = np.empty((m1, m1))
    Y = np.empty((m1, n + 1))
    P = np.empty((n, n))
    J2N = np.empty((m2, n))
    B = np.empty((m2, m2))
    y2 = np.empty((m2, 1))
    it = 0
    best = 1e300
    q_old, p_old, R_old = q.copy(), p.copy(), R.copy()
    e1_old = 1e300
    retry = 0  # a step that made the primary task worse is retried (at most ``retries``
    # times): 1 without the secondary task, 2 and 3 at half and a quarter of it
    for it in range(max_iter + 1):
        _residual_jacobian(
            q,
            R,
            p,
            Rt,
            tree,
            mass,
            com_local,
            foot_link,
            foot_T,
            on_path,
            col_var,
            targets,
            com_t,
            wrot,
            1.0,
            T,
            Z,
            F,
            Sm,
            Sc,
            r,
            Jm,
        )
        for f in range(2):  # a secondary sole row counts less than the torso
            for k in (3, 5):
                if not primary[6 * f + k]:
                    r[6 * f + k] *= wroll
                    for c in range(n):
                        Jm[6 * f + k, c] *= wroll
        ep, er, eroll = 0.0, 0.0, 0.0
        for f in range(2):
            o = 6 * f
            ep = max(ep, np.sqrt(r[o] ** 2 + r[o + 1] ** 2 + r[o + 2] ** 2))
            rot = 0.0
            for k in range(3):
                if primary[o + 3 + k]:
                    rot += r[o + 3 + k] ** 2
            er = max(er, np.sqrt(rot) / wrot)
            for k in (3, 5):
                if not primary[o + k]:
                    eroll = max(eroll, abs(r[o + k]) / (wrot * wroll))
        ec = np.sqrt(r[12] ** 2 + r[13] ** 2 + r[14] ** 2)
        e1 = 0.0
        for i in range(m1):
            e1 += r[order[i]] ** 2
        if e1 > e1_old * (1 + 1e-9) + 1e-30 and retry < retries and it < max_iter:
            q[:] = q_old  # the last step made the feet or the CoM worse: back, retry
            p[:] = p_old
            R[:, :] = R_old
            retry += 1
            continue
        e2 = 0.0
        for i in range(m1, 18):
            e2 += r[order[i]] ** 2
        et = np.sqrt(r[15] ** 2 + r[16] ** 2 + r[17] ** 2) / wrot
        err[0], err[1], err[2], err[3], err[4], err[5] = ep, er, ec, it, et, eroll
        if it == max_iter:
            break
        sec = np.sqrt(e2)
        if max(ep, er, ec) < tol:
            # the primary task holds: stop when the secondary holds too or gains little
            if sec < tol * wrot or best - sec < 0.01 * best:
                break
        best = min(best, sec)
        # Levenberg-Marquardt damping from the residual (Sugihara, "Solvability-
        # unconcerned inverse kinematics by the Levenberg-Marquardt method", IEEE T-RO
        # 2011): large far from a solution, vanishing at it; robust near singularities.
        # The secondary step is damped the same way, with a floor (1e-4 of the squared
        # toe-length lever) for the directions the legs leave it almost no control over
        mu = e2 + 1e-4 * wrot * wrot if retry == 0 else 1e30  # retries: primary only
        _solve_hierarchy(Jm, r, order, m1, e1 + 1e-14, mu, dx, A, Y, P, J2N, B, y2)
        big = 0.0
        for k in range(3, n):
            big = max(big, abs(dx[k]))
        s = 1.0 if big <= 0.3 else 0.3 / big
        if retry >= 2:
            s *= 0.5 ** (retry - 1)
        q_old[:] = q
        p_old[:] = p
        R_old[:, :] = R
        e1_old = e1
        retry = 0
        for a in range(3):
            p[a] += s * dx[a]
        _rotate_left(R, s * dx[3], s * dx[4], s * dx[5])
        for k in range(nv):
            c = var[k]
            v = q[c] + s * dx[6 + k]
            q[c] = min(max(v, lo[k]), hi[k])
    return it


@njit(cache=True)
def wbik_path(  # type: ignore[no-untyped-def]
    q0,
    p0,
    R0,
    Rts,
    tree,
    mass,
    com_local,
    foot_link,
    foot_T,
    on_path,
    var,
    lo,
    hi,
    targets,
    coms,
    wrot,
    wroll,
    primary,
    tol,
    max_iter,
    retries,
    Q,
    P,
    RR,
    E,
    stop_pos,
    stop_rot,
):
    """Solve a path of ``n`` samples, each warm-started from the one before: torso
    targets ``Rts`` (n, 3, 3), foot targets ``targets`` (n, 2, 3, 4), CoM targets
    ``coms`` (n, 3); the first from ``q0``, ``p0``, ``R0``. Out: joints ``Q`` (n, nq),
    root positions ``P`` (n, 3) and orientations ``RR`` (n, 3, 3), errors ``E`` (n, 6)
    as in :func:`wbik_solve`. Stops at the first sample that misses its feet or CoM by
    more than ``stop_pos`` (m) or its primary rotation rows by ``stop_rot`` (rad);
    returns the number of samples solved (that one included)."""
    q = q0.copy()
    p = p0.copy()
    R = R0.copy()
    err = np.empty(6)
    n = Rts.shape[0]
    for k in range(n):
        wbik_solve(
            q,
            p,
            R,
            Rts[k],
            tree,
            mass,
            com_local,
            foot_link,
            foot_T,
            on_path,
            var,
            lo,
            hi,
            targets[k],
            coms[k],
            wrot,
            wroll,
            primary,
            tol,
            max_iter,
            retries,
            err,
        )
        Q[k] = q
        P[k] = p
        RR[k] = R
        E[k] = err
        if err[0] > stop_pos or err[2] > stop_pos or err[1] > stop_rot:
            return k + 1
    return n


@njit(cache=True)
def body_state(q, R0, p0, tree, mass, com_local, foot_link, foot_T, T, Z, soles, com):  # type: ignore[no-untyped-def]
    """The measured robot: link poses into ``T`` (L, 3, 4) for the root at ``(R0, p0)``,
    the two sole poses into ``soles`` (2, 3, 4), the CoM into ``com`` (3,)."""
    parent, jt, qi, mult, off, A, B = tree
    tree_world(q, R0, p0, parent, jt, qi, mult, off, A, B, T, Z)
    L = parent.shape[0]
    M = 0.0
    cx, cy, cz = 0.0, 0.0, 0.0
    for i in range(L):
        Ti = T[i]
        cl = com_local[i]
        mi = mass[i]
        M += mi
        cx += mi * (Ti[0, 0] * cl[0] + Ti[0, 1] * cl[1] + Ti[0, 2] * cl[2] + Ti[0, 3])
        cy += mi * (Ti[1, 0] * cl[0] + Ti[1, 1] * cl[1] + Ti[1, 2] * cl[2] + Ti[1, 3])
        cz += mi * (Ti[2, 0] * cl[0] + Ti[2, 1] * cl[1] + Ti[2, 2] * cl[2] + Ti[2, 3])
    com[0], com[1], com[2] = cx / M, cy / M, cz / M
    for f in range(2):
        _compose_into(T[foot_link[f]], foot_T[f], soles[f])
