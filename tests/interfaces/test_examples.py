"""The worked examples of docs/interfaces.md run as written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path) -> dict[str, str]:
    from tests.conftest import TEMPLATES

    home = tmp_path / "home"
    home.mkdir()
    (home / "templates").symlink_to(TEMPLATES, target_is_directory=True)  # the test run's world templates
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    # (the idle time: a backstop, should a failing run leave the shell example's app server behind)
    return {**os.environ, "SANDBOX_HOME": str(home), "PYTHONPATH": str(ROOT), "PATH": path, "SANDBOX_APP_IDLE": "120"}


def test_the_mcp_example_solves_its_task(tmp_path, store) -> None:  # noqa: ANN001 - store: the templates folder exists
    done = subprocess.run([sys.executable, "docs/examples/mcp_solve.py"], cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "verdict: passed 1.0" in done.stdout and "stage: Closed Won probability: 100" in done.stdout, done.stdout


def test_the_shell_example_solves_its_task(tmp_path, store) -> None:  # noqa: ANN001 - store: the templates folder exists
    env = _env(tmp_path)
    try:
        done = subprocess.run(["bash", "docs/examples/shell_agent.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    finally:  # the app server `sandbox app start` left for the session
        stopped = subprocess.run([sys.executable, "-m", "sandbox.cli", "app", "stop"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.rstrip().endswith("PASSED score 1.00: all 3 checks passed"), done.stdout
    assert "it answered 6 commands" in stopped.stdout, stopped.stdout  # every command after start was answered warm
