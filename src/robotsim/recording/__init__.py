"""The run store: every run's parameters, time series and events in a database.

SQLite file by default (``runs.sqlite``), or any SQLAlchemy URL (PostgreSQL through
psycopg 3). :class:`Recorder` writes one run from a simulation loop; :class:`RunStore`
reads runs back; :func:`export_run` writes CSV or Parquet. See ``docs/recording.md``.

Names load on first use, so that naming the package (the CLI does) does not import
SQLAlchemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from robotsim.lazy import lazy_exports

if TYPE_CHECKING:
    from robotsim.recording.engine import DEFAULT_DB_NAME as DEFAULT_DB_NAME
    from robotsim.recording.engine import normalize_db as normalize_db
    from robotsim.recording.export import FORMATS as FORMATS
    from robotsim.recording.export import export_run as export_run
    from robotsim.recording.frames import SensorSeries as SensorSeries
    from robotsim.recording.receipts import StoredReceipt as StoredReceipt
    from robotsim.recording.receipts import read_receipt as read_receipt
    from robotsim.recording.recorder import DEFAULT_FLUSH_INTERVAL as DEFAULT_FLUSH_INTERVAL
    from robotsim.recording.recorder import Recorder as Recorder
    from robotsim.recording.store import RecordingError as RecordingError
    from robotsim.recording.store import RunInfo as RunInfo
    from robotsim.recording.store import RunStatus as RunStatus
    from robotsim.recording.store import RunStore as RunStore
    from robotsim.recording.store import SensorInfo as SensorInfo
    from robotsim.recording.store import SignalTable as SignalTable
    from robotsim.recording.store import StoredRun as StoredRun
    from robotsim.recording.store import open_run as open_run

_LAZY = {
    "DEFAULT_DB_NAME": "robotsim.recording.engine",
    "normalize_db": "robotsim.recording.engine",
    "FORMATS": "robotsim.recording.export",
    "export_run": "robotsim.recording.export",
    "DEFAULT_FLUSH_INTERVAL": "robotsim.recording.recorder",
    "Recorder": "robotsim.recording.recorder",
    "StoredReceipt": "robotsim.recording.receipts",
    "read_receipt": "robotsim.recording.receipts",
    "RecordingError": "robotsim.recording.store",
    "RunInfo": "robotsim.recording.store",
    "RunStatus": "robotsim.recording.store",
    "RunStore": "robotsim.recording.store",
    "SensorInfo": "robotsim.recording.store",
    "SensorSeries": "robotsim.recording.frames",
    "SignalTable": "robotsim.recording.store",
    "StoredRun": "robotsim.recording.store",
    "open_run": "robotsim.recording.store",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "DEFAULT_DB_NAME",
    "DEFAULT_FLUSH_INTERVAL",
    "FORMATS",
    "Recorder",
    "RecordingError",
    "RunInfo",
    "RunStatus",
    "RunStore",
    "SensorInfo",
    "SensorSeries",
    "SignalTable",
    "StoredReceipt",
    "StoredRun",
    "export_run",
    "normalize_db",
    "open_run",
    "read_receipt",
]
