"""What the deploy tests run on: minimal Debian roots made with debootstrap, and podman.

* :func:`debian_root` makes a minimal Debian tree (``debootstrap --variant=minbase``) with the
  packages asked for, once: it is kept as a tarball in the cache folder (with the downloaded
  ``.deb`` files, shared by every root), so later runs only unpack it.
* :class:`Podman` runs podman with settings of its own (``containers.conf``, ``storage.conf``
  written into the cache folder): vfs storage, the runc runtime, the cgroupfs manager and
  ulimits that work here, and a storage of its own, apart from any other podman user's.

The cache folder is ``$TRIPEAKS_DEPLOY_CACHE`` (default ``/var/tmp/tripeaks-deploy-cache``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("TRIPEAKS_DEPLOY_CACHE", "/var/tmp/tripeaks-deploy-cache"))
def _host_mirror() -> str:
    """The Debian mirror this machine's apt uses (its first ``URIs:`` or ``deb`` line)."""
    for path in (Path("/etc/apt/sources.list.d/debian.sources"), Path("/etc/apt/sources.list")):
        try:
            for line in path.read_text().splitlines():
                words = line.split()
                if words[:1] == ["URIs:"] and len(words) > 1:
                    return words[1]
                if words[:1] == ["deb"] and len(words) > 2:
                    return next(w for w in words[1:] if "://" in w)
        except (OSError, StopIteration):
            continue
    return ""


MIRROR = os.environ.get("TRIPEAKS_DEBIAN_MIRROR") or _host_mirror()
INSIDE = "TRIPEAKS_INSIDE_FRESH_MACHINE"
"""Set in the fresh-machine test's inner run: the deploy tests skip there (no recursion)."""


def require_or_skip(reason: str, variable: str) -> None:
    """Skip with ``reason``, or fail when ``$variable`` is 1 (CI: this test must run)."""
    if os.environ.get(variable) == "1":
        pytest.fail(f"{reason} ({variable}=1: this test must run here)")
    pytest.skip(reason)


def host_ca_bundle() -> Path | None:
    """The CA bundle this machine's pip trusts (a TLS-intercepting proxy's, say), if any."""
    for variable in ("PIP_CERT", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
        value = os.environ.get(variable)
        if value and Path(value).is_file():
            return Path(value)
    done = subprocess.run(["python3", "-m", "pip", "config", "get", "global.cert"],
                          capture_output=True, text=True, check=False)
    if done.returncode == 0 and Path(done.stdout.strip()).is_file():
        return Path(done.stdout.strip())
    default = Path("/etc/ssl/certs/ca-certificates.crt")
    return default if default.is_file() else None


def debian_suite() -> str:
    """The host's Debian release (the roots match it), bookworm when it cannot tell."""
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("VERSION_CODENAME=") and line.split("=", 1)[1].strip():
                return line.split("=", 1)[1].strip()
    return "bookworm"


@contextlib.contextmanager
def locked(name: str) -> Iterator[None]:
    """An exclusive lock on ``CACHE/name.lock`` (two test runs never build the same thing)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def debian_root(packages: Sequence[str]) -> Path:
    """A tarball of a minimal Debian root with ``packages`` (made once, then kept)."""
    if os.geteuid() != 0:
        pytest.skip("debootstrap needs root")
    if shutil.which("debootstrap") is None:
        pytest.skip("debootstrap is not installed (apt-get install debootstrap; .ci/run does)")
    if not MIRROR:
        pytest.skip("no Debian mirror in this machine's apt sources: set TRIPEAKS_DEBIAN_MIRROR")
    suite = debian_suite()
    key = hashlib.sha256(" ".join([suite, MIRROR, *sorted(packages)]).encode()).hexdigest()[:12]
    tarball = CACHE / f"debian-{suite}-{key}.tar"
    with locked(tarball.name):
        if tarball.exists():
            return tarball
        (CACHE / "debs").mkdir(parents=True, exist_ok=True)
        tree = Path(tempfile.mkdtemp(prefix="debootstrap-", dir=CACHE))
        try:
            done = subprocess.run(
                ["debootstrap", "--variant=minbase", f"--cache-dir={CACHE / 'debs'}",
                 f"--include={','.join(packages)}", suite, str(tree), MIRROR],
                capture_output=True, text=True, timeout=1800, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                pytest.fail(f"debootstrap failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
            tree.chmod(0o755)  # its / (mkdtemp made it 0700, and tar keeps that)
            for leftover in (tree / "var/cache/apt/archives").glob("*.deb"):
                leftover.unlink()
            partial = tarball.with_suffix(".partial")
            subprocess.run(["tar", "-C", str(tree), "--numeric-owner", "-cf", str(partial), "."], check=True)
            partial.rename(tarball)
        finally:
            remove_tree(tree)
    return tarball


def mounts_under(path: Path) -> list[str]:
    """Mount points at or below ``path`` in this mount namespace."""
    prefix = str(path.resolve())
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].replace("\\040", " ")
        if point == prefix or point.startswith(prefix + "/"):
            found.append(point)
    return found


def remove_tree(path: Path) -> None:
    """``rm -rf`` a root tree, but only once nothing is mounted in it (never through a mount)."""
    if not path.exists():
        return
    for point in sorted(mounts_under(path), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False)
    left = mounts_under(path)
    if left:
        raise RuntimeError(f"still mounted under {path}, not removing it: {left}")
    subprocess.run(["rm", "-rf", "--one-file-system", str(path)], check=True)


# -- podman ------------------------------------------------------------------------------------


CONTAINERS_CONF = """\
# Written by tests/support/machines.py: podman settings that work on this kind of machine.
[containers]
default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
"""

STORAGE_CONF = """\
# Written by tests/support/machines.py: a storage of the tests' own, on vfs.
[storage]
driver = "vfs"
graphroot = "{root}/storage"
runroot = "{root}/run"
"""


class Podman:
    """``podman`` with the settings above; ``run`` returns the finished process."""

    def __init__(self) -> None:
        self.home = CACHE / "podman"
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / "containers.conf").write_text(CONTAINERS_CONF)
        (self.home / "storage.conf").write_text(STORAGE_CONF.format(root=self.home))
        self.env = {
            **os.environ,
            "CONTAINERS_CONF": str(self.home / "containers.conf"),
            "CONTAINERS_STORAGE_CONF": str(self.home / "storage.conf"),
        }

    def run(self, *args: str, timeout: float = 120, check: bool = True,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(["podman", *args], env=self.env, capture_output=True, text=True,
                              timeout=timeout, check=False, input=input)
        if check and done.returncode != 0:
            raise AssertionError(f"podman {' '.join(args)} failed ({done.returncode}):\n"
                                 f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done

    def usable(self) -> str | None:
        """Why podman cannot run containers here, or None when it can."""
        if shutil.which("podman") is None:
            return "podman is not installed (apt-get install podman runc; .ci/run does)"
        done = self.run("info", "--format", "{{.Host.OCIRuntime.Name}}", check=False, timeout=60)
        if done.returncode != 0:
            return f"podman cannot run here: {done.stderr.strip()[-500:]}"
        return None
