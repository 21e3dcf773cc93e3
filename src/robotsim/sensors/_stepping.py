"""Compiled stepping of the world between the readings of its IMUs and lidars.

:func:`advance_imus` takes a stretch of MuJoCo steps the way
:meth:`robotsim.sensors.rig.SensorRig._advance` does, and where only IMUs and lidars are
due it reads them in the same compiled call: ``mj_step`` up to the reading, MuJoCo's
``mj_rnePostConstraint`` where an IMU reads, then
:func:`robotsim.sensors.inertial.imu_row` or :func:`robotsim.sensors._raycast.lidar_row`
into the next row of each one's block, the schedule moved on exactly as the rig moves it
(the same integer arithmetic). The same MuJoCo calls in the same order as the Python
loop: the same run and the same rows to the bit (``tests/sensors/test_inertial.py``,
``test_lidar.py``). MuJoCo's functions are called through their addresses in the
``libmujoco`` the bindings loaded
(:func:`mujoco_functions`); without that library the rig keeps its Python loop.

It runs without the GIL (``nogil``), as the bindings' ``mj_step`` does: holding it for
a whole control tick of steps kept the recorder's writer thread waiting and then made
the simulation thread wait for the writer (a recorded soccer run with an IMU at 100 Hz
ran at 0.80 of the run without sensors; 0.93 without the GIL held). It touches only
the arrays whose addresses it is given, which the rig keeps alive.

A MuJoCo error that the bindings would raise as ``mujoco.FatalError`` (an arena too
small for the model) would end the process with MuJoCo's message if it happened inside
this call, so the rig calls it only while the run's measured arena use leaves ample room
(``SensorRig._arena_roomy``) and steps through the bindings otherwise.
"""

from __future__ import annotations

import ctypes
import glob
import os

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from robotsim.sensors._pointers import f8, i8
from robotsim.sensors._raycast import lidar_row
from robotsim.sensors.inertial import imu_row

__all__ = [
    "ARENA_TIGHT",
    "COMPILED_IMU",
    "COMPILED_LIDAR",
    "advance_imus",
    "arena_offsets",
    "mujoco_functions",
    "plan_stretch",
]

PENDING_NONE = -1
#: what the compiled stepping reads of a sensor (``compiled``): an IMU
#: (:func:`~robotsim.sensors.inertial.imu_row`), a lidar
#: (:func:`~robotsim.sensors._raycast.lidar_row`), or nothing (0: handed back)
COMPILED_IMU, COMPILED_LIDAR = 1, 2
#: :func:`advance_imus`'s answer when MuJoCo's arena use is not yet measured (no step
#: taken) or is a quarter of the arena or more: an arena too small for the model is a
#: fatal error in MuJoCo, which the bindings raise as ``mujoco.FatalError`` but which
#: would end the process inside the compiled call.
ARENA_TIGHT = -2


@intrinsic
def _call_md(typingctx, fn, m, d):  # type: ignore[no-untyped-def]
    """Call the C function at address ``fn`` as ``void f(const mjModel*, mjData*)``."""
    sig = types.void(types.intp, types.intp, types.intp)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ptr = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [ptr, ptr])
        f = builder.inttoptr(args[0], fnty.as_pointer())
        builder.call(f, [builder.inttoptr(args[1], ptr), builder.inttoptr(args[2], ptr)])
        return context.get_dummy_value()

    return sig, codegen


_functions: tuple[int, int] | bool | None = False


def mujoco_functions() -> tuple[int, int] | None:
    """The addresses of ``mj_step`` and ``mj_rnePostConstraint`` in the MuJoCo library
    the Python bindings use (None when it cannot be found)."""
    global _functions
    if _functions is False:
        _functions = None
        try:
            import mujoco

            folder = os.path.dirname(mujoco.__file__)
            found = sorted(glob.glob(os.path.join(folder, "libmujoco.so*")))
            found += sorted(glob.glob(os.path.join(folder, "libmujoco*.dylib")))
            found += sorted(glob.glob(os.path.join(folder, "mujoco.dll")))
            if found:
                lib = ctypes.CDLL(found[0])
                lib.mj_version.restype = ctypes.c_int
                if lib.mj_version() != mujoco.mj_version():  # not the bindings' library
                    return None
                step = ctypes.cast(lib.mj_step, ctypes.c_void_p).value
                rne = ctypes.cast(lib.mj_rnePostConstraint, ctypes.c_void_p).value
                if step and rne:
                    _functions = (int(step), int(rne))
        except (OSError, AttributeError):
            _functions = None
    return _functions  # type: ignore[return-value]


def arena_offsets(d: object) -> tuple[int, int] | None:
    """The offsets, in int64 words from the start of the ``mjData`` struct of the
    bindings' ``d``, of ``maxuse_stack`` and ``maxuse_arena`` (None if not found): found
    by writing a marker into each through the bindings and looking for it among the
    struct's first 64 words, the values put back after."""
    words = np.frombuffer((ctypes.c_int64 * 64).from_address(int(d._address)), np.int64)  # type: ignore[attr-defined]
    found = []
    for name, marker in (("maxuse_stack", 0x5E5D_0A11_57AC), ("maxuse_arena", 0x5E5D_0A11_A7E4)):
        try:
            old = int(getattr(d, name))
            setattr(d, name, marker)
        except (AttributeError, TypeError):  # bindings where the field is read-only
            return None
        try:
            at = np.flatnonzero(words == marker)
        finally:
            setattr(d, name, old)
        if len(at) != 1 or int(words[at[0]]) != old:
            return None
        found.append(int(at[0]))
    return found[0], found[1]


@njit(cache=True, _nrt=False, inline="always")
def _roomy(ctx):  # type: ignore[no-untyped-def]
    """The run's measured arena use is under a quarter of the arena (and measured)."""
    dd = i8(ctx[3])
    used = dd[ctx[20]] + dd[ctx[21]]
    return used > 0 and 4 * used < ctx[22]


@njit(cache=True, _nrt=False)
def plan_stretch(p_ctx, k):  # type: ignore[no-untyped-def]
    """1 if :func:`advance_imus` can step the ``k`` steps from ``st[0]`` in calls that
    never hand a step back (every reading due on the way an IMU's of the step just
    taken, with room in its block and drawn noise for it, and MuJoCo's arena roomy
    now), else 0; written into the context (``ctx[23]``) for :func:`advance_imus`.
    The arena is checked once for the stretch (a control tick): it must grow from
    under a quarter to all of the arena within it to fail, where MuJoCo ends the
    process instead of raising."""
    ctx = i8(p_ctx)
    n = ctx[4]
    read_at, due, start, count = i8(ctx[5]), i8(ctx[6]), i8(ctx[7]), i8(ctx[8])
    period, filled, cap = f8(ctx[9]), i8(ctx[10]), i8(ctx[11])
    compiled, nz, st = i8(ctx[14]), i8(ctx[16]), i8(ctx[17])
    end = st[0] + k
    ok = 1 if _roomy(ctx) else 0
    for i in range(n):
        if ok == 0:
            break
        at = read_at[i]
        if at > end:
            continue
        if compiled[i] == 0 or due[i] != at - 1:
            ok = 0
            break
        c = count[i]
        r = 0
        while at <= end:  # the readings on the way, as the stepping schedules them
            r += 1
            c += 1
            at = start[i] + int(c * period[i] + 0.5) + 1
        if filled[i] + r > cap[i] or (nz[4 * i + 1] > 0 and nz[4 * i + 2] + r > nz[4 * i + 3]):
            ok = 0
    ctx[23] = ok
    return ok


@njit(cache=True, _nrt=False, nogil=True)
def advance_imus(p_ctx, k):  # type: ignore[no-untyped-def]
    """Step the world ``k`` steps on from the step the rig's state holds (``st[0]``),
    reading the IMUs on the way where they are due. ``p_ctx``: the
    address of an int64 array: the addresses of ``mj_step`` and
    ``mj_rnePostConstraint``, of the ``mjModel`` and the ``mjData``, the number ``n``
    of the rig's sensors, then the addresses of the arrays over them, as the rig keeps
    them (int64 unless said): ``read_at`` the step a sensor reads at, ``due`` the step
    its reading is of, ``start``/``count`` its schedule, ``period`` (float64, steps),
    ``filled``/``cap`` rows written in its block and the block's rows, ``block_at`` the
    block's address, ``item`` bytes a row; ``compiled`` what this call may read of
    each (:data:`COMPILED_IMU`, :data:`COMPILED_LIDAR`, 0: nothing), ``addr`` ``(n, 8)``
    an IMU's :func:`imu_row` addresses or a lidar's parameters' (first word), ``nz``
    ``(n, 4)`` its drawn noise (address, numbers a reading, readings used, readings
    drawn); ``st`` the
    rig's state (``[0]`` the world's step, ``[1]`` the smallest ``read_at``, ``[2]``
    calls of this function, ``[3]`` readings it took, ``[4]`` the step this call steps
    to), ``written`` ``(n,)`` each sensor's rows written since the rig's reset; then the
    address of the timestep (float64), the offsets in int64 words of ``maxuse_stack``
    and ``maxuse_arena`` in the ``mjData`` and the model's ``narena`` (see
    :data:`ARENA_TIGHT`), and 1 when :func:`plan_stretch` found that the stretch
    being stepped needs nothing else (the arena then not checked again).

    Returns -1 when it stepped the ``k`` steps with every reading due on the way taken;
    :data:`ARENA_TIGHT` when it stepped nothing because MuJoCo's arena is tight (the
    caller steps through the bindings); otherwise the step it stopped at (``st[0]``),
    where a sensor it may not read is due (another kind, a full block, or noise to
    draw): the caller reads there and goes on to ``st[4]``."""
    ctx = i8(p_ctx)
    fn_step, fn_rne, m, d, n = ctx[0], ctx[1], ctx[2], ctx[3], ctx[4]
    p_read_at, p_due, p_start, p_count, p_period = ctx[5], ctx[6], ctx[7], ctx[8], ctx[9]
    p_filled, p_cap, p_block_at, p_item = ctx[10], ctx[11], ctx[12], ctx[13]
    p_compiled, p_addr, p_nz, p_st, p_written = ctx[14], ctx[15], ctx[16], ctx[17], ctx[18]
    read_at, due, start, count = i8(p_read_at), i8(p_due), i8(p_start), i8(p_count)
    period = f8(p_period)
    filled, cap, block_at, item = i8(p_filled), i8(p_cap), i8(p_block_at), i8(p_item)
    compiled, addr, nz = i8(p_compiled), i8(p_addr), i8(p_nz)
    st, written = i8(p_st), i8(p_written)
    h = f8(ctx[19])[0]
    pos = st[0]
    end = pos + k
    st[4] = end
    if ctx[23] == 0 and not _roomy(ctx):  # (planned: checked for the whole stretch)
        return ARENA_TIGHT
    st[2] += 1
    result = PENDING_NONE
    taken = 0
    while True:
        at = end + 1
        for i in range(n):
            if read_at[i] < at:
                at = read_at[i]
        if at > end:
            break
        ok = True
        for i in range(n):
            if read_at[i] <= at:
                if (compiled[i] == 0 or due[i] != at - 1 or filled[i] >= cap[i]
                        or (nz[4 * i + 1] > 0 and nz[4 * i + 2] >= nz[4 * i + 3])):  # fmt: skip
                    ok = False
                    break
        while pos < at:
            _call_md(fn_step, m, d)
            pos += 1
        if not ok:
            result = pos
            break
        for i in range(n):  # the body accelerations, once, where an IMU reads
            if read_at[i] <= at and compiled[i] == COMPILED_IMU:
                _call_md(fn_rne, m, d)
                break
        for i in range(n):
            if read_at[i] <= at:
                noise = 0
                j = nz[4 * i + 1]
                if j > 0:
                    noise = nz[4 * i] + 8 * j * nz[4 * i + 2]
                    nz[4 * i + 2] += 1
                row = block_at[i] + filled[i] * item[i]
                a = 8 * i
                if compiled[i] == COMPILED_LIDAR:
                    lidar_row(addr[a], noise, row, due[i] * h)
                else:
                    imu_row(addr[a], addr[a + 1], addr[a + 2], addr[a + 3],
                            addr[a + 4], addr[a + 5], addr[a + 6], addr[a + 7], noise, row,
                            due[i] * h)  # fmt: skip
                taken += 1
                written[i] += 1
                filled[i] += 1
                c = count[i] + 1
                count[i] = c
                nxt = start[i] + int(c * period[i] + 0.5)
                due[i] = nxt
                read_at[i] = nxt + 1
    if result == PENDING_NONE:
        while pos < end:
            _call_md(fn_step, m, d)
            pos += 1
    low = read_at[0] if n else end + 1
    for i in range(1, n):
        if read_at[i] < low:
            low = read_at[i]
    st[0] = pos
    st[1] = low
    st[3] += taken
    return result
