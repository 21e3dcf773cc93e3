"""viser's icon archive read once (studio/viser_tuning.py): the icons it reads are the
ones viser's own code gives."""

from __future__ import annotations

import zipfile

from viser import _gui_api
from viser._icons import ICONS_DIR
from viser._icons import svg_from_icon as viser_reader

from robotsim.studio.viser_tuning import install


def test_the_installed_reader_gives_viser_s_own_icons() -> None:
    assert install() and install()  # installed once, idempotent
    reader = _gui_api.svg_from_icon
    assert reader is not viser_reader
    with zipfile.ZipFile(ICONS_DIR / "tabler-icons.zip") as z:
        names = [n.removesuffix(".svg") for n in z.namelist()[::400]]
    assert len(names) >= 10
    for name in [*names, "player-play", "trash"]:
        svg = reader(name)
        assert svg == viser_reader(name)
        assert svg.lstrip().startswith("<svg")
