"""The README's two commands on a fresh minimal Debian, as root with no sudo and no services.

A clean Debian root (``debootstrap --variant=minbase`` with python3 and make only: no
python3-venv, no sudo, no PostgreSQL, Redis or Chromium) gets a copy of this checkout at
``/root/tri peaks`` (a path with a space), and runs there, in a chroot:

1. ``scripts/install-system-deps`` as a user who is neither root nor has sudo: it must say
   what to run, and fail;
2. ``python3 -m venv .venv``, which fails without python3-venv and leaves a half-made .venv;
3. ``make run``: it must install what it needs (python3-venv too), make the venv afresh and
   serve the game;
4. ``make test``: it must pass, with the PostgreSQL tests skipped and their reason given. It
   runs a sample of the suite (``SAMPLE``, given to it in ``PYTEST_ADDOPTS``): a file or folder
   for each thing the suite needs the machine to have (Chromium, its driver's libatomic, the
   fonts of every language, a live server, SQLite, numpy, the catalogs). The whole suite runs on
   the host in the same CI run; here it would only repeat it, for 35 of CI's minutes
   (docs/deploy.md).

The chroot runs in namespaces of its own (``unshare``): its mounts (/proc, /dev) vanish with
it, whatever happens, and are checked gone; its network is its own (``slirp4netns``, with the
host's loopback cut off), so its ``make run`` has port 8000 to itself and the PostgreSQL and
Redis this machine runs are not there. The inner run sets ``TRIPEAKS_INSIDE_FRESH_MACHINE=1``:
there the deploy tests skip, so this test does not run itself. Nothing of the host's checkout
is mounted inside: it is copied in.

Slow (about 15 minutes): it runs when ``TRIPEAKS_FRESH_MACHINE_TEST=1`` (.ci/run sets it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.support.machines import CACHE, INSIDE, ROOT, debian_root, host_ca_bundle, mounts_under, remove_tree

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

CHECKOUT = "/root/tri peaks"

SAMPLE = " ".join([
    "tests/engine/test_game.py",         # the rules
    "tests/engine/test_cli.py",          # the tripeaks command
    "tests/i18n/test_catalogs.py",       # the catalogs compiled
    "tests/i18n/test_localized_pages.py",  # every language's pages
    "tests/solver/test_solver_api.py",   # numpy, through the analysis
    "tests/store/test_sql.py",           # SQLite for real, PostgreSQL's tests skipped with their reason
    "tests/web/test_pages.py",
    "tests/security/test_operators_live.py",  # live uvicorn servers, over real HTTP
    "tests/browser/test_play.py",        # Chromium, Playwright's driver (libatomic1)
    "tests/browser/test_languages.py",   # the Hebrew, Ukrainian and Thai fonts
])
"""What the fresh machine's ``make test`` runs: each kind of thing the suite needs installed."""
INNER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# What runs in the chroot. Each step prints "@@ <step> rc=<status> at=<seconds since the start>s";
# its output goes to logs/.
INNER = r"""#!/bin/sh
set -u
cd "$CHECKOUT"
logs=/root/logs
mkdir -p "$logs"
began=$(date +%s)
step() { echo "@@ $1 rc=$2 at=$(($(date +%s) - began))s"; }

cp scripts/install-system-deps /tmp/install-system-deps  # where nobody can read it (not under /root)
(cd /tmp && setpriv --reuid=65534 --regid=65534 --clear-groups sh /tmp/install-system-deps) > "$logs/nosudo.log" 2>&1
step nosudo $?

python3 -m venv .venv > "$logs/halfvenv.log" 2>&1
step halfvenv $?
[ -e .venv/bin/python ] && step halfvenv-left 0

setsid make run > "$logs/run.log" 2>&1 &
server=$!
python3 - <<'EOF'
import sys, time, urllib.request
deadline = time.monotonic() + 1200
while time.monotonic() < deadline:
    try:
        page = urllib.request.urlopen("http://127.0.0.1:8000/", timeout=5).read().decode()
    except OSError:
        time.sleep(1)  # pip is still installing: poll until it serves
        continue
    sys.exit(0 if 'id="table"' in page else 3)
sys.exit(4)
EOF
step run $?
kill -TERM "-$server"  # the process group: make and the server it runs
wait "$server"
step run-stopped $?

PYTEST_ADDOPTS="$SAMPLE" make test > "$logs/test.log" 2>&1
step test $?
"""

# What runs in the new namespaces, before and around the chroot (on the host's tools).
LAUNCH = r"""#!/bin/sh
set -eu
root="$1"
for i in $(seq 300); do  # slirp4netns, started from outside, gives this namespace its network
    grep -q tap0 /proc/self/net/dev && awk '$2 == "00000000" {f = 1} END {exit !f}' /proc/self/net/route && break
    sleep 0.1
done
ip link set lo up
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o size=512m,mode=1777 tmpfs "$root/dev/shm"
mount -t sysfs sysfs "$root/sys"
exec chroot "$root" /usr/bin/env -i PATH="$INNER_PATH" HOME=/root LANG=C.UTF-8 TERM=dumb \
    CHECKOUT="$CHECKOUT" SAMPLE="$SAMPLE" PIP_CERT=/etc/ssl/host-ca.pem SSL_CERT_FILE=/etc/ssl/host-ca.pem \
    TRIPEAKS_INSIDE_FRESH_MACHINE=1 sh /root/inner.sh
"""


def copy_checkout(target: Path) -> None:
    """The checkout's files as git sees them (tracked, and new ones not ignored)."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def wait_for_own_network(process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    host = os.readlink("/proc/self/ns/net")
    deadline = time.monotonic() + timeout
    while True:
        try:
            if os.readlink(f"/proc/{process.pid}/ns/net") != host:
                return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError("unshare never made its network namespace")
        time.sleep(0.05)  # waits for unshare(2) in the child process


def quick_start() -> list[str]:
    """The commands of the README's quick start (its first code block), comments left out."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "the README's quick start has no sh block"
    lines = (line.split("#", 1)[0].strip() for line in block.group(1).splitlines())
    return [line for line in lines if line]


def steps(output: str) -> dict[str, int]:
    return {name: int(rc) for name, rc in re.findall(r"^@@ (\S+) rc=(\d+)(?: at=\d+s)?$", output, re.M)}


def test_the_readme_commands_work_on_a_fresh_debian_as_root_without_sudo(tmp_path: Path) -> None:
    if os.environ.get(INSIDE) == "1":
        pytest.skip("inside the fresh-machine test already")
    if os.environ.get("TRIPEAKS_FRESH_MACHINE_TEST") != "1":
        pytest.skip("slow (about 15 minutes): set TRIPEAKS_FRESH_MACHINE_TEST=1 to run it (.ci/run does)")
    for tool in ("unshare", "chroot", "slirp4netns", "ip"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is needed (.ci/run installs it)")
    assert quick_start() == ["make run", "make test"], "the README's quick start is these two commands"

    tarball = debian_root(("python3", "make"))
    root = Path(tempfile.mkdtemp(prefix="tripeaks-fresh-", dir=CACHE))
    slirp = None
    try:
        subprocess.run(["tar", "-C", str(root), "--numeric-owner", "-xf", str(tarball)], check=True)
        root.chmod(0o755)  # its / (mkdtemp made it 0700: no one but root could use the system)
        for absent in ("sudo", "psql", "redis-server", "chromium"):
            assert not any((root / d / absent).exists() for d in ("usr/bin", "usr/sbin", "bin", "sbin"))
        assert not (root / "usr/lib/python3.11/ensurepip").exists()  # no python3-venv
        checkout = root / CHECKOUT.lstrip("/")
        checkout.mkdir(parents=True)
        copy_checkout(checkout)
        bundle = host_ca_bundle()
        if bundle:  # this machine's network needs its CA: given to the fresh machine as a file
            (root / "etc/ssl").mkdir(exist_ok=True)
            shutil.copy(bundle, root / "etc/ssl/host-ca.pem")
        shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
        (root / "root/inner.sh").write_text(INNER)
        launch = tmp_path / "launch.sh"
        launch.write_text(LAUNCH)
        env = {**os.environ, "CHECKOUT": CHECKOUT, "INNER_PATH": INNER_PATH, "SAMPLE": SAMPLE}
        output = tmp_path / "output.log"
        with output.open("wb") as out:
            process = subprocess.Popen(
                ["unshare", "--mount", "--propagation", "private", "--net", "--pid", "--kill-child=SIGKILL",
                 "sh", str(launch), str(root)],
                stdout=out, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip
            # slirp4netns joins the process's network namespace by pid: only once it is a new one,
            # never the host's (it would give the host a tap0 and a default route).
            wait_for_own_network(process)
            slirp = subprocess.Popen(["slirp4netns", "--configure", "--mtu=65520", "--disable-host-loopback",
                                      str(process.pid), "tap0"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                process.wait(timeout=3300)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
        text = output.read_text(errors="replace")
        logs = CACHE / "fresh-machine-logs"  # the last run's, kept after the root is removed
        shutil.rmtree(logs, ignore_errors=True)
        if (root / "root/logs").is_dir():
            shutil.copytree(root / "root/logs", logs)

        def log(name: str) -> str:
            path = logs / f"{name}.log"
            return path.read_text(errors="replace") if path.exists() else f"(no {name}.log)"

        done = steps(text)
        print(f"fresh machine: steps {done}; logs in {logs}")
        print("fresh machine: " + ", ".join(re.findall(r"^@@ (\S+ rc=\d+ at=\d+s)$", text, re.M)))
        assert done.get("nosudo", 0) != 0, log("nosudo")
        assert "needs root" in log("nosudo") and "apt-get install" in log("nosudo"), log("nosudo")
        assert done.get("halfvenv", 0) != 0 and "halfvenv-left" in done, text + log("halfvenv")
        assert done.get("run") == 0, f"make run did not serve:\n{text}\n{log('run')[-5000:]}"
        assert "python3-venv" in log("run"), log("run")[-3000:]
        test_log = log("test")
        assert done.get("test") == 0, f"make test failed:\n{text}\n{test_log[-8000:]}"
        summary = test_log.strip().splitlines()[-1]
        assert re.search(r"\d+ passed", summary), summary
        assert not re.search(r"\d+ (failed|errors?)\b", summary), summary  # "2 xfailed" is fine
        skipped_postgres = [line for line in test_log.splitlines()
                            if line.startswith("SKIPPED") and "PostgreSQL is not reachable" in line]
        assert skipped_postgres, "the PostgreSQL tests did not skip, or gave no reason:\n" + test_log[-5000:]
        print(f"fresh machine: {summary}")
        print("\n".join(skipped_postgres))
    finally:
        if slirp is not None:
            slirp.terminate()
            slirp.wait(timeout=10)
        left = mounts_under(root)
        remove_tree(root)
        assert not left, f"the chroot left mounts behind: {left}"


def test_the_fresh_machine_sample_names_tests_that_exist() -> None:
    """A renamed or moved file would leave the sample collecting nothing where it stood."""
    missing = [part for part in SAMPLE.split() if not (ROOT / part).exists()]
    assert missing == []
    assert any(part.startswith("tests/browser/") for part in SAMPLE.split())
