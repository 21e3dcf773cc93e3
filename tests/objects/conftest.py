"""Object tests keep their convex-piece cache in a temporary folder, and build their
object files (URDF, MJCF, meshes) in ``tmp_path`` with trimesh."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.getbasetemp() / "robotsim-cache"
    monkeypatch.setenv("ROBOTSIM_CACHE_DIR", str(folder))
    return folder


def urdf_text(name: str, geometry: str, inertial: str = "") -> str:
    """A one-link URDF with ``geometry`` as visual and collision."""
    return (
        f'<robot name="{name}"><link name="body">{inertial}'
        f"<visual><geometry>{geometry}</geometry></visual>"
        f"<collision><geometry>{geometry}</geometry></collision></link></robot>"
    )


@pytest.fixture
def make_urdf(tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(name: str, geometry: str, inertial: str = "") -> Path:
        p = tmp_path / f"{name}.urdf"
        p.write_text(urdf_text(name, geometry, inertial))
        return p

    return make
