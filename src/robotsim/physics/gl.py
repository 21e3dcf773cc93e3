"""Offscreen OpenGL for MuJoCo's renderer: the backend choice and the thread rule.

``MUJOCO_GL`` defaults to ``egl`` (headless; Mesa's llvmpipe without a GPU) unless the
caller chose another backend before MuJoCo's GL was first loaded.

The thread rule: MuJoCo's renderer makes its GL context current and leaves it so, and
an EGL context current in one live thread cannot be made current in another
(``EGL_BAD_ACCESS``). Whoever renders therefore holds a lock, makes the context current,
renders, and calls :func:`release_gl` before letting go, so the next render may come
from any thread (the studio renders from whichever callback thread asks).
"""

from __future__ import annotations

import os
import sys
from typing import Any

os.environ.setdefault("MUJOCO_GL", "egl")

__all__ = ["release_gl"]


def release_gl(owner: Any) -> None:
    """Leave no GL context current in this thread after using ``owner``: a
    ``mujoco.Renderer`` or a ``mujoco.GLContext``. Other backends than EGL keep their
    own rules and are left alone."""
    ctx = getattr(owner, "_gl_context", owner)
    egl = sys.modules.get("mujoco.egl")
    if ctx is None or egl is None or not isinstance(ctx, egl.GLContext):
        return
    if egl.EGL_DISPLAY is not None:
        E = egl.EGL
        E.eglMakeCurrent(egl.EGL_DISPLAY, E.EGL_NO_SURFACE, E.EGL_NO_SURFACE, E.EGL_NO_CONTEXT)
