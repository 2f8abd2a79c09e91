"""The SQLite write path: every write of the store goes through :meth:`SqliteDatabase.write`
(a thread) or :meth:`SqliteDatabase.awrite` (a coroutine), and the reads through :meth:`read`.

This module owns the connections to the SQLite file, the write lock, the sync to disk and
the checkpoints. The write path, in order (docs/store.md draws it):

1. take the **write lock** (one per store) and with it the **write connection**;
   a thread waits for the lock, the event loop never does: it sleeps and tries again;
2. ``BEGIN IMMEDIATE`` on it. The connection's busy timeout is 0: when another process
   holds SQLite's write lock, the lock is let go and the caller backs off (0.2 ms, doubling
   up to 20 ms) and tries again, for up to :data:`BUSY_TIMEOUT_S`;
3. the job, then ``COMMIT``, with ``synchronous=NORMAL``: the commit does not wait for the
   disk, so neither the write lock nor the event loop is ever held across a sync;
4. let the lock go, and wait until the **sync thread** has ``fdatasync``'d the log once
   since the commit. One sync covers every commit made before it started (group commit).

Why that is as durable as ``synchronous=FULL``: a commit appends its frames to the log, the
last one marked as a commit, each with a checksum of the log so far; recovery replays the
log up to its last valid commit. Once those frames are synced, the commit survives power
loss, and nobody is answered before that. ``NORMAL`` still syncs the log's header when the
log starts over, and the log before a checkpoint copies it into the database file
(https://www.sqlite.org/pragma.html#pragma_synchronous, https://www.sqlite.org/wal.html).

A checkpoint thread copies the log into the database file once a second (:meth:`_checkpoint`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Final, TypeVar

from app.store.base import StoreUnavailable

T = TypeVar("T")
log = logging.getLogger("tripeaks.store")

SYNCHRONOUS: Final = ("FULL", "EXTRA", "NORMAL", "OFF")
BUSY_TIMEOUT_S: Final = 10.0
"""How long a write waits for another process's write lock before ``StoreUnavailable``."""
RETRY_FIRST_S: Final = 0.0002
RETRY_MOST_S: Final = 0.02
READERS_KEPT: Final = 16
CHECKPOINT_EVERY_S: Final = 1.0
RESTART_LOG_FRAMES: Final = 256
"""A log this long (about 1 MB) is started over by the checkpoint once it is all copied."""
BACKSTOP_CHECKPOINT_PAGES: Final = 20_000
"""SQLite's own checkpoint in a commit: only if the sync thread's fall far behind (80 MB)."""
_BUSY: Final = 5
_READONLY: Final = 8
_fdatasync: Final = getattr(os, "fdatasync", os.fsync)

Waiter = Future[None] | asyncio.Future[None]
"""A writer waiting for the sync after its commit: a thread's, or a coroutine's on its loop."""


def _code(error: sqlite3.Error) -> int:
    return int(getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF


class _Tries:
    """The back-off of one write: how long to pause next, and until when to try."""

    def __init__(self) -> None:
        self.deadline = time.monotonic() + BUSY_TIMEOUT_S
        self._pause = RETRY_FIRST_S
        self.reopened = False

    def pause(self) -> float:
        """The next pause; ``StoreUnavailable`` once the busy timeout is spent."""
        pause, self._pause = self._pause, min(self._pause * 2, RETRY_MOST_S)
        if time.monotonic() + pause > self.deadline:
            raise StoreUnavailable("the database is locked (another process is writing)")
        return pause


class SqliteDatabase:
    """One SQLite file in WAL mode: a write connection behind a lock, kept readers, a sync thread."""

    def __init__(self, path: Path, synchronous: str = "FULL") -> None:
        self.path = path
        self.wal = path.with_name(path.name + "-wal")
        self.synced_after_commit = synchronous in ("FULL", "EXTRA")
        """``FULL``/``EXTRA``: the sync thread syncs the log before a write returns; with
        ``NORMAL`` or ``OFF`` (asked for in the URL) SQLite's own setting is all there is."""
        self.commit_synchronous = "NORMAL" if self.synced_after_commit else synchronous
        self._write_lock = threading.Lock()
        self._writer: sqlite3.Connection | None = None
        self._readers: list[sqlite3.Connection] = []  # idle; list.pop/append are atomic
        self._generation = 0  # one more each time every connection is opened afresh
        self._wake = threading.Condition()
        self._waiting: list[Waiter] = []  # committed, waiting for the next sync
        self._wal_fd: int | None = None  # the sync thread's
        self._wal_generation = -1
        self._closing = threading.Event()
        self._stopped = False  # the sync thread has ended (set under _wake)
        self.syncs = 0
        """How many syncs the thread made (fewer than the commits under load)."""
        self._threads = (
            threading.Thread(target=self._sync_loop, name="tripeaks-sqlite-sync", daemon=True),
            threading.Thread(
                target=self._checkpoint_loop, name="tripeaks-sqlite-checkpoint", daemon=True
            ),
        )
        for thread in self._threads:
            thread.start()

    # -- connections ------------------------------------------------------------------------

    def connect(self, busy_timeout_s: float) -> sqlite3.Connection:
        """A connection to the file with the store's settings (WAL, NORMAL commits)."""
        conn = sqlite3.connect(
            self.path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        try:
            prepare(conn, busy_timeout_s, self.commit_synchronous)
        except BaseException:
            conn.close()
            raise
        return conn

    def read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """``query`` on a kept reader (no ``BEGIN``: each ``SELECT`` is its own snapshot)."""
        generation = self._generation
        try:
            conn = self._readers.pop()
        except IndexError:
            conn = None
        try:
            if conn is None:
                conn = self.connect(BUSY_TIMEOUT_S)
            value = query(conn)
        except BaseException as error:
            if conn is not None:
                conn.close()
            if isinstance(error, sqlite3.Error) and not isinstance(
                error, (sqlite3.IntegrityError, sqlite3.ProgrammingError)  # a bug
            ):
                raise StoreUnavailable(str(error)) from error
            raise
        kept = len(self._readers) < READERS_KEPT and not self._closing.is_set()
        if kept and generation == self._generation:
            self._readers.append(conn)
        else:
            conn.close()
        return value

    def _reopen(self) -> None:
        """Close every connection, so that the next ones open the file afresh (the caller
        holds the write lock). SQLite shares one view of a file among the connections of a
        process: once it was opened read-only, writes keep failing until every connection to
        it is closed, even after it became writable again. Readers in use close on return."""
        self._generation += 1
        readers, self._readers = self._readers, []
        for conn in readers:
            conn.close()
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(sqlite3.Error):
                writer.close()

    # -- the write path ---------------------------------------------------------------------

    def write(self, job: Callable[[sqlite3.Connection], T]) -> T:
        """Make ``job`` in one transaction; returns once its commit is on disk (a thread)."""
        tries = _Tries()
        while True:
            if not self._write_lock.acquire(timeout=max(0.0, tries.deadline - time.monotonic())):
                raise StoreUnavailable("the database is locked (this process is writing)")
            try:
                made = self._attempt(job, tries)
            finally:
                self._write_lock.release()
            if made is not None:
                break
            time.sleep(tries.pause())
        if self.synced_after_commit:
            synced: Future[None] = Future()
            synced.set_running_or_notify_cancel()
            self._wait_for_sync(synced)
            synced.result()
        return made[0]

    async def awrite(self, job: Callable[[sqlite3.Connection], T]) -> T:
        """:meth:`write` for a coroutine: the event loop never waits for a lock or the disk."""
        tries = _Tries()
        while True:
            if self._write_lock.acquire(blocking=False):
                try:
                    made = self._attempt(job, tries)
                finally:
                    self._write_lock.release()
                if made is not None:
                    break
            await asyncio.sleep(tries.pause())
        if self.synced_after_commit:
            synced: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._wait_for_sync(synced)
            await synced  # cancelled, the request's write stands
        return made[0]

    def _attempt(self, job: Callable[[sqlite3.Connection], T], tries: _Tries) -> tuple[T] | None:
        """One try, the write lock held; ``None`` when another process holds SQLite's lock.

        A write that fails because the database cannot be written (read-only, full disk)
        closes every connection; one refused as read-only is tried once more on fresh ones
        (the file may have become writable since they were opened). Nothing of a failed
        write was written.
        """
        while True:
            if self._closing.is_set():
                raise StoreUnavailable("the store is closed")
            try:
                if self._writer is None:
                    try:
                        self._writer = self.connect(busy_timeout_s=0)
                    except sqlite3.OperationalError as error:
                        # Its settings read the schema: another process holding the file
                        # (recovering its log at start, say) is a lock to wait for, as below.
                        if _code(error) == _BUSY:
                            return None
                        raise
                conn = self._writer
                try:
                    conn.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as error:
                    if _code(error) == _BUSY:
                        return None
                    raise
                try:
                    value = job(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                    raise
                return (value,)
            except sqlite3.Error as error:
                if isinstance(error, (sqlite3.IntegrityError, sqlite3.ProgrammingError)):
                    raise  # a bug, not the database's state
                self._reopen()
                if _code(error) == _READONLY and not tries.reopened:
                    tries.reopened = True
                    continue
                raise StoreUnavailable(str(error)) from error

    def _wait_for_sync(self, waiter: Waiter) -> None:
        """Hand ``waiter`` (set once the log has been synced after this moment, i.e. after
        one's commit) to the sync thread; if it has ended (the store closed), sync here."""
        with self._wake:
            stopped = self._stopped
            if not stopped:
                self._waiting.append(waiter)
                self._wake.notify()
        if stopped:
            self._sync_now([waiter])

    # -- the sync thread --------------------------------------------------------------------

    def _sync_loop(self) -> None:
        """Sync the log for whoever waits, until the store closes."""
        while True:
            with self._wake:
                while not self._waiting and not self._closing.is_set():
                    self._wake.wait()
                waiting, self._waiting = self._waiting, []
                if not waiting:  # closed, and nobody waits any more
                    self._stopped = True
                    return
            self._sync_now(waiting)

    def _sync_now(self, waiting: list[Waiter]) -> None:
        """``fdatasync`` the log; the commits of ``waiting`` were made before: they go on.

        The log's descriptor is kept (each system call here may have to take the GIL back
        from the busy event loop afterwards): SQLite makes the log anew only after every
        connection to the file closed, which in this process means :meth:`_reopen`.
        """
        error: BaseException | None = None
        try:
            if self._wal_fd is None or self._wal_generation != self._generation:
                self._close_wal()
                self._wal_generation = self._generation
                self._wal_fd = os.open(self.wal, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            _fdatasync(self._wal_fd)
        except FileNotFoundError:  # the last connection closed: it copied the log into the
            self._close_wal()  # database file and synced it, so the commits are on disk
        except OSError as failed:  # their commits were made, but are not known to be on disk
            self._close_wal()
            error = StoreUnavailable(f"cannot sync the database's log to disk: {failed}")
        self.syncs += 1
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        for waiter in waiting:
            if isinstance(waiter, asyncio.Future):
                by_loop.setdefault(waiter.get_loop(), []).append(waiter)
            elif error is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(error)
        for loop, futures in by_loop.items():  # one wake-up per loop, however many wait
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits
                loop.call_soon_threadsafe(_settle, futures, error)

    def _close_wal(self) -> None:
        fd, self._wal_fd = self._wal_fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    # -- the checkpoint thread --------------------------------------------------------------

    def _checkpoint_loop(self) -> None:
        """Every second, :meth:`_checkpoint`, until the store closes."""
        while not self._closing.wait(CHECKPOINT_EVERY_S):
            self._checkpoint()

    def _checkpoint(self) -> None:
        """Copy the log into the database file, and start the log over once it has grown.

        A PASSIVE checkpoint never blocks readers or writers; what it cannot copy now is
        copied next time. But under steady writing it never quite catches up, and SQLite
        starts the log over only after a checkpoint that copied all of it: the log would grow
        and grow (17 MB after 6 s of writing, once). So once it holds
        :data:`RESTART_LOG_FRAMES`, this thread takes the write lock for a moment (threads
        wait, moves on the loop back off), copies the little that is left, and makes a write
        of its own, which starts the log over: the sync of the new log's header happens
        here, not in a move's commit on the event loop. A connection of its own each time:
        one opened while the file was read-only would stay read-only.
        """
        try:
            with contextlib.closing(self.connect(busy_timeout_s=1)) as db:
                _, frames, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if frames < RESTART_LOG_FRAMES:
                    return
                with self._write_lock:
                    busy, frames, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if busy or copied < frames:  # another process writes, or a reader holds on
                        return
                    db.execute("BEGIN IMMEDIATE")  # rewrites user_version: changes nothing
                    try:
                        (user_version,) = db.execute("PRAGMA user_version").fetchone()
                        db.execute(f"PRAGMA user_version={int(user_version)}")
                        db.execute("COMMIT")
                    except BaseException:
                        db.execute("ROLLBACK")
                        raise
        except sqlite3.Error as error:  # busy, read-only, disk full: next time
            log.debug("checkpoint skipped: %s", error)

    def close(self) -> None:
        """Sync for whoever still waits, stop the threads, close the connections."""
        self._closing.set()
        with self._wake:
            self._wake.notify()
        for thread in self._threads:
            thread.join(timeout=10)
        with self._write_lock:
            self._reopen()
        self._close_wal()


def _settle(futures: list[asyncio.Future[None]], error: BaseException | None) -> None:
    """On a loop: the sync covering these coroutines' commits is done (or failed)."""
    for future in futures:
        if future.done():  # the request was cancelled; its write stands
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)


def prepare(connection: sqlite3.Connection, busy_timeout_s: float, synchronous: str) -> None:
    """The settings of every connection to the SQLite file."""
    connection.isolation_level = None  # the store says when transactions begin, not sqlite3
    cursor = connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
    cursor.execute(f"PRAGMA synchronous={synchronous}")
    # Checkpoints run in the sync thread, not in the commit that happens to cross SQLite's
    # threshold (that commit would wait for the database file's sync): a large backstop.
    cursor.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_CHECKPOINT_PAGES}")
    # WAL is a property of the file, set once. Switching to it needs the database to itself,
    # and SQLite reports "locked" at once rather than wait: retry a while.
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)
    cursor.close()
