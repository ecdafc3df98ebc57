"""The VS Code extension packaged as a user gets it (a .vsix), for the slow tier's tests.

``npm run package`` builds ``editors/vscode/dist`` before it zips it, so two pytest workers
packaging at once would write the same files under each other: one build at a time (a
lock file in the system's temporary folder). The build needs npm and ``npm ci`` in
editors/vscode: without them a test is skipped, unless ``SKEWLSP_REQUIRE_VSIX=1`` (CI's
``.ci/run``) makes that a failure.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VSCODE = ROOT / "editors" / "vscode"


def require_vsix() -> bool:
    return os.environ.get("SKEWLSP_REQUIRE_VSIX") == "1"


def package_vsix(out: Path) -> Path:
    """``npm run package -- --out OUT`` in editors/vscode: the .vsix at ``out``."""
    npm = shutil.which("npm")
    if npm is None or not (VSCODE / "node_modules" / ".bin").is_dir():
        reason = "needs npm and `npm ci` in editors/vscode"
        if require_vsix():
            pytest.fail(f"SKEWLSP_REQUIRE_VSIX=1: {reason}")
        pytest.skip(reason)
    lock = Path(tempfile.gettempdir()) / f"skewlsp-vsix-{os.getuid()}.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        package = subprocess.run(
            [npm, "run", "package", "--", "--out", str(out)],
            cwd=VSCODE,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    assert package.returncode == 0, package.stdout + package.stderr
    return out
