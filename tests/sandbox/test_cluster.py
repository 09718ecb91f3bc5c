"""Runs and validations on a real Ray cluster on this machine (a head and two worker nodes, each its
own raylet process): the same verdicts and world changes as the local pool for the same tasks and
seeds; an actor killed mid-episode and a driver killed mid-run lose no episode and play none twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ray = pytest.importorskip("ray", reason="the cluster runner needs Ray: pip install 'cua-sandbox[ray]'")

from sandbox.cluster import RayOptions  # noqa: E402
from sandbox.loop import background_loop  # noqa: E402
from sandbox.run import BackgroundRuntime, RunConfig, run_async  # noqa: E402
from sandbox.trajectory import load_run  # noqa: E402

# The sandbox's background loop, not asyncio.run: another test of the worker may own this thread's loop.
run_on_loop = background_loop().run

# Minutes on one test worker (a cluster of three nodes, each actor its own Chromium): `make test-long`.
pytestmark = [pytest.mark.ray, pytest.mark.browser, pytest.mark.long, pytest.mark.xdist_group("ray")]

ROOT = Path(__file__).resolve().parents[2]
# Short CRM and desk tasks: world changes of two apps, a dialog, an inline edit and a form.
TASKS = ["crm.opportunity-close-won", "crm.account-update-phone", "desk.incident-hold-awaiting-vendor"]


@pytest.fixture(scope="module")
def cluster():  # noqa: ANN201 - one cluster for the module: a head without CPUs, two 1-CPU worker nodes
    from ray.cluster_utils import Cluster

    for attempt in range(3):  # Ray gives a raylet 30 s to register: a very busy machine may need another try
        c = Cluster()
        try:
            c.add_node(num_cpus=0)  # the head
            for _ in range(2):
                c.add_node(num_cpus=1)
            break
        except Exception:
            c.shutdown()
            if attempt == 2:
                raise
    ray.init(address=c.address, log_to_driver=False, logging_level="WARNING")
    yield c
    ray.shutdown()
    c.shutdown()


def options(store, tmp_path: Path, **kw) -> RayOptions:  # noqa: ANN001
    """One actor per worker node (1 CPU each), the nodes' worlds apart from the driver's."""
    return RayOptions(address=kw.pop("address", "auto"), actors=2, cpus_per_actor=1, store=str(tmp_path / "nodes"),
                      templates=str(store.templates_dir), **kw)  # fmt: skip


def _changes(run_dir: Path, episode_id: str) -> list:
    lines = (run_dir / "episodes" / episode_id / "steps.jsonl").read_text().splitlines()
    return [json.loads(x).get("changes") for x in lines]


def test_oracle_run_and_validation_match_the_local_pool(cluster, store, registry, tmp_path):  # noqa: ANN001
    from tasks.validate import ON_ACTOR, validate_async

    config = dict(agent="oracle", tasks=TASKS, seeds="0", workers=1, time_limit=120)
    remote = run_on_loop(run_async(RunConfig(**config, out=tmp_path / "ray", ray=options(store, tmp_path)), source=registry))
    with BackgroundRuntime(store=store) as env:
        local = env.run(RunConfig(**config, out=tmp_path / "local"), source=registry)

    def verdicts(result) -> dict:  # noqa: ANN001
        return {r["id"]: (r["outcome"], r["passed"], r["score"], r["steps"], r["reason"]) for r in result.results}

    assert len(remote.results) == 3 and all(r["passed"] for r in remote.results), verdicts(remote)
    assert verdicts(remote) == verdicts(local)
    for line in remote.results:  # the trajectories came back whole: every step, its world changes, its screenshot
        assert _changes(remote.out, line["id"]) == _changes(local.out, line["id"])
        assert len(list((remote.out / "episodes" / line["id"] / "screenshots").iterdir())) == line["steps"] + 1
    assert any(c for line in remote.results for c in _changes(remote.out, line["id"]))
    meta = load_run(remote.out).meta
    assert len({a["node_id"] for a in meta["ray"]["actors"]}) == 2  # one actor on each worker node
    assert not list(load_run(remote.out).attempts())

    # A small validation: the same verdicts, job by job (oracle, no-op, near-misses; GUI and direct).
    seeds = [0]
    on_ray = run_on_loop(validate_async(registry, TASKS[:1], seeds, workers=1, with_adversaries=False, quick=True,
                                        ray=options(store, tmp_path), replay_errors=1))  # fmt: skip
    here = run_on_loop(validate_async(registry, TASKS[:1], seeds, workers=2, with_adversaries=False, quick=True, replay_errors=1))
    sig = lambda rep: [(o.task, o.seed, o.solution, o.signature) for o in rep.outcomes]  # noqa: E731
    assert len(on_ray.outcomes) > 2 * len(seeds) and on_ray.ok, [(o.solution, o.error, o.score, o.reason) for o in on_ray.disagreements]
    # no attempt lost with an actor (an errored episode played again on its actor is listed too)
    assert sig(on_ray) == sig(here) and not [r for r in on_ray.retried if r["actor"] != ON_ACTOR]


DRIVER = """
import asyncio, sys
from sandbox.cluster import RayOptions
from sandbox.run import RunConfig, run_async
from apps_web.world import WorldStore
from tasks.registry import TaskRegistry
out, nodes, templates = sys.argv[1:4]
opts = RayOptions(address="auto", actors=2, cpus_per_actor=1, store=nodes, templates=templates)
source = TaskRegistry(store=WorldStore(out + "-driver", templates_dir=templates))
asyncio.run(run_async(RunConfig(agent="oracle", tasks=sys.argv[4].split(","), seeds="0,1", workers=1, time_limit=120,
                                out=out, ray=opts), source=source))
"""


def _wait(what: str, check, timeout: float = 300.0, driver=None):  # noqa: ANN001, ANN202 - poll a real condition of the run folder
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if driver is not None and driver.poll() is not None:
            raise AssertionError(f"the driver ended ({driver.returncode}) before {what}: {driver.stdout.read().decode()[-3000:]}")
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_killed_actor_and_a_killed_driver_lose_no_episode(cluster, store, registry, tmp_path):  # noqa: ANN001
    out = tmp_path / "run"
    tasks = TASKS[:2]
    env = {**os.environ, "RAY_ADDRESS": cluster.address, "PYTHONPATH": str(ROOT)}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(out), str(tmp_path / "nodes"), str(store.templates_dir), ",".join(tasks)],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
    try:
        # Both actors started (their pids are in run.json) and both have an episode under way.
        actors = _wait("the actors", lambda: (json.loads((out / "run.json").read_text()).get("ray") or {}).get("actors")
                       if (out / "run.json").exists() else None, driver=driver)  # fmt: skip
        victim = psutil.Process(actors[0]["pid"])
        owned = [p for p in victim.children(recursive=True)]  # its Chromium, Playwright driver and app host
        assert any("chrom" in p.name().lower() for p in owned), [p.name() for p in owned]
        _wait("an episode on each actor", lambda: len(list((tmp_path / "nodes" / "ray-scratch").glob("*/*.partial"))) >= 2, driver=driver)
        victim.send_signal(signal.SIGKILL)
        _wait("the lost attempt", lambda: (out / "attempts.jsonl").exists(), driver=driver)
        _wait("a finished episode after the kill", lambda: (out / "results.jsonl").exists() and (out / "results.jsonl").read_text().count("\n") >= 1,
              driver=driver)
        driver.send_signal(signal.SIGKILL)  # the driver dies mid-run; Ray ends its actors
        driver.wait(30)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait(30)
    attempt = json.loads((out / "attempts.jsonl").read_text().splitlines()[0])
    assert attempt["retried"] and "died" in attempt["error"] and attempt["actor"].startswith("actor 0")
    _wait("the killed actor's Chromium and app host to exit", lambda: not any(_alive(p) for p in owned), 30)
    before = [json.loads(x)["id"] for x in (out / "results.jsonl").read_text().splitlines()]
    assert 1 <= len(before) < 4

    resumed = run_on_loop(run_async(RunConfig(agent="oracle", tasks=tasks, seeds="0,1", workers=1, time_limit=120, out=out, resume=True,
                                              ray=options(store, tmp_path)), source=registry))  # fmt: skip
    ids = [r["id"] for r in resumed.results]
    assert sorted(ids) == sorted({f"{t}__s{s}" for t in tasks for s in (0, 1)}) and len(ids) == len(set(ids)) == 4
    assert resumed.skipped == len(before) and resumed.new == 4 - len(before)
    assert all(r["passed"] for r in resumed.results), [(r["id"], r["reason"]) for r in resumed.results]
    assert sorted(p.name for p in (out / "episodes").iterdir()) == sorted(ids)  # no .partial, nothing twice


def test_the_actors_grade_with_the_judge_the_driver_was_given(cluster, store, registry, tmp_path):  # noqa: ANN001
    """`--judge` with `--ray`: every actor asks the judge (a local stand-in of a provider's API here);
    the driver asks none. The stand-in marks the summary poor, so a run the judge never saw would pass."""
    from sandbox.models.setup import models_in_use, models_summary
    from verifiers import default_judge

    from .conftest import ModelAPIStandIn

    def answer(path: str, body: dict) -> tuple[int, dict, dict]:  # noqa: ARG001
        text = json.dumps({"score": 0, "explanation": "The summary leaves out the amount."})
        return 200, {"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                     "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}, {}

    api = ModelAPIStandIn(answer)
    opts = options(store, tmp_path)
    try:
        with models_in_use(f"openai:judge@{api.url}/v1,cache={tmp_path / 'cache'}", None, opts):
            assert default_judge() is None and opts.judge and "Ray actors" in models_summary()
            result = run_on_loop(run_async(RunConfig(agent="oracle", tasks=["mail.summarise-deal-thread-to-manager"], seeds="0", workers=1,
                                                     time_limit=120, out=tmp_path / "judged", ray=opts), source=registry))
    finally:
        api.close()
    (line,) = result.results
    assert api.requests and not line["passed"] and "leaves out the amount" in json.dumps(line), line
