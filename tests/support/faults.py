"""Faults made for a test: a private PostgreSQL cluster (``initdb`` in a temporary folder, on a
free port, as the ``postgres`` user when run as root: the shared server other tests use is
never touched) and a tiny disk (a tmpfs, root only) filled to the last byte. The fault tests,
the chaos soak and bench/chaos.py use them.

In CI (``TRIPEAKS_REQUIRE_FAULT_TESTS=1``, set by .ci/run where it provides what they need)
a test that cannot have them fails instead of skipping.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.servers import free_port

REQUIRED = os.environ.get("TRIPEAKS_REQUIRE_FAULT_TESTS") == "1"

# Root ignores file modes through these capabilities; without them (in the bounding set, so
# that no program it runs gets them back) a read-only file is read-only to root too.
MODE_CAPABILITIES = "-dac_override,-dac_read_search,-fowner,-linux_immutable"


def skip(reason: str) -> None:
    """Skip, saying why, or fail in CI where this test must run."""
    if REQUIRED:
        pytest.fail(f"{reason} (TRIPEAKS_REQUIRE_FAULT_TESTS=1: the fault tests must run here)")
    pytest.skip(reason)


# -- a private PostgreSQL ---------------------------------------------------------------------


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class PrivatePostgres:
    """A PostgreSQL cluster of this test's own, started and stopped at will."""

    def __init__(self, bindir: Path, root: Path) -> None:
        self.bindir, self.root = bindir, root
        self.data, self.log = root / "data", root / "postgres.log"
        self.port = free_port()
        self.user: list[str] = []
        if os.geteuid() == 0:  # initdb refuses root: run the server as its own user
            name = "postgres" if _user_exists("postgres") else "nobody"
            self.user = ["runuser", "-u", name, "--"]
            uid = pwd.getpwnam(name).pw_uid
            os.chown(root, uid, -1)
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def run(self, *args: str) -> None:
        subprocess.run([*self.user, *args], check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self.run(str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                 "--no-sync", "-E", "UTF8")

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off"
        self.run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options,
                 "-w", "-t", "60", "start")

    def stop(self) -> None:
        self.run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@contextlib.contextmanager
def private_postgres_server() -> Iterator[PrivatePostgres]:
    """A private cluster, made, started, and removed afterwards (skips where it cannot run)."""
    bindir = postgres_bin()
    if bindir is None:
        skip("PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql; .ci/run does)")
    root = Path(tempfile.mkdtemp(prefix="tripeaks-pg-", dir="/tmp"))
    root.chmod(0o755)
    server = PrivatePostgres(bindir, root)
    try:
        server.init()
        server.start()
    except subprocess.CalledProcessError as error:  # pragma: no cover - depends on the machine
        shutil.rmtree(root, ignore_errors=True)
        skip(f"cannot run a private PostgreSQL here: {error.stderr.decode(errors='replace')[-500:]}")
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


# -- a full disk ------------------------------------------------------------------------


@contextlib.contextmanager
def tiny_disk(size: str = "1m") -> Iterator[Path]:
    if os.geteuid() != 0:
        skip("mounting a small tmpfs needs root")
    where = Path(tempfile.mkdtemp(prefix="tripeaks-full-", dir="/tmp"))
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        where.rmdir()
        skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        with contextlib.suppress(OSError):
            where.rmdir()


def fill(disk: Path) -> Path:
    """Fill the disk to the last byte; returns the filler file."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as error:
                assert error.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler
