"""A shell agent's commands: `sandbox app` answered by the warm app server vs run in their own process,
against the floor of a process that only starts Python and imports the CLI (no command can be faster),
interleaved in the same run:

- a tool call (`sandbox app crm opportunity list --limit 5`);
- a grade (`sandbox app verify`);
- the tool list (`sandbox app tools crm`).

The episode is one `sandbox app start` in the bench's own store. ``python -m bench shell``
(``SANDBOX_BENCH_QUICK=1`` for a shorter run).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .stats import load_note, summarize

QUICK = bool(os.environ.get("SANDBOX_BENCH_QUICK"))
ROUNDS = 8 if QUICK else 20
TASK = "crm.opportunity-close-won"
COMMANDS = {
    "tool call (crm opportunity list)": ["crm", "opportunity", "list", "--limit", "5"],
    "grade (verify)": ["verify"],
    "tool list (tools crm)": ["tools", "crm"],
}


def _timed(argv: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    ms = (time.perf_counter() - t) * 1000
    if done.returncode not in (0, 1):  # verify fails (1) on an untouched episode: still a full grade
        raise RuntimeError(f"{shlex.join(argv)}: {done.stderr[-1000:]}")
    return ms


def run(console: Console) -> None:
    from apps_web.world import WorldStore, default_home

    root = Path(tempfile.mkdtemp(prefix="bench-shell-"))
    WorldStore(root, templates_dir=default_home() / "templates").template(0)  # the templates the episode forks
    env = {**os.environ, "SANDBOX_HOME": str(root)}
    cli = [sys.executable, "-m", "sandbox.cli"]
    try:
        started = subprocess.run([*cli, "app", "start", "--task", TASK, "--seed", "0"], env=env, capture_output=True, text=True, timeout=300)
        assert started.returncode == 0, started.stderr
        for line in started.stdout.splitlines():
            if line.startswith("export "):
                key, _, value = line[len("export "):].partition("=")
                env[key] = shlex.split(value)[0] if value else ""
        cold = {**env, "SANDBOX_APP_SERVER": "0"}
        floor: list[float] = []
        warm: dict[str, list[float]] = {k: [] for k in COMMANDS}
        alone: dict[str, list[float]] = {k: [] for k in COMMANDS}
        for i in range(ROUNDS + 1):  # round 0 warms the page cache and is dropped
            f = _timed([sys.executable, "-c", "import sandbox.cli"], env)
            samples = {k: (_timed([*cli, "app", *a], env), _timed([*cli, "app", *a], cold)) for k, a in COMMANDS.items()}
            if i:
                floor.append(f)
                for k, (w, c) in samples.items():
                    warm[k].append(w)
                    alone[k].append(c)
        stopped = subprocess.run([*cli, "app", "stop"], env=env, capture_output=True, text=True, timeout=60).stdout.strip()
    finally:
        subprocess.run([*cli, "app", "stop"], env=env, capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)

    fl = summarize(floor)
    table = Table(title=f"sandbox app: warm server vs own process (ms; floor: python -c 'import sandbox.cli', {fl['median']:.0f} [{fl['p95']:.0f}])")
    for col in ("command", "warm median", "warm p95", "own process median", "own process p95", "speed-up", "warm / floor"):
        table.add_column(col, justify="left" if col == "command" else "right")
    for k in COMMANDS:
        w, c = summarize(warm[k]), summarize(alone[k])
        table.add_row(k, f"{w['median']:.0f}", f"{w['p95']:.0f}", f"{c['median']:.0f}", f"{c['p95']:.0f}",
                      f"{c['median'] / w['median']:.1f}x", f"{w['median'] / fl['median']:.2f}x")
    console.print(table)
    console.print(f"{ROUNDS} rounds, interleaved; {stopped}; {load_note()}")


def main() -> None:
    run(Console(width=max(Console().width, 140)))


if __name__ == "__main__":
    main()
