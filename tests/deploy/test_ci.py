"""`.ci/deploy-test`: how .ci/run runs the slow deploy tests, as required.

A required test passes only when it ran and passed: a failure, a skip (a required test that
skipped has not run) and a run past its time each fail CI, saying which. Each case runs the
script for real on a small test file of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "deploy-test"


def deploy_test(tmp_path: Path, body: str, seconds: int = 120) -> subprocess.CompletedProcess[str]:
    test = tmp_path / "test_sample.py"
    test.write_text("import time\nimport pytest\n\n" + body)
    env = {**os.environ, "TRIPEAKS_CI_STATE": str(tmp_path / "state"), "TRIPEAKS_CI_PYTHON": sys.executable}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(["bash", str(SCRIPT), str(seconds), str(test)], capture_output=True, text=True,
                          env=env, timeout=seconds + 120, check=False)


@pytest.mark.parametrize(
    ("body", "seconds", "said"),
    [
        ("def test_it():\n    assert 1 == 2\n", 120, "FAILED (required)"),
        ("def test_it():\n    pytest.skip('no engine here')\n", 120, "a test SKIPPED"),
        ("def test_it():\n    time.sleep(60)  # runs past the script's 3 s\n", 3, "TIMED OUT after 3 s"),
    ],
    ids=["failed", "skipped", "timed-out"],
)
def test_a_required_deploy_test_that_did_not_pass_fails_ci(tmp_path: Path, body: str, seconds: int, said: str) -> None:
    done = deploy_test(tmp_path, body, seconds)
    assert done.returncode == 1, done.stdout + done.stderr
    assert said in done.stdout, done.stdout
    assert "failing the run" in done.stdout.splitlines()[-1]
    assert (tmp_path / "state" / "test_sample.log").exists()  # its output is kept


def test_a_required_deploy_test_that_passed_passes_and_says_its_time(tmp_path: Path) -> None:
    done = deploy_test(tmp_path, "def test_it():\n    assert True\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_sample.py: exit 0 after" in done.stdout
    assert done.stdout.splitlines()[-1].endswith("passed (required)")


def test_ci_runs_both_deploy_tests_through_it() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    for test in ("tests/deploy/test_container.py", "tests/deploy/test_fresh_machine.py"):
        assert any(
            line.startswith(".ci/deploy-test ") and line.split()[2] == test and line.endswith("|| exit 1")
            for line in ci.splitlines()
        ), test
    assert "export TRIPEAKS_REQUIRE_CONTAINER=1" in ci and "export TRIPEAKS_FRESH_MACHINE_TEST=1" in ci


def test_ci_installs_the_proxies_and_requires_their_test() -> None:
    """tests/deploy/test_proxies.py runs in `make test`; .ci/run installs Debian's Caddy and nginx
    first (their services kept stopped) and makes a missing one fail the test, not skip it."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "need_packages caddy nginx openssl" in ci and "exit 101" in ci
    assert ci.index("export TRIPEAKS_REQUIRE_PROXIES=1") < ci.index("PYTEST_ADDOPTS=")


def test_the_browser_tests_carry_the_browser_mark() -> None:
    """``-m "not browser"`` leaves out every test in tests/browser, and only those."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", "not browser",
         "tests/browser", "tests/web/test_display.py"],
        cwd=ROOT, capture_output=True, text=True, env=env, timeout=600, check=False,
    )  # fmt: skip
    kept = {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}
    assert kept == {"tests/web/test_display.py"}, done.stdout[-2000:]
