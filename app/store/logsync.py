"""Syncing SQLite's write-ahead log to disk after the commits, not inside them.

With ``synchronous=FULL`` SQLite syncs the log inside every commit: while it holds the
database's one write lock, on the thread that commits. The store commits with
``synchronous=NORMAL`` instead (no sync in the commit) and syncs the log itself right
after, before it lets the writer go on: nobody is answered before their commit is on disk,
as with ``FULL``, but the write lock is never held across a sync, so the event loop can make
its writes itself without ever waiting for the disk.

* A thread (the store's commit thread, a worker thread writing for itself) calls
  :meth:`LogSync.sync`: ``fdatasync`` of the log file, in that thread.
* A coroutine awaits :meth:`LogSync.synced`. The event loop must not wait for the disk, and
  a thread of this process syncing for it would have to take Python's GIL back from the busy
  loop after every sync (up to the 5 ms switch interval each time, measured: a fifth of a
  move's CPU). So a small helper process (:data:`HELPER`, Python with nothing imported)
  makes the syncs: the loop writes one byte to its pipe and is called back when the answer
  comes. One sync is under way at a time; the commits made meanwhile wait for the next one,
  which then covers them all (group commit).

Why this is as durable as ``FULL``: a commit appends its frames, the last one marked as a
commit, to the log; recovery replays the frames up to the last valid commit frame (each
frame carries a checksum of the log so far). Once those frames are synced, the commit
survives power loss. ``fdatasync`` on any descriptor of a file flushes all of that file's
written data, whichever process wrote it. ``NORMAL`` still syncs the log's header whenever
the log starts over, and the log before a checkpoint copies it into the database file
(https://www.sqlite.org/pragma.html#pragma_synchronous, https://www.sqlite.org/wal.html).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final

HELPER: Final = r"""
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the server; this ends with its pipe
if hasattr(signal, "SIGPIPE"):  # the server died (its end of the pipe closed): end, silently
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
path, fd, inode = sys.argv[1], None, None
sync = getattr(os, "fdatasync", os.fsync)
try:
    while os.read(0, 1):
        try:
            status = os.stat(path)
            if fd is None or (status.st_dev, status.st_ino) != inode:
                if fd is not None:
                    os.close(fd)
                fd, inode = os.open(path, os.O_RDONLY), (status.st_dev, status.st_ino)
            sync(fd)
            answer = b"."
        except OSError as error:
            answer = b"!" + str(error).encode()[:200].replace(b"\n", b" ") + b"\n"
        os.write(1, answer)
except (BrokenPipeError, ConnectionResetError):
    pass
"""
"""The helper process: for each byte it reads, one ``fdatasync`` of the log, answered with
``.`` (or ``!`` and the error, on a line). It ends when the store closes its pipe, or the
server dies (the pipe closes then too; an answer it can no longer give ends it quietly, with
no traceback in the server's log); it ignores Ctrl-C, which the terminal sends to both."""

HELPER_DEATHS: Final = 3
"""A helper that dies this many times in a row before answering is not started again."""

_fdatasync: Final = getattr(os, "fdatasync", os.fsync)


class LogSync:
    """Syncs one SQLite database's log (``<database>-wal``) for the store's writers.

    Sync *after* a commit has returned: the sync then covers the commit. ``on_error`` turns
    an ``OSError`` of a sync into what the writers get (the store's ``StoreUnavailable``).
    """

    def __init__(self, database: Path, on_error: Callable[[OSError], BaseException]) -> None:
        self.path = database.with_name(database.name + "-wal")
        self._on_error = on_error
        self._file_lock = threading.Lock()
        self._fd: int | None = None
        self._inode: tuple[int, int] | None = None
        self._lock = threading.Lock()  # the helper and its state: one loop at a time
        self._helper: subprocess.Popen[bytes] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._asked: list[asyncio.Future[None]] = []
        """Waiting for the sync under way (asked of the helper, not answered yet)."""
        self._next: list[asyncio.Future[None]] = []
        """Committed while that sync was under way: waiting for the next one."""
        self._answer = b""
        self._tasks: set[asyncio.Task[None]] = set()
        self._deaths = 0
        """Helpers that died in a row without an answer; at HELPER_DEATHS, no more helpers."""
        self._closed = False
        self.syncs = 0
        """How many syncs the helper made (fewer than the commits under load)."""

    # -- threads -----------------------------------------------------------------------------

    def sync(self) -> None:
        """``fdatasync`` the log file in this thread; raises ``on_error``'s error if that fails."""
        try:
            self._sync_file()
        except OSError as error:
            raise self._on_error(error) from error

    def _sync_file(self) -> None:
        """``fdatasync`` the log file (raises ``OSError``). The helper does the same, on its own."""
        with self._file_lock:
            status = os.stat(self.path)
            inode = (status.st_dev, status.st_ino)
            if self._fd is None or inode != self._inode:  # SQLite made the file anew
                if self._fd is not None:
                    os.close(self._fd)
                    self._fd = None
                self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
                self._inode = inode
            _fdatasync(self._fd)

    # -- coroutines --------------------------------------------------------------------------

    async def synced(self) -> None:
        """For a coroutine after its commit: returns once the commit is on disk."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] | None = None
        with self._lock:
            if self._attach(loop):
                future = loop.create_future()
                self._next.append(future)
                if not self._asked:
                    self._ask()
        if future is None:  # another loop has the helper, or this one cannot watch a pipe
            await asyncio.to_thread(self.sync)
        else:
            await future

    def _attach(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Make sure a helper runs and ``loop`` watches its answers; False when another loop
        (still open) has it, or there can be no helper for this loop. The caller holds the lock."""
        if self._closed or self._deaths >= HELPER_DEATHS:
            return False
        if self._loop is not loop:
            if self._loop is not None and not self._loop.is_closed():
                return False
            self._loop = None  # a loop that closed took its watch with it
        if self._helper is not None:  # (one that died is found out by _ask: its pipe is broken)
            return self._loop is not None or self._watch(loop)
        return self._restart(loop)

    def _watch(self, loop: asyncio.AbstractEventLoop) -> bool:
        assert self._helper is not None and self._helper.stdout is not None
        try:
            loop.add_reader(self._helper.stdout.fileno(), self._on_answer)
        except (NotImplementedError, RuntimeError):  # e.g. Windows' proactor loop
            return False
        self._loop = loop  # a sync asked by a loop that closed is answered to this one
        return True

    def _restart(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Start a helper (again) and watch it from ``loop``; False if none can be started."""
        if self._helper is not None:
            self._deaths += 1
        self._stop_helper()
        if self._deaths >= HELPER_DEATHS:  # it dies as soon as it starts: syncs go to threads
            return False
        try:
            self._helper = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", HELPER, str(self.path)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                bufsize=0,
                close_fds=True,
            )
        except OSError:
            return False
        self._answer = b""
        if self._watch(loop):
            return True
        self._stop_helper()
        return False

    def _ask(self) -> None:
        """Ask the helper for a sync covering everything committed so far, for who waits for the
        next one. A helper that died is started again and asked. The caller holds the lock."""
        self._asked, self._next = self._asked + self._next, []
        loop = self._loop
        for _attempt in range(2):
            helper = self._helper
            if helper is not None and helper.stdin is not None:
                try:
                    os.write(helper.stdin.fileno(), b"s")
                    return
                except OSError:  # it died: start another
                    pass
            if loop is None or not self._restart(loop):
                break
        # No helper to be had: the sync is made in a worker thread.
        waiting, self._asked = self._asked, []
        if waiting:
            task = waiting[0].get_loop().create_task(self._sync_in_thread(waiting))
            self._tasks.add(task)  # the loop keeps only a weak reference to a task
            task.add_done_callback(self._tasks.discard)

    async def _sync_in_thread(self, waiting: list[asyncio.Future[None]]) -> None:
        try:
            await asyncio.to_thread(self._sync_file)
        except OSError as error:  # handed to the writers
            self._settle(waiting, error)
        else:
            self._settle(waiting, None)

    def _on_answer(self) -> None:
        """On the loop: the helper answered; wake who waited for that sync, ask for the next."""
        with self._lock:
            helper = self._helper
            if helper is None or helper.stdout is None:
                return
            try:
                data = os.read(helper.stdout.fileno(), 4096)
            except OSError:
                data = b""
            if not data:  # the helper died during the sync: ask another one
                loop = self._loop
                self._deaths += 1
                self._stop_helper()
                self._loop = loop
                self._ask()
                return
            self._answer += data
            while self._answer:
                self._deaths = 0
                if self._answer[:1] == b".":
                    self._answer = self._answer[1:]
                    self.syncs += 1
                    self._settle(self._asked, None)
                elif b"\n" in self._answer:
                    line, _, self._answer = self._answer.partition(b"\n")
                    self._settle(self._asked, OSError(line[1:].decode(errors="replace")))
                else:
                    return  # the rest of an error line is still to come
                self._asked = []
                if self._next:
                    self._ask()

    def _settle(self, futures: list[asyncio.Future[None]], error: OSError | None) -> None:
        for future in futures:
            if future.done() or future.get_loop().is_closed():
                continue  # the request was cancelled (its write stands), or its loop is gone
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(self._on_error(error))

    def _stop_helper(self) -> None:
        """Close the helper's pipes (it ends on that) and stop watching them. The caller holds the lock."""
        helper, self._helper = self._helper, None
        loop, self._loop = self._loop, None
        if helper is None:
            return
        assert helper.stdin is not None and helper.stdout is not None
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(Exception):
                loop.remove_reader(helper.stdout.fileno())
        for pipe in (helper.stdin, helper.stdout):
            with contextlib.suppress(OSError):
                pipe.close()
        try:
            helper.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - it ends at once on end of input
            helper.kill()
            helper.wait()

    def close(self) -> None:
        """Sync for whoever still waits, then stop the helper."""
        with self._lock:
            self._closed = True
            waiting = self._asked + self._next
            self._asked, self._next = [], []
            loop = self._loop
            self._stop_helper()
        if waiting and loop is not None:
            error: OSError | None = None
            try:
                self._sync_file()
            except OSError as failed:  # handed to the writers
                error = failed
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits
                if loop.is_running():
                    loop.call_soon_threadsafe(self._settle, waiting, error)
                else:
                    self._settle(waiting, error)
        with self._file_lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
