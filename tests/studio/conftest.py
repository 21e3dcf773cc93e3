"""A studio server on a free port, shared by the tests of a module."""

from __future__ import annotations

import socket

import pytest

from robotsim.studio import Studio


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    """The page's workspace is the session's temporary folder: every ``tmp_path``."""
    st = Studio(port=free_port(), root=tmp_path_factory.getbasetemp())
    yield st
    st.stop()
