"""viser's costs paid once (studio/viser_tuning.py): the icons it reads and the
property hints it looks up are the ones viser's own code gives."""

from __future__ import annotations

import zipfile
from typing import get_type_hints

import numpy as np
from tests.procs import free_port
from viser import _assignable_props_api, _gui_api
from viser._icons import ICONS_DIR
from viser._icons import svg_from_icon as viser_reader

from robotsim.studio import Studio
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


def test_property_hints_are_viser_s_and_handles_still_cast_and_send() -> None:
    assert install()
    assert isinstance(_assignable_props_api.AssignablePropsBase.__dict__["_prop_hints"], property)
    st = Studio(port=free_port())
    try:
        st.open("puma560")
        a = st.scene.add_frame("/probe/a", show_axes=False)
        b = st.scene.add_icosphere("/probe/b", radius=0.05)
        for h in (a, b):
            assert h._prop_hints == get_type_hints(type(h._impl.props))
        assert a._prop_hints is st.scene.add_frame("/probe/c")._prop_hints  # one per class
        a.position = [1, 2, 3]  # cast through the hints, as viser does
        assert a.position.dtype == np.float64 and np.allclose(a.position, [1, 2, 3])
        b.visible = False
        assert b.visible is False
        view = st.robot("puma560")
        assert st.push(force=True) == len(view.link_handles)
        np.testing.assert_allclose(
            view.scene_link_poses()[:, :3], view.link_poses()[:, :3, 3], atol=1e-6
        )
    finally:
        st.stop()
