"""The Makefile's virtualenv: made whole, or made again (never a half-made one reused).

On Debian without python3-venv, ``python3 -m venv .venv`` fails after making ``.venv/bin/python``;
a Makefile whose target is that file then reuses the broken venv ("make: .venv/bin/pip: No such
file or directory"). The fresh-machine test runs the whole story on a real fresh Debian; this
is the quick part of it, on this machine's python3.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_half_made_venv_is_made_again(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)  # what a failed `python3 -m venv` leaves
    (venv / "pyvenv.cfg").write_text("home = /nowhere\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "MAKE"))}
    python = shutil.which("python3") or sys.executable
    target = f"VENV={venv}"
    done = subprocess.run(["make", "-C", str(ROOT), f"PYTHON={python}", target, f"{venv}/.made"],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (venv / "bin" / "pip").exists() and (venv / ".made").exists()
    assert subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "--version"], check=False).returncode == 0
    again = subprocess.run(["make", "-C", str(ROOT), "-q", f"PYTHON={python}", target, f"{venv}/.made"],
                           capture_output=True, text=True, env=env, check=False)
    assert again.returncode == 0, "a whole venv is made again"
