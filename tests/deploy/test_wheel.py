"""A built wheel, installed (not editable) into a virtualenv of its own, serves its pages.

The templates and static files live at the top of the checkout; the wheel carries them inside
the package (setup.py, pyproject's package-data), so the installed package serves them with no
copy of the checkout anywhere near it. The wheel is built from a copy of the checkout (the
build leaves nothing in it, its own folders and caches left out), installed with ``--no-deps`` into a new virtualenv that takes the
dependencies from this test run's own site-packages (a ``.pth`` line: the editable install's
hooks there are not run), and served from a folder that is not the checkout. About 20 s.
"""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support.machines import ROOT
from tests.support.servers import live_server

pytestmark = pytest.mark.slow


LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "data", "test-output", "__pycache__",
                                  ".*_cache", ".hypothesis", "*.mo")


def test_an_installed_wheel_serves_pages_and_static_files(tmp_path: Path) -> None:
    source, wheels, venv, elsewhere = (tmp_path / name for name in ("source", "wheels", "venv", "elsewhere"))
    shutil.copytree(ROOT, source, ignore=LEFT_OUT, symlinks=True)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)],
                           capture_output=True, text=True, timeout=600, check=False)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = wheels.glob("tripeaks-*.whl")

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    target = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                 capture_output=True, text=True, check=True).stdout.strip())
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                                "--no-index", "-q", str(wheel)], capture_output=True, text=True, timeout=300, check=False)
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    assert (target / "app" / "templates" / "game.html").is_file()
    assert (target / "app" / "static" / "vendor" / "vendor.json").is_file()
    (target / "zz-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")

    elsewhere.mkdir()
    where = subprocess.run([str(python), "-c", "import app; print(app.__file__)"], cwd=elsewhere,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where == str(target / "app" / "__init__.py"), where  # the wheel's, not the checkout's

    data = elsewhere / "data"
    command = [str(python), "-m", "app.cli", "serve", "--port", "{port}"]
    with live_server(data, command=command, cwd=elsewhere) as server, httpx.Client(timeout=10) as client:
        page = client.get(f"{server.url}/", follow_redirects=True)
        assert page.status_code == 200 and 'id="table"' in page.text, page.text[:500]
        for name in ("tripeaks.css", "tripeaks.js", "vendor/htmx-4.0.1.min.js"):
            assert f"/static/{name}" in page.text, name
            answer = client.get(f"{server.url}/static/{name}")
            assert answer.status_code == 200 and answer.content == (ROOT / "static" / name).read_bytes(), name
        assert client.get(f"{server.url}/how-to-play").status_code == 200
        assert "Traceback" not in server.output(), server.output()
