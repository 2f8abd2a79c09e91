"""The image, built and run for real with podman (docs/deploy.md).

The image is built from this checkout with ``podman build --format docker`` (the docker format
keeps the HEALTHCHECK) on the base named by ``$TRIPEAKS_CONTAINER_BASE``, else the Dockerfile's
default base when it is already in podman's storage, else a stand-in made with debootstrap from
Debian's packages (python3 and its venv module: what the official slim image gives), since no
image registry is reachable from the machines this runs on. pip inside the build trusts the CA
bundle this machine's pip trusts, passed as a build secret (so it is not in any layer).

Then: a game played through the API; the health check (on another port too, and failing fast
when the server hangs); the non-root user; data surviving a restart and a new container on
the volume; SIGTERM stopping it within 2 s with nothing lost; several workers; compose with
podman-compose (>= 1.0.4, which honours ``profiles:``). It skips, saying why, only where no
container engine can run (and fails instead under ``TRIPEAKS_REQUIRE_CONTAINER=1``, as in CI).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.machines import INSIDE, ROOT, Podman, debian_root, host_ca_bundle, locked, require_or_skip
from tests.support.servers import free_port

pytestmark = [pytest.mark.slow, pytest.mark.container, pytest.mark.timeout(1800)]

DEFAULT_BASE = re.search(r"^ARG BASE=(\S+)", (ROOT / "Dockerfile").read_text(), re.M).group(1)  # type: ignore[union-attr]
STAND_IN_PACKAGES = ("python3", "python3-venv", "ca-certificates")
CODE = "TP1-E-AAAAAAB"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


@pytest.fixture(scope="module")
def podman() -> Podman:
    if os.environ.get(INSIDE) == "1":
        pytest.skip("inside the fresh-machine test, which runs the suite without the deploy tests")
    engine = Podman()
    why = engine.usable()
    if why:
        require_or_skip(why, "TRIPEAKS_REQUIRE_CONTAINER")
    return engine


def base_image(podman: Podman) -> str:
    chosen = os.environ.get("TRIPEAKS_CONTAINER_BASE")
    if chosen:
        return chosen
    if podman.run("image", "exists", DEFAULT_BASE, check=False).returncode == 0:
        return DEFAULT_BASE
    tarball = debian_root(STAND_IN_PACKAGES)
    name = f"localhost/tripeaks-stand-in-base:{tarball.stem.removeprefix('debian-')}"
    with locked("stand-in-base"):
        if podman.run("image", "exists", name, check=False).returncode != 0:
            with tarball.open("rb") as tar:
                changes = ["--change", 'CMD ["/bin/bash"]', "--change",
                           "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]
                done = subprocess.run(["podman", "import", *changes, "-", name],
                                      stdin=tar, env=podman.env, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr
    return name


def build(podman: Podman, context: Path, tag: str, base: str) -> str:
    args = ["build", "--format", "docker", "--build-arg", f"BASE={base}", "-t", tag]
    bundle = host_ca_bundle()
    if bundle:
        args += ["--secret", f"id=ca,src={bundle}"]
    began = time.monotonic()
    log = podman.run(*args, str(context), timeout=1500).stdout
    steps = re.findall(r"^STEP \d+/\d+: ", log, re.M)
    print(f"podman build of {context.name}: {time.monotonic() - began:.0f} s, "
          f"{log.count('--> Using cache')} of {len(steps)} steps from the cache")
    return log


@dataclass
class Image:
    tag: str
    base: str
    log: str


@pytest.fixture(scope="module")
def image(podman: Podman) -> Iterator[Image]:
    base = base_image(podman)
    tag = f"localhost/tripeaks-test:{secrets.token_hex(4)}"
    log = build(podman, ROOT, tag, base)
    yield Image(tag, base, log)
    podman.run("rmi", "-f", tag, check=False)


class Container:
    """A container of the image, named for this test, removed (with its volume) at the end."""

    def __init__(self, podman: Podman, image: Image, *, volume: str, env: dict[str, str] | None = None,
                 port: int = 8000) -> None:
        self.podman, self.image, self.volume = podman, image, volume
        self.name = f"tripeaks-test-{secrets.token_hex(4)}"
        self.host_port = free_port()
        self.url = f"http://127.0.0.1:{self.host_port}"
        options = ["-p", f"127.0.0.1:{self.host_port}:{port}", "-v", f"{volume}:/data"]
        for key, value in (env or {}).items():
            options += ["-e", f"{key}={value}"]
        podman.run("run", "-d", "--name", self.name, *options, image.tag)

    def wait_until_serving(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"the container never answered:\n{self.logs()}")
            time.sleep(0.2)  # waits for the server in the container to start

    def logs(self) -> str:
        done = self.podman.run("logs", self.name, check=False)
        return done.stdout + done.stderr

    def inspect(self, template: str) -> str:
        return self.podman.run("inspect", "--format", template, self.name).stdout.strip()

    def exec(self, *command: str) -> str:
        return self.podman.run("exec", self.name, *command).stdout

    def remove(self) -> None:
        self.podman.run("rm", "-f", "-t", "0", self.name, check=False)


@pytest.fixture
def volume(podman: Podman) -> Iterator[str]:
    name = f"tripeaks-test-data-{secrets.token_hex(4)}"
    podman.run("volume", "create", name)
    yield name
    podman.run("volume", "rm", "-f", name, check=False)


@pytest.fixture
def containers(podman: Podman, image: Image) -> Iterator[list[Container]]:
    made: list[Container] = []
    yield made
    for container in made:
        container.remove()


def start(podman: Podman, image: Image, made: list[Container], volume: str, **kwargs: object) -> Container:
    container = Container(podman, image, volume=volume, **kwargs)  # type: ignore[arg-type]
    made.append(container)
    container.wait_until_serving()
    return container


# -- playing through the API, as a client would ------------------------------------------------


def playable(card: str, waste: str) -> bool:
    """Easy rules: one rank above or below, King and Ace joined."""
    a, b = RANKS.index(card[:-1]), RANKS.index(waste[:-1])
    return (a - b) % 13 in (1, 12)


def play_to_the_end(client: httpx.Client, url: str) -> tuple[str, dict[str, object]]:
    """Deal CODE through the API and play it out greedily; returns the id and the last state."""
    response = client.post(f"{url}/api/games", json={"code": CODE})
    assert response.status_code == 201, response.text
    state = response.json()
    game_id = state["id"]
    assert state["code"] == CODE and state["moves"] == 0 and state["status"] == "playing"
    while state["status"] == "playing":
        choices = [slot["position"] for slot in state["tableau"]
                   if slot["face_up"] and playable(slot["card"], state["waste"])]
        action, body = ("remove", {"position": choices[0]}) if choices else ("draw", None)
        moves = state["moves"]
        response = client.post(f"{url}/api/games/{game_id}/{action}", json=body)
        assert response.status_code == 200, response.text
        state = response.json()
        assert state["moves"] == moves + 1
    assert state["status"] in ("won", "blocked")
    return game_id, state


def test_a_game_plays_through_the_api_and_survives_restarts_on_the_volume(
    podman: Podman, image: Image, volume: str, containers: list[Container]
) -> None:
    container = start(podman, image, containers, volume)
    with httpx.Client(timeout=10) as client:
        page = client.get(container.url + "/", follow_redirects=True)
        assert page.status_code == 200 and 'id="table"' in page.text
        stylesheet = page.text.split('rel="stylesheet" href="')[1].split('"')[0]
        assert client.get(container.url + stylesheet).status_code == 200  # static files are in the image
        game_id, final = play_to_the_end(client, container.url)

        podman.run("restart", container.name, timeout=60)
        container.wait_until_serving()
        assert client.get(f"{container.url}/api/games/{game_id}").json() == final

        container.remove()  # a new container on the same volume: the games are in the volume
        again = start(podman, image, containers, volume)
        assert client.get(f"{again.url}/api/games/{game_id}").json() == final
    assert "Traceback" not in container.logs() + again.logs()


def test_it_runs_as_a_user_who_is_not_root_and_writes_only_the_volume(
    podman: Podman, image: Image, volume: str, containers: list[Container]
) -> None:
    container = start(podman, image, containers, volume)
    status = container.exec("cat", "/proc/1/status")
    uids = re.search(r"^Uid:\s+(\d+)\s+(\d+)", status, re.M)
    assert uids and uids.groups() == ("10001", "10001"), status
    assert container.exec("id", "-un").strip() == "tripeaks"
    assert "secret_key" in container.exec("ls", "/data") and "tripeaks.db" in container.exec("ls", "/data")
    done = podman.run("exec", container.name, "touch", "/opt/tripeaks/x", check=False)
    assert done.returncode != 0, "the installed code is writable by the server's user"


def test_the_health_check_is_kept_follows_the_port_and_fails_fast(
    podman: Podman, image: Image, volume: str, containers: list[Container]
) -> None:
    config = json.loads(podman.run("image", "inspect", "--format", "{{json .Config.Healthcheck}}",
                                   image.tag).stdout)
    assert config and config["Test"][0] in ("CMD", "CMD-SHELL"), config  # --format docker kept it
    interval_s, timeout_s = config["Interval"] / 1e9, config["Timeout"] / 1e9
    retries = config.get("Retries") or 3
    assert interval_s * retries + timeout_s <= 40, f"an unhealthy server shows only after {interval_s * retries} s"

    container = start(podman, image, containers, volume, env={"TRIPEAKS_PORT": "9123"}, port=9123)
    began = time.monotonic()
    assert podman.run("healthcheck", "run", container.name, check=False).returncode == 0, container.logs()
    healthy = time.monotonic() - began  # podman's own time to run a check (seconds on a loaded machine)

    # A hung server: the check gives up in its 2 s. (From outside: the kernel ignores SIGSTOP
    # sent to a namespace's PID 1 from inside it.)
    podman.run("kill", "--signal", "STOP", container.name)
    try:
        began = time.monotonic()
        done = podman.run("healthcheck", "run", container.name, check=False, timeout=60)
        took = time.monotonic() - began
    finally:
        podman.run("kill", "--signal", "CONT", container.name)
    assert done.returncode != 0, "a hung server was reported healthy"
    print(f"health check: {healthy:.1f} s healthy, {took:.1f} s on a hung server")
    assert took < healthy + timeout_s + 3, f"the failing check took {took:.1f} s ({healthy:.1f} s when healthy)"
    assert podman.run("healthcheck", "run", container.name, check=False).returncode == 0


def test_sigterm_stops_it_within_two_seconds_and_loses_nothing(
    podman: Podman, image: Image, volume: str, containers: list[Container]
) -> None:
    container = start(podman, image, containers, volume)
    with httpx.Client(timeout=10) as client:
        dealt = client.post(f"{container.url}/api/games", json={"code": CODE}).json()
        game_id = dealt["id"]
        acknowledged = 0
        for _ in range(10):
            assert client.post(f"{container.url}/api/games/{game_id}/draw").status_code == 200
            acknowledged += 1
        began = time.monotonic()
        podman.run("kill", "--signal", "TERM", container.name)
        podman.run("wait", container.name, timeout=30)
        took = time.monotonic() - began
        print(f"SIGTERM to stopped: {took:.2f} s")
        assert took < 2, f"SIGTERM took {took:.2f} s to stop it"
        assert container.inspect("{{.State.ExitCode}}") == "0", container.logs()
        assert "Traceback" not in container.logs(), container.logs()

        again = start(podman, image, containers, volume)
        state = client.get(f"{again.url}/api/games/{game_id}").json()
        assert state["moves"] == acknowledged and state["stock_count"] == dealt["stock_count"] - acknowledged


def test_tripeaks_workers_runs_that_many_server_processes(
    podman: Podman, image: Image, volume: str, containers: list[Container]
) -> None:
    container = start(podman, image, containers, volume, env={"TRIPEAKS_WORKERS": "2"})
    processes = container.exec("sh", "-c", "cat /proc/[0-9]*/cmdline | tr '\\0' ' '; echo")
    assert processes.count("--multiprocessing-fork") == 2, processes  # uvicorn's worker processes
    with httpx.Client(timeout=10) as client:
        for _ in range(4):
            assert client.post(f"{container.url}/api/games", json={}).status_code == 201


def test_a_code_change_keeps_the_dependency_layer(podman: Podman, image: Image, tmp_path: Path) -> None:
    context = tmp_path / "context"
    shutil.copytree(ROOT, context, ignore=shutil.ignore_patterns(".venv", ".git", "test-output", "data",
                                                                 "__pycache__", ".*_cache"))
    with (context / "app" / "__init__.py").open("a") as module:
        module.write("# a code change\n")
    tag = f"localhost/tripeaks-test:{secrets.token_hex(4)}"
    try:
        log = build(podman, context, tag, image.base)
    finally:
        podman.run("rmi", "-f", tag, check=False)
    steps = re.split(r"^STEP \d+/\d+: ", log, flags=re.M)
    install = next(step for step in steps if step.startswith("RUN") and "-r /tmp/requirements.txt" in step)
    assert "Using cache" in install, install[-1500:]
    code = next(step for step in steps if step.startswith("RUN") and "--no-deps" in step)
    assert "Using cache" not in code


# -- compose -----------------------------------------------------------------------------------


def podman_compose(podman: Podman) -> list[str]:
    local = ROOT / ".venv" / "bin" / "podman-compose"
    found = str(local) if local.exists() else shutil.which("podman-compose")
    if found is None:
        require_or_skip("podman-compose is not installed (pip install 'podman-compose>=1.0.4'; .ci/run does)",
                        "TRIPEAKS_REQUIRE_CONTAINER")
    version = subprocess.run([found, "version"], capture_output=True, text=True, env=podman.env).stdout
    match = re.search(r"podman-compose version:?\s*(\d+)\.(\d+)\.(\d+)", version)
    assert match and tuple(map(int, match.groups())) >= (1, 0, 4), f"podman-compose too old: {version}"
    return [found]


def test_compose_comes_up_with_podman_compose(podman: Podman, image: Image, tmp_path: Path) -> None:
    compose = podman_compose(podman)
    project = f"tripeaks-test-{secrets.token_hex(4)}"
    port = free_port()
    env = {**podman.env, "TRIPEAKS_HOST_PORT": str(port), "TRIPEAKS_IMAGE": image.tag,
           "TRIPEAKS_BASE_IMAGE": image.base}
    command = [*compose, "-f", str(ROOT / "compose.yaml"), "-p", project]

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([*command, *args], env=env, cwd=tmp_path, capture_output=True, text=True,
                              timeout=600)
        if check:
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done

    try:
        run("up", "-d")
        names = podman.run("ps", "--filter", f"label=io.podman.compose.project={project}",
                           "--format", "{{.Names}}").stdout.split()
        assert len(names) == 1 and "tripeaks" in names[0], names  # the postgres profile stays down
        ports = podman.run("port", names[0]).stdout
        assert f"127.0.0.1:{port}" in ports, ports  # bound to loopback only
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, podman.run("logs", names[0], check=False).stderr
            time.sleep(0.2)  # waits for the server in the container to start
        state = httpx.post(f"http://127.0.0.1:{port}/api/games", json={"code": CODE}, timeout=10)
        assert state.status_code == 201
    finally:
        run("down", "-v", check=False)
    left = podman.run("ps", "-a", "--filter", f"label=io.podman.compose.project={project}", "-q").stdout
    assert not left.strip(), "compose down left containers behind"
