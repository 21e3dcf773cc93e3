"""An inertia tensor in its principal frame, with moments that MuJoCo accepts exactly.

MuJoCo stores each body's inertia as three principal moments ``(A, B, C)`` and a
rotation, and refuses moments with ``A + B < C`` (evaluated in floating point, no
tolerance) unless ``balanceinertia`` lets it change them, which the exporters never
use. A tensor *on* the triangle boundary (a flat body, or a degenerate tensor such as
the PUMA 560's link 1, ``0.175 + 0.175 = 0.35``) is physically valid, but an
eigen-decomposition of it done after a rotation (MuJoCo's own, of a ``fullinertia``,
or ours) can land a few ulps on the wrong side.

:func:`principal_inertia` therefore does the decomposition itself and then makes the
inequality hold exactly as MuJoCo evaluates it: when ``A + B < C`` by round-off, the
largest moment ``C`` is lowered to the rounded sum ``fl(A + B)``. For tensors on the
boundary this is a change of a few ulps (<= 1e-15 relative); tensors the model accepts
as "rounding in files" (:meth:`robotsim.model.robot.Inertial.problem`, up to ``rtol``
relative below the boundary) are lowered by at most that. Nothing else is changed.
"""

from __future__ import annotations

import numpy as np

from robotsim.errors import ModelError

__all__ = ["inside_for_readers", "on_triangle_boundary", "principal_inertia"]


def principal_inertia(
    inertia: np.ndarray, rtol: float = 1e-9, link: str = "?"
) -> tuple[np.ndarray, np.ndarray | None]:
    """Principal moments and axes of a symmetric inertia tensor.

    Args:
        inertia: ``(3, 3)`` tensor about the CoM in the link axes (kg m^2).
        rtol: how far (relative to the largest moment) ``A + B`` may fall short of
            ``C`` and still be taken for round-off (the model's own tolerance).
        link: the link's name, for the error message.

    Returns:
        ``moments (3,)`` (kg m^2, every pair summing to at least the third in floating
        point) and ``R (3, 3)`` whose columns are the principal axes in the link frame
        (a proper rotation, ``I ~= R diag(moments) R^T``), or ``None`` when the tensor
        is already diagonal (then ``moments`` is its diagonal, bit for bit, unless the
        triangle fix applied).

    Raises:
        ModelError: a moment is negative or the moments violate the triangle inequality
            by more than ``rtol`` (the model refuses such tensors on links with mass when
            it is built; a massless link's lumped tensor is balanced before it gets here,
            :mod:`robotsim.model.inertia_bounds`).
    """
    I = np.asarray(inertia, dtype=float)
    S = (I + I.T) / 2.0
    R: np.ndarray | None
    if S[0, 1] == 0.0 and S[0, 2] == 0.0 and S[1, 2] == 0.0:
        moments = np.diag(S).copy()
        R = None
    else:
        moments, R = np.linalg.eigh(S)
        if np.linalg.det(R) < 0.0:
            R[:, 2] = -R[:, 2]
    top = float(np.max(np.abs(moments)))
    if np.any(moments < -rtol * top):
        raise ModelError(
            f"link {link!r}: inertia principal moments {moments.tolist()} must be >= 0"
        )
    moments = np.maximum(moments, 0.0)  # a singular tensor's round-off (-1e-20...)
    order = np.argsort(moments)
    a, b, c = (float(moments[i]) for i in order)
    if a + b < c:
        if c - (a + b) > rtol * c:
            raise ModelError(
                f"link {link!r}: inertia violates the triangle inequality ({a!r} + {b!r} < {c!r})"
            )
        moments[order[2]] = a + b
    return moments, R


def on_triangle_boundary(moments: np.ndarray, rtol: float = 1e-12) -> bool:
    """Whether principal moments ``(3,)`` sit on the triangle boundary to ``rtol``
    (relative to the largest): ``A + B - C <= rtol * C`` for the sorted moments, where
    a decomposition's round-off (~1e-15 relative) could put ``A + B`` below ``C``."""
    a, b, c = np.sort(np.asarray(moments, dtype=float))
    return bool(a + b - c <= rtol * c)


#: how far (in units of the largest moment's ulp, ``eps * C``) a turned tensor on the
#: boundary is moved inside for readers that diagonalise it themselves: MuJoCo's Jacobi
#: decomposition of URDF tensors was seen off by up to 8 (1500 random flat bodies).
READER_MARGIN_ULPS = 16.0


def inside_for_readers(inertia: np.ndarray, link: str = "?") -> np.ndarray:
    """The tensor ``(3, 3)`` to write in a format whose readers decompose it again
    (URDF's ``ixx``... in the link axes; MuJoCo's URDF reader does, with no tolerance).

    Unchanged unless its principal moments sit on the triangle boundary
    (:func:`on_triangle_boundary`). Then a diagonal tensor gets
    :func:`principal_inertia`'s exact fix (the reader's decomposition of a diagonal
    tensor is exact), and a turned one has its largest moment lowered by
    ``READER_MARGIN_ULPS * eps * C`` along its principal axis (<= 4e-15 relative), so
    the reader's round-off cannot put ``A + B`` below ``C``.
    """
    I = np.asarray(inertia, dtype=float)
    moments, R = principal_inertia(I, link=link)
    if not on_triangle_boundary(moments):
        return I
    if R is None:
        return np.diag(moments)
    i = int(np.argmax(moments))
    delta = READER_MARGIN_ULPS * np.finfo(float).eps * float(moments[i])
    J = I - delta * np.outer(R[:, i], R[:, i])
    return (J + J.T) / 2.0
