"""Opening a run store: a file path (SQLite) or an SQLAlchemy URL.

``runs.sqlite``, ``out`` (a folder, or a new name without a file extension:
``out/runs.sqlite`` inside it),
``sqlite:///abs/path.sqlite`` and ``postgresql://user@host/db`` (the psycopg 3 driver
is chosen for you) are all accepted.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError

from robotsim.errors import InputError

__all__ = ["DEFAULT_DB_NAME", "normalize_db", "open_engine"]

DEFAULT_DB_NAME = "runs.sqlite"


def normalize_db(db: str | os.PathLike[str]) -> str:
    """A path or URL -> an SQLAlchemy URL string (psycopg 3 for PostgreSQL)."""
    text = os.fspath(db)
    if "://" not in text:
        path = Path(text).expanduser()
        is_folder = path.is_dir() or (not path.exists() and not path.suffix)
        if is_folder or text.endswith(("/", os.sep)):
            path = path / DEFAULT_DB_NAME
        return "sqlite:///" + str(path.resolve())
    try:
        url = make_url(text)
    except ArgumentError:
        raise InputError(f"--db: not a database URL: {text!r}") from None
    backend = url.get_backend_name()
    if backend == "postgresql" and url.get_driver_name() in ("psycopg2", "postgresql", ""):
        url = url.set(drivername="postgresql+psycopg")
    elif backend not in ("postgresql", "sqlite"):
        raise InputError(
            f"--db: unsupported database {backend!r} in {text!r}; "
            "use a file path, sqlite:///... or postgresql://..."
        )
    return url.render_as_string(hide_password=False)


def _sqlite_pragmas(dbapi_conn: object, _record: object) -> None:
    cur = dbapi_conn.cursor()  # type: ignore[attr-defined]
    # The busy timeout first: switching a new file to WAL takes a lock that a process
    # creating the same store at the same moment may hold.
    cur.execute("PRAGMA busy_timeout=10000")
    # WAL + NORMAL: a committed batch survives a crash of this process (not a power cut).
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def open_engine(db: str | os.PathLike[str]) -> Engine:
    """An engine for ``db`` (see the module doc); creates the SQLite file's folder."""
    url = normalize_db(db)
    if url.startswith("sqlite:///"):
        folder = Path(url[len("sqlite:///") :]).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a regular file where a folder belongs, no permission
            why = "a file is there" if isinstance(exc, FileExistsError) else exc.strerror
            raise InputError(
                f"--db: cannot make the run store's folder {folder}: {why or exc}"
            ) from None
        engine = create_engine(url)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    from robotsim.extras import require

    require("psycopg", f"the PostgreSQL run store {make_url(url).render_as_string()}")
    return create_engine(url, pool_pre_ping=True)
