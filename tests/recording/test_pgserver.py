"""The throwaway PostgreSQL server of the tests and benchmarks (a real server)."""

from __future__ import annotations

import socket

from robotsim.recording import RunStore
from robotsim.recording.pgserver import TempPostgres


def test_a_port_taken_while_initdb_runs_is_replaced_by_another() -> None:
    """The port is chosen before initdb runs (seconds on a loaded machine); another
    process (a second test worker, a studio) may listen on it by then."""
    pg = TempPostgres()
    taken = pg.port
    with socket.socket() as other:
        other.bind(("127.0.0.1", taken))
        other.listen()
        with pg:
            assert pg.port != taken
            assert f":{pg.port}/" in pg.url
            with RunStore(pg.url) as store:
                assert store.runs() == []
