"""Typed pointers from integer addresses inside compiled (numba) code.

The sensors' compiled calls take the addresses of arrays the rig keeps alive (rows of
readings, MuJoCo's data arrays) and index them through these pointers: ``f8``
(float64), ``f4`` (float32), ``i8`` (int64) and ``i4`` (int32). The caller guarantees
that the memory lives and holds that type.
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.extending import intrinsic

__all__ = ["f4", "f8", "i4", "i8"]


def _pointer_to(item: Any) -> Any:
    """An intrinsic turning an integer address into a pointer to ``item`` values."""

    @intrinsic
    def pointer(typingctx, address):  # type: ignore[no-untyped-def]
        sig = types.CPointer(item)(types.intp)

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            return builder.inttoptr(args[0], context.get_value_type(types.CPointer(item)))

        return sig, codegen

    return pointer


f8 = _pointer_to(types.float64)
f4 = _pointer_to(types.float32)
i8 = _pointer_to(types.int64)
i4 = _pointer_to(types.int32)
