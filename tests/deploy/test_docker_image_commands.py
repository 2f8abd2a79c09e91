"""The Docker image, checked without a Docker engine (this machine has none).

The Dockerfile's own instructions are read and run here: its `pip install` line in a
clean virtualenv on a copy of exactly the files it COPYs, then its CMD with its ENV
(the data folder moved to a temporary one), then its HEALTHCHECK command.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.servers import start_server

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def instructions() -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def test_dockerfile_follows_the_rules() -> None:
    steps = instructions()
    assert re.fullmatch(r"python:3\.\d+-slim", dict(steps)["FROM"])
    user = [rest for keyword, rest in steps if keyword == "USER"]
    assert user and user[-1] not in ("root", "0")
    cmd = json.loads(dict(steps)["CMD"])  # exec form: a JSON array
    assert cmd[:2] == ["tripeaks", "serve"] and "--reload" not in cmd
    assert "/data" in dict(steps)["VOLUME"]
    assert "HEALTHCHECK" in dict(steps)
    compose = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    assert "tripeaks-data:/data" in compose and "8000:8000" in compose


@pytest.mark.slow
def test_image_install_start_and_healthcheck_work_in_a_clean_virtualenv(tmp_path: Path) -> None:
    steps = instructions()
    app_dir = tmp_path / "app"
    app_dir.mkdir()
    for keyword, rest in steps:  # COPY exactly what the image copies
        if keyword == "COPY":
            *sources, _target = rest.split()
            for source in sources:
                path = ROOT / source
                if path.is_dir():
                    shutil.copytree(path, app_dir / source, ignore=shutil.ignore_patterns("__pycache__"))
                else:
                    shutil.copy(path, app_dir / source)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bin_dir = venv / "bin"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRIPEAKS_", "VIRTUAL_ENV", "PYTHONPATH"))}
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    install = next(rest for keyword, rest in steps if keyword == "RUN" and "pip install" in rest)
    subprocess.run(install, shell=True, cwd=app_dir, env=env, check=True, timeout=600)

    for keyword, rest in steps:
        if keyword == "ENV":
            for name, value in re.findall(r"(\w+)=(\S+)", rest):
                env[name] = value
    data = tmp_path / "data"
    data.mkdir()
    env["TRIPEAKS_DATA_DIR"] = str(data)
    env["TRIPEAKS_DATABASE_URL"] = env["TRIPEAKS_DATABASE_URL"].replace("/data/", f"{data}/")
    cmd = json.loads(dict(steps)["CMD"])
    cmd = [c.replace("0.0.0.0", "127.0.0.1").replace("8000", "{port}") for c in cmd]
    # Run from outside the source tree, on the clean virtualenv's PATH.
    server = start_server(data, env, command=cmd, cwd=tmp_path)
    port = server.url.rsplit(":", 1)[1]
    try:
        url = server.url
        page = httpx.get(url + "/", follow_redirects=True)
        assert page.status_code == 200 and 'id="table"' in page.text
        assert httpx.get(url + page.text.split('rel="stylesheet" href="')[1].split('"')[0]).status_code == 200
        health = json.loads(DOCKERFILE.split("CMD ", 1)[1].split("\n")[0])
        health = [h.replace("8000", str(port)) for h in health]
        assert health[0] == "python"
        subprocess.run([str(bin_dir / "python"), *health[1:]], check=True, timeout=10, env=env)
        if "sqlite" in env["TRIPEAKS_DATABASE_URL"] and "memory" not in env["TRIPEAKS_DATABASE_URL"]:
            assert any(data.iterdir()), "nothing was written to the data volume"
    finally:
        server.stop()
