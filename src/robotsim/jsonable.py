"""Plain JSON values from NumPy-laden results: one converter for every writer.

Used by the CLI's ``--json`` output and by every ``summary.json`` a run writes, so a
value prints the same wherever it is written.
"""

from __future__ import annotations

import math
import sys
from typing import Any

__all__ = ["to_jsonable"]


def to_jsonable(obj: Any) -> Any:
    """Numpy arrays/scalars and non-finite floats -> plain JSON values.

    Dicts (keys as ``str``), lists and tuples are converted recursively; ``nan`` becomes
    ``None`` and ``±inf`` the strings ``"inf"``/``"-inf"`` (JSON has no infinities).
    """
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v) for v in obj]
    np = sys.modules.get("numpy")  # not imported yet: no NumPy value can exist
    if np is not None:
        if isinstance(obj, np.ndarray):
            return to_jsonable(obj.tolist())
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            obj = float(obj)
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj
