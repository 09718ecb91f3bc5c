"""The runner on the real environment and tasks: the oracle passes, noop fails, errors and time limits
are recorded, and a run killed with SIGKILL resumes with every episode whole and none twice."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sandbox.run import BackgroundRuntime, RunConfig, SelectionError, TaskInfo, catalog, parse_seeds, select_tasks
from sandbox.trajectory import load_episode, load_run

# One test worker runs the whole module, so its module-scoped runs (or runtime) are made once.
pytestmark = pytest.mark.xdist_group("runner-runs")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def env(store):  # noqa: ANN001 - one Chromium and app host for the module's runs
    from tasks.registry import TaskRegistry

    with BackgroundRuntime(store=store) as bg:
        bg.source = TaskRegistry(store=store)
        yield bg


@pytest.fixture(scope="module")
def few(env) -> list[str]:  # noqa: ANN001
    """A few tasks of different kinds, to keep the test short (the whole suite is `make run`)."""
    tasks = catalog(env.source)
    picked: dict[str, str] = {}
    for t in tasks:
        picked.setdefault(t.difficulty or "", t.id)
    ids = list(picked.values())[:3]
    infeasible = [t.id for t in tasks if "infeasible" in t.id or "infeasible" in t.tags]
    return ids + infeasible[:1]


def test_seeds_and_selectors():
    assert parse_seeds("0-2,7") == [0, 1, 2, 7] and parse_seeds("3") == [3] and parse_seeds(5) == [5]
    with pytest.raises(SelectionError):
        parse_seeds("4-1")
    with pytest.raises(SelectionError):
        parse_seeds("a")
    tasks = [TaskInfo("crm.close-won", "crm", "easy", ("path",)), TaskInfo("crm.mass-update", "crm", "hard", ("list", "mass"), category="mass-update"),
             TaskInfo("desk.reply", "desk", "medium", ("mail",))]  # fmt: skip
    ids = lambda sel: [t.id for t in select_tasks(tasks, sel)]  # noqa: E731
    assert ids(None) == ["crm.close-won", "crm.mass-update", "desk.reply"]
    assert ids("crm.*") == ["crm.close-won", "crm.mass-update"] and ids("*reply") == ["desk.reply"]
    assert ids(["tag:mass"]) == ["crm.mass-update"] and ids("crm.*,difficulty:easy") == ["crm.close-won"]
    assert ids("close-won") == ["crm.close-won"] and ids("app:desk") == ["desk.reply"]
    assert ids("!tag:path") == ["crm.mass-update", "desk.reply"]
    assert ids("category:mass-*") == ["crm.mass-update"] and ids("crm.*,!category:mass-update") == ["crm.close-won"]
    with pytest.raises(SelectionError, match="no task matches"):
        select_tasks(tasks, "nothing*")
    with pytest.raises(SelectionError, match="unknown task selector"):
        select_tasks(tasks, "colour:red")


def test_oracle_passes_noop_fails_and_resume_plays_nothing_twice(env, few, tmp_path):  # noqa: ANN001
    # One worker for the oracle: concurrent episodes can stall in the env's screenshot capture
    # (CDP Page.captureScreenshot never answering after a navigation), which is the env's to fix.
    oracle = env.run(RunConfig(agent="oracle", tasks=few, seeds="0", workers=1, time_limit=120, out=tmp_path / "oracle"), source=env.source)
    assert len(oracle.results) == len(few)
    assert all(r["passed"] and r["score"] == 1.0 for r in oracle.results), [(r["id"], r["reason"], r.get("cut_during")) for r in oracle.results if not r["passed"]]
    noop = env.run(RunConfig(agent="noop", tasks=few, seeds="0", workers=2, out=tmp_path / "noop"), source=env.source)
    assert not any(r["passed"] for r in noop.results) and {r["steps"] for r in noop.results} == {0}
    assert {r["end_reason"] for r in noop.results} == {"agent_done"}

    line = oracle.results[0]
    assert {"task", "seed", "passed", "score", "steps", "app", "difficulty", "tags", "duration_s"} <= set(line)
    ep = load_episode(oracle.out / "episodes" / line["id"])
    assert ep.verdict.passed and ep.verdict.checks and ep.record.timings.env > 0
    assert len(ep.steps) == line["steps"] and all(ep.screenshot_path(s.step) for s in ep.steps)
    assert ep.steps[-1].parsed["action"] in ("answer", "report_infeasible") or ep.record.end_reason == "agent_done"
    assert any(s.changes for s in ep.steps) or "infeasible" in line["task"]

    again = env.run(RunConfig(agent="oracle", tasks=few, seeds="0", workers=2, out=tmp_path / "oracle", resume=True), source=env.source)
    assert again.new == 0 and again.skipped == len(few)
    with pytest.raises(ValueError, match="would mix agents"):
        env.run(RunConfig(agent="noop", tasks=few, seeds="0", out=tmp_path / "oracle", resume=True), source=env.source)
    assert sorted(r["id"] for r in again.results) == sorted(r["id"] for r in oracle.results)


class Crash:
    def act(self, observation):  # noqa: ANN001, ANN201
        raise RuntimeError("the model fell over")


class Slow:
    async def act(self, observation):  # noqa: ANN001, ANN201
        await asyncio.sleep(60)


def test_agent_errors_and_time_limits_end_episodes_not_the_run(env, few, tmp_path):  # noqa: ANN001
    crash = env.run(RunConfig(agent="crash", tasks=few[:1], seeds="0-1", workers=2, out=tmp_path / "crash"), source=env.source, agent_factory=Crash)
    assert [r["outcome"] for r in crash.results] == ["error", "error"] and "the model fell over" in crash.results[0]["error"]
    class Broken:  # a task whose instance cannot be made for seed 1
        def __init__(self, inner):  # noqa: ANN001
            self.inner = inner

        def summaries(self):  # noqa: ANN202
            return self.inner.summaries()

        def get(self, task_id, seed):  # noqa: ANN001, ANN202
            if seed == 1:
                raise ValueError("no record matches the parameters")
            return self.inner.get(task_id, seed)

    broken = env.run(RunConfig(agent="noop", tasks=few[:1], seeds="0-1", workers=2, out=tmp_path / "broken"), source=Broken(env.source))
    by_seed = {r["seed"]: r for r in broken.results}
    assert by_seed[1]["outcome"] == "error" and "could not be set up" in by_seed[1]["error"] and by_seed[0]["outcome"] == "failed"
    t0 = time.monotonic()
    slow = env.run(RunConfig(agent="slow", tasks=few[:1], seeds="0", workers=1, time_limit=8, out=tmp_path / "slow"), source=env.source, agent_factory=Slow)
    assert time.monotonic() - t0 < 40
    r = slow.results[0]
    assert r["end_reason"] == "time_limit" and r["outcome"] == "failed" and r["reason"]  # graded as it stood
    assert load_episode(slow.out / "episodes" / r["id"]).record.cut_during == "the agent choosing action 1"


def test_sigkill_mid_run_then_resume(env, few, tmp_path):  # noqa: ANN001
    """Kill the runner (SIGKILL) while an episode is being written; ``sandbox run --resume`` removes
    the killed episode's world and finishes the run with every episode whole and none twice."""
    from apps_web.world import WorldStore
    from tests.conftest import TEMPLATES

    home = tmp_path / "home"
    home.mkdir()
    (home / "templates").symlink_to(TEMPLATES)  # share the built world templates with the test store
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "sandbox.cli", "run", "--agent", "random", "-o", "seed=1", "--tasks", few[0], "--seeds", "0-2",
           "--workers", "1", "--max-steps", "6", "--out", str(out), "--quiet"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "SANDBOX_HOME": str(home)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        # Wait until one episode has finished and the next has written some steps.
        while time.monotonic() < deadline:
            results = out / "results.jsonl"
            partial = list((out / "episodes").glob("*.partial")) if (out / "episodes").exists() else []
            if results.exists() and results.read_bytes().count(b"\n") >= 1 and partial and (partial[0] / "steps.jsonl").exists() \
                    and (partial[0] / "steps.jsonl").stat().st_size > 0:  # fmt: skip
                break
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            time.sleep(0.05)
        else:
            pytest.fail("the run did not get going")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    run = load_run(out)
    killed = run.running()
    assert len(killed) == 1 and not run.episode(killed[0]).finished
    assert len(run.finished_ids()) >= 1
    store = WorldStore(home)
    left = store.list()  # the killed episode's world: nothing dropped it
    assert len(left) == 1 and store.owner(left[0]).pid == proc.pid and store.orphans() == left

    resume = subprocess.run([*cmd, "--resume"], cwd=ROOT, env={**os.environ, "SANDBOX_HOME": str(home)}, capture_output=True, text=True, timeout=300)
    assert resume.returncode == 0, resume.stderr[-2000:]
    assert "removed 1 world(s) left by killed episodes" in resume.stdout
    assert store.list() == [] and list(store.worlds_dir.glob("*.owner")) == []  # and the resumed episodes dropped theirs
    ids = [r["id"] for r in run.results()]
    assert len(ids) == 3 and len(set(ids)) == 3
    assert run.finished_ids() == set(ids) and not run.running()
    for i in ids:
        ep = run.episode(i)
        assert ep.finished and len(ep.steps) == ep.record.steps == 6
    assert (out / "aborted" / f"{killed[0]}.1" / "episode.json").exists()
    assert load_run(out).meta["resumed_at"]
