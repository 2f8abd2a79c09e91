"""Audit the pinned dependencies (constraints.txt) for known vulnerabilities with pip-audit.

    .venv/bin/python scripts/audit.py [constraints.txt]

Exit status: 0 when every pinned package was checked and none has a known vulnerability;
1 when one has (they are listed, with the versions that fix them); 2 when the audit could
not be done, for some or all of them (its vulnerability service, PyPI's JSON API, unreachable
or not knowing the pinned versions, as on a mirror): pip-audit itself then says "No known
vulnerabilities found" and exits 0, which would pass while auditing nothing. The last line
says which of the three it was, plainly.

``TRIPEAKS_AUDIT_REQUIRED=0`` makes the third case exit 0 (still printing DEPENDENCY AUDIT NOT
DONE): for machines that cannot reach PyPI, where .ci/run sets it and prints why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BANNER = "=" * 78


def not_done(what: str, required: bool) -> int:
    if required:
        print(f"DEPENDENCY AUDIT NOT DONE: {what}; failing (set TRIPEAKS_AUDIT_REQUIRED=0 where PyPI "
              "cannot be reached)")
        return 2
    print(f"DEPENDENCY AUDIT NOT DONE: {what}; passing only because TRIPEAKS_AUDIT_REQUIRED=0")
    return 0


def main() -> int:
    requirements = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "constraints.txt"
    required = os.environ.get("TRIPEAKS_AUDIT_REQUIRED", "1") != "0"
    pip_audit = Path(sys.executable).with_name("pip-audit")
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "audit.json"
        command = [
            str(pip_audit) if pip_audit.exists() else "pip-audit",
            "--progress-spinner", "off", "--disable-pip", "--no-deps",
            "--requirement", str(requirements), "--format", "json", "--output", str(report),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        data = json.loads(report.read_text()) if report.exists() and report.stat().st_size else None
    if data is None:
        print(BANNER)
        print("DEPENDENCY AUDIT NOT DONE: pip-audit gave no report (exit status "
              f"{done.returncode}). Most likely its vulnerability service (PyPI) cannot be reached:")
        print((done.stderr or done.stdout).strip()[-2000:])
        print(BANNER)
        return not_done("no package was checked", required)

    dependencies = data.get("dependencies", [])
    vulnerable = [d for d in dependencies if d.get("vulns")]
    skipped = [d for d in dependencies if d.get("skip_reason")]
    checked = len(dependencies) - len(skipped)
    for dependency in vulnerable:
        for vuln in dependency["vulns"]:
            fixes = ", ".join(vuln.get("fix_versions", [])) or "no fixed release yet"
            print(f"VULNERABLE {dependency['name']} {dependency.get('version')}: {vuln['id']} "
                  f"(fixed in {fixes}) {vuln.get('description', '')[:200]}")
    if vulnerable:
        print(f"dependency audit: {len(vulnerable)} of {len(dependencies)} pinned packages have known "
              "vulnerabilities: raise their pins in constraints.txt (and pyproject.toml)")
        return 1
    if skipped:
        print(BANNER)
        print(f"DEPENDENCY AUDIT INCOMPLETE: {len(skipped)} of {len(dependencies)} pinned packages could "
              f"not be checked ({checked} were, with no known vulnerability).")
        print("pip-audit asks PyPI's JSON API for each pinned version; here it answered, for instance:")
        for dependency in skipped[:3]:
            print(f"  {dependency['skip_reason']}")
        print("The vulnerability service cannot be reached from this machine or does not know these")
        print("versions (a mirror of PyPI): run `make audit` where PyPI's JSON API answers to audit them.")
        print(BANNER)
        return not_done(f"{len(skipped)} of {len(dependencies)} pinned packages were not checked", required)
    print(f"dependency audit: {len(dependencies)} pinned packages checked, no known vulnerabilities")
    return 0


if __name__ == "__main__":
    sys.exit(main())
