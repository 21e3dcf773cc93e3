"""The keyframe strip of the motion editor: one picture of a motion's keyframes, in
order, each a thumbnail with its number, name and speed level, the selected one
outlined.

A single image (rather than one GUI element per keyframe) keeps a 20-keyframe motion
readable in the panel and cheap to update: changing the selection or a speed redraws
one picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["SELECTED_RGB", "StripTile", "draw_strip", "tile_at"]

SELECTED_RGB = (235, 120, 20)
_BG = (248, 248, 250)
_LABEL_H = 34  # px under each thumbnail: "3 · name" and "speed 8"


@dataclass(frozen=True)
class StripTile:
    """One keyframe: its thumbnail ``(H, W, 3)`` uint8 (None: an empty tile), name and
    speed level."""

    image: np.ndarray | None
    name: str
    speed: int


def _font(size: int):  # type: ignore[no-untyped-def]
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default()


def draw_strip(
    tiles: Sequence[StripTile], selected: int | None = None, per_row: int = 4, tile: int = 112
) -> np.ndarray:
    """The strip as RGB ``(rows * (tile + 34 + 8) + 8, per_row * (tile + 8) + 8, 3)``
    uint8: tiles left to right, ``per_row`` to a row; tile ``selected`` (index) framed."""
    from PIL import Image, ImageDraw

    n = max(1, len(tiles))
    cols = min(per_row, n)
    rows = -(-n // per_row)
    gap = 8
    w = cols * (tile + gap) + gap
    h = rows * (tile + _LABEL_H + gap) + gap
    canvas = Image.new("RGB", (w, h), _BG)
    draw = ImageDraw.Draw(canvas)
    big, small = _font(13), _font(12)
    for i, t in enumerate(tiles):
        r, c = divmod(i, per_row)
        x, y = gap + c * (tile + gap), gap + r * (tile + _LABEL_H + gap)
        if t.image is not None:
            img = Image.fromarray(np.ascontiguousarray(t.image[..., :3], dtype=np.uint8))
            canvas.paste(img.resize((tile, tile)), (x, y))
        else:
            draw.rectangle((x, y, x + tile - 1, y + tile - 1), fill=(225, 225, 230))
        if i == selected:
            draw.rectangle((x - 4, y - 4, x + tile + 3, y + tile + _LABEL_H + 1),
                           outline=SELECTED_RGB, width=4)  # fmt: skip
        name = t.name if len(t.name) <= 13 else t.name[:12] + "…"
        draw.text((x + 2, y + tile + 2), f"{i + 1} · {name}", fill=(20, 20, 30), font=big)
        draw.text((x + 2, y + tile + 18), f"speed {t.speed}", fill=(60, 60, 140), font=small)
    return np.asarray(canvas)


def tile_at(index: int, per_row: int = 4, tile: int = 112) -> tuple[int, int]:
    """The top-left pixel ``(x, y)`` of tile ``index`` in :func:`draw_strip`'s picture."""
    gap = 8
    r, c = divmod(index, per_row)
    return gap + c * (tile + gap), gap + r * (tile + _LABEL_H + gap)
