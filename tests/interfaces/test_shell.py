"""The shell CLI: a task started, worked and graded from a terminal, as a shell agent would; answered by
the warm app server `sandbox app start` leaves running, and the same answers without it."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TASK = "crm.opportunity-close-won"


def test_a_shell_agent_starts_works_and_grades_a_task(tmp_path, registry) -> None:  # noqa: ANN001
    from tests.conftest import TEMPLATES

    home = tmp_path / "home"
    home.mkdir()
    (home / "templates").symlink_to(TEMPLATES, target_is_directory=True)
    # (the idle time: a backstop, should a failing run leave the app server behind)
    env = {**os.environ, "SANDBOX_HOME": str(home), "PYTHONPATH": str(ROOT), "SANDBOX_APP_IDLE": "120"}

    def app(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "sandbox.cli", "app", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)

    try:
        _work_and_grade(app, env, registry)
    finally:
        stopped = app("stop")
    # start waited for the server, which then answered start and every command after it
    assert stopped.returncode == 0 and "it answered 11 commands" in stopped.stdout, stopped.stdout + stopped.stderr
    # without a server (turned off): the same answer, from the command's own process, and none started
    env["SANDBOX_APP_SERVER"] = "0"
    graded = app("verify")
    assert graded.returncode == 0 and graded.stdout.startswith("PASSED score 1.00"), graded.stdout + graded.stderr
    assert app("stop").stdout.strip() == "no app server was running"


def _work_and_grade(app, env: dict, registry) -> None:  # noqa: ANN001
    started = app("start", "--task", TASK, "--seed", "1")
    assert started.returncode == 0, started.stderr
    for line in started.stdout.splitlines():
        if line.startswith("export "):
            key, _, value = line[len("export "):].partition("=")
            env[key] = shlex.split(value)[0] if value else ""
    assert env["SANDBOX_WORLD"] and env["SANDBOX_PERSONA"] and "Closed Won" in started.stdout
    spec = registry.get(TASK, 1)
    opp = spec.params["opp"]

    assert app("verify").returncode == 1  # nothing done yet
    listed = app("crm", "opportunity", "list", "--q", opp["name"])
    assert listed.returncode == 0 and opp["name"][:30] in listed.stdout and "(1 of 1)" in listed.stdout
    none = app("crm", "opportunity", "list", "--q", "no deal is called this")
    assert none.returncode == 0 and none.stdout == "(0 of 0)\n", none.stdout
    parsed = app("crm", "opportunity", "list", "--", "--q", opp["name"])  # `--`: typer parses, then the server answers
    assert parsed.returncode == 0 and parsed.stdout == listed.stdout
    wrong = app("crm", "opportunity", "update", "--record-id", str(opp["id"]), "--stage", "Won")
    assert wrong.returncode == 1 and "stage" in wrong.stderr
    unknown = app("crm", "opportunity", "close")
    assert unknown.returncode == 2 and "crm_update_opportunity" in unknown.stderr
    done = app("crm", "opportunity", "update", "--record-id", str(opp["id"]), "--stage", "Closed Won", "--json")
    assert done.returncode == 0 and '"stage": "Closed Won"' in done.stdout
    graded = app("verify")
    assert graded.returncode == 0 and graded.stdout.startswith("PASSED score 1.00"), graded.stdout + graded.stderr
    no_episode = subprocess.run([sys.executable, "-m", "sandbox.cli", "app", "crm", "account", "list"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                                env={k: v for k, v in env.items() if k != "SANDBOX_WORLD"})
    assert no_episode.returncode == 2 and "SANDBOX_WORLD" in no_episode.stderr
    gone = subprocess.run([sys.executable, "-m", "sandbox.cli", "app", "crm", "account", "list"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**env, "SANDBOX_WORLD": "w1-000000000000"})
    assert gone.returncode == 2 and "no world 'w1-000000000000'" in gone.stderr and "sandbox app start" in gone.stderr, gone.stderr
