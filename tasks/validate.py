"""Proving the verifiers: for every template and seed, the oracle must pass with score 1, a no-op
agent must fail and every near-miss must fail. Episodes run concurrently on the env pool.

A near-miss played through the GUI is a real episode (the player clicks and types); a direct one
(``mutate``) changes the episode's world as an agent would have, then ends with its answer.
``repeat`` runs everything again and requires the same verdicts (determinism).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from .instance import DEFAULT_FINAL_ANSWER, Solution, TaskInstance
from .model import TERMINAL_STEPS, AnswerStep
from .player import OracleError, Player
from .registry import TaskRegistry, episode_spec

NOOP = "noop"


@dataclass
class Job:
    task: str
    seed: int
    solution: str  # "oracle", "noop" or a near-miss name
    kind: str  # oracle | noop | a near-miss kind
    via: str  # gui | direct | none
    round: int = 0

    @property
    def should_pass(self) -> bool:
        return self.solution == "oracle"


@dataclass
class Outcome:
    task: str
    seed: int
    solution: str
    kind: str
    via: str
    should_pass: bool
    passed: bool | None = None  # the verifier's verdict (None: no verdict, see error)
    score: float | None = None
    reason: str = ""
    failed_checks: list[str] = field(default_factory=list)
    error: str | None = None  # the solution could not be played, or the episode broke
    steps: int = 0
    seconds: float = 0.0
    round: int = 0

    @property
    def agrees(self) -> bool:
        if self.error is not None or self.passed is None:
            return False
        if self.should_pass:
            return self.passed and (self.score or 0) >= 1 - 1e-9
        return not self.passed

    @property
    def signature(self) -> tuple[Any, ...]:
        """What must be the same when the run is repeated."""
        return (self.passed, None if self.score is None else round(self.score, 6), tuple(self.failed_checks), self.error is None)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "agrees": self.agrees}


@dataclass
class Report:
    outcomes: list[Outcome]
    seeds: list[int]
    wall_s: float
    repeat: int = 1
    unstable: list[tuple[str, int, str]] = field(default_factory=list)  # (task, seed, solution) whose verdict changed

    @property
    def disagreements(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.agrees]

    @property
    def ok(self) -> bool:
        return not self.disagreements and not self.unstable

    def confusion(self) -> dict[str, int]:
        """Verifier verdicts against what they should be (errors are counted apart)."""
        c = Counter()
        for o in self.outcomes:
            if o.error is not None or o.passed is None:
                c["error"] += 1
            elif o.should_pass:
                c["true_pass" if o.passed else "false_fail"] += 1
            else:
                c["false_pass" if o.passed else "true_fail"] += 1
        return {k: c.get(k, 0) for k in ("true_pass", "false_fail", "false_pass", "true_fail", "error")}

    def by_task(self) -> dict[str, list[Outcome]]:
        out: dict[str, list[Outcome]] = {}
        for o in self.outcomes:
            out.setdefault(o.task, []).append(o)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "seeds": self.seeds,
            "repeat": self.repeat,
            "wall_s": round(self.wall_s, 2),
            "confusion": self.confusion(),
            "disagreements": len(self.disagreements),
            "unstable": [list(u) for u in self.unstable],
            "outcomes": [o.to_dict() for o in self.outcomes],
        }


def plan(registry: TaskRegistry, task_ids: list[str], seeds: list[int], repeat: int = 1) -> list[Job]:
    jobs = []
    for r in range(repeat):
        for tid in task_ids:
            for seed in seeds:
                inst = registry.instance(tid, seed)
                jobs.append(Job(tid, seed, "oracle", "oracle", "gui", r))
                jobs.append(Job(tid, seed, NOOP, NOOP, "none", r))
                for nm in inst.near_misses:
                    jobs.append(Job(tid, seed, nm.name, nm.kind, nm.via, r))
    return jobs


def _failed_checks(verdict: Any) -> list[str]:
    out: list[str] = []

    def walk(checks: list[Any]) -> None:
        for c in checks:
            if not c.passed:
                out.append(c.name)
            walk(getattr(c, "checks", []) or [])

    walk(list(getattr(verdict, "checks", []) or []))
    return out


JOB_TIMEOUT_S = 180.0  # one episode; a stuck one becomes an error instead of stalling the run


async def run_job(pool: Any, registry: TaskRegistry, job: Job, *, timeout_s: float = 10.0, job_timeout_s: float = JOB_TIMEOUT_S,
                  quick: bool = False) -> Outcome:
    """One episode on the pool: play the job's solution, return the verifier's verdict on it."""
    t0 = time.perf_counter()
    out = Outcome(job.task, job.seed, job.solution, job.kind, job.via, job.should_pass, round=job.round)
    where: dict[str, Any] = {}
    try:
        await asyncio.wait_for(_play_job(pool, registry, job, out, timeout_s, where, quick), job_timeout_s)
    except asyncio.TimeoutError:
        player = where.get("player")
        doing = f" (stalled at {player.current}; last action {player.result.actions[-1] if player.result.actions else None})" if player else f" (stalled in {where.get('phase', '?')})"
        out.error = f"the episode did not finish within {job_timeout_s:g}s{doing}"
    out.seconds = time.perf_counter() - t0
    return out


def _browserless(inst: TaskInstance, job: Job) -> bool:
    """A no-op agent, or a near-miss with no GUI step (world changes and/or an answer): nothing for
    a browser to do."""
    if job.solution == NOOP:
        return True
    if job.solution == "oracle":
        return False
    return all(isinstance(s, TERMINAL_STEPS) for s in inst.near_miss(job.solution).steps)


def grade_directly(registry: TaskRegistry, job: Job, out: Outcome) -> None:
    """Grade a browserless job on a forked world: set-up, the direct changes, the final answer, the
    verifier, exactly as the env would after an episode whose agent only answered."""
    from apps_web.registry import volatile_columns
    from verifiers import VerifyContext

    inst = registry.instance(job.task, job.seed)
    sol = None if job.solution == NOOP else inst.near_miss(job.solution)
    world = registry.store.create(job.seed)
    try:
        inst.setup(world)
        seq = world.changelog_seq()
        if sol is not None:
            inst.apply_mutations(world, sol)
        last = sol.steps[-1] if sol is not None else AnswerStep(answer=DEFAULT_FINAL_ANSWER)
        answer = getattr(last, "answer", None)
        reason = getattr(last, "report_infeasible", None)
        diff, _ = world.changes_since(seq)
        ctx = VerifyContext(end_db=world.path, diff=diff, instruction=inst.instruction, answer=answer,
                            infeasible=reason is not None, infeasible_reason=reason, ignore=volatile_columns())
        verdict = inst.verify(ctx)
        out.passed, out.score, out.reason = bool(verdict.passed), float(verdict.score), verdict.reason
        out.failed_checks = _failed_checks(verdict)
        out.steps = 1
    finally:
        registry.store.drop(world)


async def _play_job(pool: Any, registry: TaskRegistry, job: Job, out: Outcome, timeout_s: float, where: dict[str, Any],
                    quick: bool = False) -> None:
    where["phase"] = "reset"
    try:
        inst: TaskInstance = registry.instance(job.task, job.seed)
        if quick and _browserless(inst, job):
            await asyncio.to_thread(grade_directly, registry, job, out)
            return
        spec = episode_spec(inst)
        last: dict[str, Any] = {}
        async with pool.episode(spec) as (env, _obs, _info):
            episode = env.episode

            async def step(action: Any) -> bool:
                _o, _r, terminated, truncated, info = await env.step(action)
                last.update(info=info, steps=episode.steps, truncated=truncated)
                if info.get("error"):
                    raise RuntimeError(f"the environment refused {action.to_dict()}: {info['error']}")
                return terminated or truncated

            where["phase"] = "the episode"
            if job.solution == NOOP:
                await step(_answer())
            else:
                sol: Solution = inst.oracle if job.solution == "oracle" else inst.near_miss(job.solution)
                if sol.mutate:
                    await asyncio.to_thread(inst.apply_mutations, episode.world, sol)
                fx, fy = episode.scale
                player = Player(lambda: env.page, step, base_url=pool.runtime.host.url(spec.app, "/"), timeout_s=timeout_s,
                                scale=(1 / fx, 1 / fy))
                where["player"] = player
                result = await player.play(list(sol.steps))
                if not result.ended:
                    out.error = "the solution did not end the episode"
            where.pop("player", None)
            where["phase"] = "verify and close"
            info = last.get("info", {})
            out.steps = last.get("steps", 0)
            if last.get("truncated") and not out.error and job.should_pass:
                out.error = f"the episode hit max_steps ({spec.max_steps}) before the solution ended it"
            verdict = info.get("verdict") or episode.verdict
            if verdict is not None:
                out.passed, out.score, out.reason = bool(verdict.passed), float(verdict.score), verdict.reason
                out.failed_checks = _failed_checks(verdict)
            elif out.error is None:
                out.error = "no verdict"
    except OracleError as e:
        out.error = str(e)
    except Exception as e:  # noqa: BLE001 - one broken episode must not stop the run
        out.error = f"{type(e).__name__}: {e}"


def _answer() -> Any:
    from sandbox.actions import parse_action

    return parse_action({"action": "answer", "text": DEFAULT_FINAL_ANSWER})


async def validate_async(
    registry: TaskRegistry,
    task_ids: list[str],
    seeds: list[int],
    *,
    workers: int = 2,
    repeat: int = 1,
    on_outcome: Callable[[Outcome], None] | None = None,
    runtime: Any = None,
    screenshots: bool = False,
    quick: bool = False,
) -> Report:
    """Run every job of the plan on an env pool with ``workers`` concurrent episodes.

    ``quick`` grades the no-op agent and the direct near-misses (world changes and an answer, no GUI
    step) without a browser: the same set-up, changes and verifier on a forked world, much faster.
    """
    from sandbox.observe import ObserveOptions
    from sandbox.pool import EpisodePool
    from sandbox.runtime import default_apps

    t0 = time.perf_counter()
    for tid in task_ids:  # instantiate up front: a broken template fails before any browser starts
        for seed in seeds:
            registry.instance(tid, seed)
    jobs = plan(registry, task_ids, seeds, repeat)
    observe = ObserveOptions(screenshot="png" if screenshots else "none")
    pool = EpisodePool(max_concurrency=workers, runtime=runtime, source=registry, observe=observe,
                       runtime_options={"store": registry.store, "apps": default_apps()})
    outcomes: list[Outcome] = []
    queue: asyncio.Queue[Job] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)

    async def worker() -> None:
        while True:
            try:
                job = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            outcome = await run_job(pool, registry, job, quick=quick)
            outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)

    try:
        await pool.start()
        await asyncio.gather(*(worker() for _ in range(max(1, min(workers, len(jobs))))))
    finally:
        await pool.close()
    order = {(j.task, j.seed, j.solution, j.round): i for i, j in enumerate(jobs)}
    outcomes.sort(key=lambda o: order[(o.task, o.seed, o.solution, o.round)])
    unstable = []
    if repeat > 1:
        first: dict[tuple[str, int, str], tuple[Any, ...]] = {}
        for o in outcomes:
            key = (o.task, o.seed, o.solution)
            if key not in first:
                first[key] = o.signature
            elif first[key] != o.signature and key not in unstable:
                unstable.append(key)
    return Report(outcomes=outcomes, seeds=list(seeds), wall_s=time.perf_counter() - t0, repeat=repeat, unstable=unstable)


def validate(registry: TaskRegistry, task_ids: list[str], seeds: list[int], **kwargs: Any) -> Report:
    return asyncio.run(validate_async(registry, task_ids, seeds, **kwargs))
