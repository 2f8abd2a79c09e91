"""Caddy and nginx run on this machine in front of live servers, each from the configuration
the repository ships (``deploy/Caddyfile``, ``deploy/nginx.conf``), so the docs and the tests
cannot drift apart.

* Caddy reads the Caddyfile as it is; what differs here (the servers, its ports, its admin
  address, where it keeps its local CA) comes from the environment, as the compose file does it.
* nginx reads ``deploy/nginx.conf`` with only the lines it marks ``# yours`` changed: the
  servers, the ports, the certificate (a self-signed one made with ``openssl``), the log.

Both are found on ``PATH`` or in ``/usr/sbin``; where either is missing the test skips, saying
how to install it, or fails under ``TRIPEAKS_REQUIRE_PROXIES=1`` (.ci/run installs both).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.support.servers import ROOT, free_port

CADDYFILE = ROOT / "deploy" / "Caddyfile"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
REQUIRED = os.environ.get("TRIPEAKS_REQUIRE_PROXIES") == "1"


def program(name: str) -> str:
    """The path of ``caddy`` or ``nginx``, else a skip (a failure where they are required)."""
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if found is None:
        reason = f"{name} is not installed (apt-get install caddy nginx; .ci/run does)"
        if REQUIRED:
            pytest.fail(f"{reason} (TRIPEAKS_REQUIRE_PROXIES=1: the proxy tests must run here)")
        pytest.skip(reason)
    return found


@dataclass
class Proxy:
    """A proxy process serving ``url`` (https, HTTP/2) in front of the servers it was given."""

    name: str
    url: str
    process: subprocess.Popen[bytes]
    folder: Path
    env: dict[str, str]
    reload_command: list[str]
    reloads: int = 0
    logs: list[Path] = field(default_factory=list)

    def reload(self) -> None:
        """``caddy reload`` / ``nginx -s reload``: the configuration read again, at once."""
        done = subprocess.run(self.reload_command, env=self.env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{self.name} reload failed:\n{done.stdout}\n{done.stderr}"
        self.reloads += 1

    def stop(self) -> None:
        """At once, not gracefully (caddy: SIGQUIT; nginx: SIGTERM, its fast shutdown)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT if self.name == "caddy" else signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:  # pragma: no cover - a stuck proxy
                self.process.kill()
                self.process.wait(timeout=10)

    def output(self) -> str:
        return "\n".join(path.read_text(errors="replace")[-3000:] for path in self.logs if path.exists())


def wait_until_serving(proxy: Proxy, timeout: float = 60) -> Proxy:
    """Until ``/healthz`` answers 200 through the proxy (Caddy makes its local CA at first)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proxy.process.poll() is not None:
            raise AssertionError(f"{proxy.name} exited:\n{proxy.output()}")
        try:
            if httpx.get(proxy.url + "/healthz", verify=False, timeout=2).status_code == 200:
                return proxy
        except httpx.HTTPError:
            pass
        time.sleep(0.1)  # waits for the proxy process to start answering
    proxy.stop()
    raise AssertionError(f"{proxy.name} did not start serving:\n{proxy.output()}")


def start_caddy(folder: Path, upstreams: Sequence[str]) -> Proxy:
    """``caddy run`` with the repository's Caddyfile, on free loopback ports."""
    caddy = program("caddy")
    folder.mkdir(parents=True, exist_ok=True)
    port, admin = free_port(), f"127.0.0.1:{free_port()}"
    env = {
        **os.environ,
        "HOME": str(folder),
        "XDG_DATA_HOME": str(folder / "data"),  # its local CA and certificates
        "XDG_CONFIG_HOME": str(folder / "config"),
        "TRIPEAKS_SITE": "localhost",
        "TRIPEAKS_UPSTREAMS": " ".join(upstreams),
        "CADDY_ADMIN": admin,
        "CADDY_BIND": "127.0.0.1",
        "CADDY_HTTP_PORT": str(free_port()),
        "CADDY_HTTPS_PORT": str(port),
    }
    log = folder / "caddy.log"
    config = ["--config", str(CADDYFILE), "--adapter", "caddyfile"]
    with log.open("wb") as out:
        process = subprocess.Popen([caddy, "run", *config], env=env, cwd=folder, stdout=out, stderr=subprocess.STDOUT)
    reload = [caddy, "reload", *config, "--force", "--address", admin]
    proxy = Proxy("caddy", f"https://localhost:{port}", process, folder, env, reload, logs=[log])
    return wait_until_serving(proxy)


YOURS = re.compile(r"^(?P<indent>\s*)(?P<directive>\w+)\s[^\n]*# yours[^\n]*$", re.M)


def nginx_config(upstreams: Sequence[str], port: int, http_port: int, cert: Path, key: Path, log: Path) -> str:
    """``deploy/nginx.conf`` with every line it marks ``# yours`` made this test's own, and
    nothing else changed."""
    text = NGINX_CONF.read_text(encoding="utf-8")
    listens = iter([f"127.0.0.1:{http_port}", f"127.0.0.1:{port} ssl http2"])
    servers = iter(upstreams)
    made: list[str] = []

    def ours(match: re.Match[str]) -> str:
        indent, directive = match["indent"], match["directive"]
        value = {
            "access_log": lambda: str(log),
            "server": lambda: next(servers),
            "listen": lambda: next(listens),
            "server_name": lambda: "localhost",
            "ssl_certificate": lambda: str(cert),
            "ssl_certificate_key": lambda: str(key),
        }[directive]()
        made.append(directive)
        return f"{indent}{directive} {value};"

    config = YOURS.sub(ours, text)
    assert next(servers, None) is None, "deploy/nginx.conf names fewer servers than the test has"
    assert sorted(made) == sorted(
        ["access_log", "listen", "listen", "server_name", "server_name", "ssl_certificate", "ssl_certificate_key",
         *["server"] * len(upstreams)]
    ), made  # fmt: skip
    return config


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost and its key, made with ``openssl``."""
    cert, key = folder / "localhost.crt", folder / "localhost.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def start_nginx(folder: Path, upstreams: Sequence[str]) -> Proxy:
    """nginx with the repository's nginx.conf (its ``# yours`` lines made ours), in the
    foreground, its pid file and logs in ``folder``."""
    nginx = program("nginx")
    if os.geteuid() != 0:
        reason = "nginx as Debian builds it keeps its temporary files in /var/lib/nginx: run as root"
        if REQUIRED:
            pytest.fail(reason)
        pytest.skip(reason)
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = self_signed(folder)
    port = free_port()
    conf = folder / "nginx.conf"
    conf.write_text(nginx_config(upstreams, port, free_port(), cert, key, folder / "access.log"))
    base = [nginx, "-c", str(conf), "-e", str(folder / "error.log"), "-g", f"daemon off; pid {folder / 'nginx.pid'};"]
    log = folder / "nginx.out"
    with log.open("wb") as out:
        process = subprocess.Popen(base, cwd=folder, stdout=out, stderr=subprocess.STDOUT)
    proxy = Proxy("nginx", f"https://localhost:{port}", process, folder, dict(os.environ), [*base, "-s", "reload"],
                  logs=[log, folder / "error.log"])  # fmt: skip
    return wait_until_serving(proxy)
