"""The PostgreSQL write path: one transaction per write on a pooled connection, in the caller's thread.

This module owns the engine (psycopg 3 through SQLAlchemy) and how a write or a read is made:

* :meth:`PostgresDatabase.write`: ``BEGIN`` … ``COMMIT`` with the server's default
  ``synchronous_commit=on``, so the commit is on disk when it returns. Row locks
  (``SELECT … FOR UPDATE``) order racing writers, in any number of processes or machines.
* :meth:`PostgresDatabase.awrite`: the same in a worker thread, since every statement
  waits on the network (the event loop must not).
* reads in autocommit; ``pool_pre_ping``, so a restarted server is reconnected to.

A database that cannot be reached or written is :class:`StoreUnavailable`: nothing was changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from anyio import to_thread
from sqlalchemy import Connection, create_engine
from sqlalchemy.engine import URL
from sqlalchemy.exc import (
    DataError,
    DBAPIError,
    DisconnectionError,
    IntegrityError,
    ProgrammingError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.store.base import StoreUnavailable

T = TypeVar("T")


def unavailable(error: BaseException) -> bool:
    """Whether a database error means "cannot reach or write the database now" (not a bug)."""
    if isinstance(error, (PoolTimeout, DisconnectionError)):
        return True
    return isinstance(error, DBAPIError) and not isinstance(
        error, (IntegrityError, ProgrammingError, DataError)
    )


class PostgresDatabase:
    """A pool of connections to one PostgreSQL database."""

    def __init__(self, url: URL) -> None:
        self.engine = create_engine(
            url, pool_size=10, max_overflow=10, pool_timeout=15, pool_pre_ping=True
        )
        self._reader = self.engine.execution_options(isolation_level="AUTOCOMMIT")

    def read(self, query: Callable[[Connection], T]) -> T:
        try:
            with self._reader.connect() as conn:
                return query(conn)
        except SQLAlchemyError as error:
            if unavailable(error):
                raise StoreUnavailable(str(error)) from error
            raise

    def write(self, job: Callable[[Connection], T]) -> T:
        """Make ``job`` in one transaction; returns once its commit is on disk."""
        try:
            with self.engine.begin() as conn:
                return job(conn)
        except SQLAlchemyError as error:
            if unavailable(error):
                raise StoreUnavailable(str(error)) from error
            raise

    async def awrite(self, job: Callable[[Connection], T]) -> T:
        return await to_thread.run_sync(self.write, job)

    def close(self) -> None:
        self.engine.dispose()
