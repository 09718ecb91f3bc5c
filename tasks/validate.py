"""Proving the verifiers: for every template and seed, the score ladder must hold. The oracle
passes with score 1; the no-op agent ("Done.") scores exactly 0; every near-miss fails, an
``incomplete`` one with partial credit (strictly between 0 and 1) where the task has more than one
credit check, any other below the oracle (or within the range it declares); and the generic
adversaries (tasks/adversaries.py: a blind give-up, a hedged answer, the solution plus an unrelated
edit, a mass change with one row wrong, signing out) score exactly 0. Episodes run concurrently on
the env pool.

A near-miss played through the GUI is a real episode (the player clicks and types); a direct one
(``mutate``) changes the episode's world as an agent would have, then ends with its answer.
``repeat`` runs everything again and requires the same verdicts (determinism).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from .adversaries import ADVERSARY, Adversary, adversaries
from .instance import DEFAULT_FINAL_ANSWER, TOOL_ORACLE, Solution, TaskInstance
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
    score_range: tuple[float, float] | None = None  # declared by the near-miss (adversaries: exactly 0)

    @property
    def should_pass(self) -> bool:
        return self.solution in ("oracle", TOOL_ORACLE)


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
    credit: int = 0  # credit checks in the verdict (task progress; guards excluded)
    score_range: tuple[float, float] | None = None

    @property
    def ladder(self) -> str | None:
        """Why this outcome breaks the score ladder (None when it holds)."""
        if self.error is not None or self.passed is None:
            return self.error or "no verdict"
        score = self.score or 0.0
        if self.should_pass:
            return None if self.passed and score >= 1 - 1e-9 else "the oracle must pass with score 1"
        if self.passed:
            return "it passed"
        if self.kind == NOOP:
            return None if score == 0 else f"doing nothing must score 0, not {score:.2f}"
        if self.score_range is not None:
            lo, hi = self.score_range
            return None if lo - 1e-9 <= score <= hi + 1e-9 else f"its score {score:.2f} is outside its range [{lo:g}, {hi:g}]"
        if self.kind == "incomplete" and self.credit > 1:
            return None if 0 < score < 1 else f"an incomplete solution of a task with {self.credit} credit checks must score strictly between 0 and 1, not {score:.2f}"
        return None if score < 1 - 1e-9 else "it must score below the oracle"

    @property
    def agrees(self) -> bool:
        return self.ladder is None

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
    retried: list[dict[str, Any]] = field(default_factory=list)  # attempts lost with a Ray actor (played again)

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
            "retried": self.retried,
            "outcomes": [o.to_dict() for o in self.outcomes],
        }


def plan(registry: TaskRegistry, task_ids: list[str], seeds: list[int], repeat: int = 1, *,
         with_adversaries: bool = True) -> list[Job]:
    jobs = []
    for r in range(repeat):
        for tid in task_ids:
            for seed in seeds:
                inst = registry.instance(tid, seed)
                jobs.append(Job(tid, seed, "oracle", "oracle", "gui" if inst.template.interfaces[0] == "gui" else "tools", r))
                if inst.tool_oracle is not None:
                    jobs.append(Job(tid, seed, TOOL_ORACLE, "oracle", "tools", r))
                jobs.append(Job(tid, seed, NOOP, NOOP, "none", r))
                for nm in inst.near_misses:
                    jobs.append(Job(tid, seed, nm.name, nm.kind, nm.via, r, nm.score))
                if with_adversaries:
                    for adv in adversaries_of(registry, inst):
                        jobs.append(Job(tid, seed, adv.name, ADVERSARY, adv.solution.via, r, adv.solution.score))
    return jobs


def adversaries_of(registry: TaskRegistry, inst: TaskInstance) -> list[Adversary]:
    """The generic adversaries of an instance, built once and kept with it (planning and every job
    ask for them; building one reads the template world)."""
    cached = vars(inst).get("_adversaries")
    if cached is None:
        cached = vars(inst)["_adversaries"] = adversaries(inst, registry.store.template(inst.seed))
    return cached


def _solution(registry: TaskRegistry, inst: TaskInstance, name: str) -> tuple[Solution, Adversary | None]:
    if name == "oracle":
        return inst.oracle, None
    if name == TOOL_ORACLE and inst.tool_oracle is not None:
        return inst.tool_oracle, None
    if name.startswith("adv-"):
        for adv in adversaries_of(registry, inst):
            if adv.name == name:
                return adv.solution, adv
        raise KeyError(f"no adversary {name!r} applies to {inst.id}")
    return inst.near_miss(name), None


def _failed_checks(verdict: Any) -> list[str]:
    out: list[str] = []

    def walk(checks: list[Any]) -> None:
        for c in checks:
            if not c.passed:
                out.append(c.name)
            walk(getattr(c, "checks", []) or [])

    walk(list(getattr(verdict, "checks", []) or []))
    return out


def _record(out: Outcome, verdict: Any) -> None:
    out.passed, out.score, out.reason = bool(verdict.passed), float(verdict.score), verdict.reason
    out.failed_checks = _failed_checks(verdict)
    out.credit = len(verdict.credit_checks())


JOB_TIMEOUT_S = 180.0  # one episode; a stuck one becomes an error instead of stalling the run
JOB_STEPS = 30  # the steps JOB_TIMEOUT_S is meant for; a longer solution (a long-horizon task) gets more
STEP_TIMEOUT_S = 3.0  # per step beyond JOB_STEPS


def job_budget(registry: TaskRegistry, job: Job, base_s: float = JOB_TIMEOUT_S) -> float:
    """The time one episode may take: ``base_s``, plus STEP_TIMEOUT_S for every step of its solution
    beyond JOB_STEPS (so a 150-step oracle on a busy machine is not cut short as if it were stuck)."""
    try:
        steps = len(_solution(registry, registry.instance(job.task, job.seed), job.solution)[0].steps)
    except Exception:  # noqa: BLE001 - the episode itself reports a bad instance or solution
        steps = 0
    return base_s + STEP_TIMEOUT_S * max(0, steps - JOB_STEPS)


async def run_job(pool: Any, registry: TaskRegistry, job: Job, *, timeout_s: float = 10.0, job_timeout_s: float = JOB_TIMEOUT_S,
                  quick: bool = False) -> Outcome:
    """One episode on the pool: play the job's solution, return the verifier's verdict on it."""
    t0 = time.perf_counter()
    out = Outcome(job.task, job.seed, job.solution, job.kind, job.via, job.should_pass, round=job.round,
                  score_range=job.score_range)
    where: dict[str, Any] = {}
    job_timeout_s = job_budget(registry, job, job_timeout_s) if job.solution != NOOP else job_timeout_s
    try:
        await asyncio.wait_for(_play_job(pool, registry, job, out, timeout_s, where, quick), job_timeout_s)
    except asyncio.TimeoutError:
        player = where.get("player")
        doing = f" (stalled at {player.current}; last action {player.result.actions[-1] if player.result.actions else None})" if player else f" (stalled in {where.get('phase', '?')})"
        out.error = f"the episode did not finish within {job_timeout_s:g}s{doing}"
    out.seconds = time.perf_counter() - t0
    return out


async def run_job_replaying(pool: Any, registry: TaskRegistry, job: Job, replays: int, lost: list[dict[str, Any]], *,
                            where: str = "the local pool", quick: bool = False) -> Outcome:
    """:func:`run_job`, played up to ``replays`` times more while its episode cannot be played (an error,
    no verdict); each lost attempt is appended to ``lost``. A verdict, right or wrong, is final."""
    attempt = 1
    out = await run_job(pool, registry, job, quick=quick)
    while out.error is not None and attempt <= replays:
        lost.append({"task": job.task, "seed": job.seed, "solution": job.solution, "round": job.round, "attempt": attempt,
                     "actor": where, "error": out.error, "retried": True})
        attempt += 1
        out = await run_job(pool, registry, job, quick=quick)
    return out


def _browserless(registry: TaskRegistry, inst: TaskInstance, job: Job) -> bool:
    """A no-op agent, or a near-miss with no GUI step (world changes and/or an answer): nothing for
    a browser to do."""
    if job.solution == NOOP:
        return True
    if job.solution in ("oracle", TOOL_ORACLE):
        return False
    sol, adv = _solution(registry, inst, job.solution)
    if adv is not None and adv.after is not None:
        return False
    return all(isinstance(s, TERMINAL_STEPS) for s in sol.steps)


def grade_directly(registry: TaskRegistry, job: Job, out: Outcome) -> None:
    """Grade a browserless job on a forked world: set-up, the direct changes, the final answer, the
    verifier, exactly as the env would after an episode whose agent only answered."""
    from apps_web.registry import volatile_columns
    from verifiers import VerifyContext

    inst = registry.instance(job.task, job.seed)
    sol = None if job.solution == NOOP else _solution(registry, inst, job.solution)[0]
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
                            infeasible=reason is not None, infeasible_reason=reason, ignore=volatile_columns(), start_seq=seq)
        _record(out, inst.verify(ctx))
        out.steps = 1
    finally:
        registry.store.drop(world)


async def _play_job(pool: Any, registry: TaskRegistry, job: Job, out: Outcome, timeout_s: float, where: dict[str, Any],
                    quick: bool = False) -> None:
    where["phase"] = "reset"
    try:
        inst: TaskInstance = registry.instance(job.task, job.seed)
        if quick and _browserless(registry, inst, job):
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
                sol, adv = _solution(registry, inst, job.solution)
                if sol.mutate:
                    await asyncio.to_thread(inst.apply_mutations, episode.world, sol)
                fx, fy = episode.scale
                player = Player(lambda: env.page, step, base_url=pool.runtime.host.url(spec.app, "/"), timeout_s=timeout_s,
                                scale=(1 / fx, 1 / fy))
                where["player"] = player
                steps = list(sol.steps)
                if adv is not None and adv.after is not None:
                    # the oracle's work, the adversary's move, then the final step
                    path = episode.world.path
                    prepared = await asyncio.to_thread(adv.prepare, path) if adv.prepare else None
                    await player.play(steps[:-1])

                    async def send(data: dict[str, Any]) -> Any:
                        from sandbox.actions import parse_action

                        return await step(parse_action(data))

                    await adv.after(path, prepared, send, pool.runtime.host)
                    steps = steps[-1:]
                result = await player.play(steps)
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
                _record(out, verdict)
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
    with_adversaries: bool = True,
    jobs: list[Job] | None = None,
    ray: Any = None,
    replay_errors: int = 0,
) -> Report:
    """Run every job of the plan on an env pool with ``workers`` concurrent episodes.

    ``quick`` grades the no-op agent and the direct near-misses (world changes and an answer, no GUI
    step) without a browser: the same set-up, changes and verifier on a forked world, much faster.
    ``jobs`` runs a plan made by the caller (e.g. a subset of each instance's solutions) instead of
    planning ``task_ids`` x ``seeds``; its instances must be drawable.
    ``ray`` (a ``sandbox.cluster.RayOptions`` or an address: ``auto``, ``local``, ``HOST:6379``)
    plays the jobs on a Ray cluster's actors instead, ``workers`` episodes per actor; each actor
    reads the same task folder and builds the world templates of its node.
    ``replay_errors`` plays an episode that could not be played (an error, no verdict: a timeout on
    a loaded machine, a crashed browser) up to that many times more before its outcome counts; each
    lost attempt is listed in the report's ``retried``. A wrong verdict is never played again. (On
    this machine's pool, or by the same Ray actor; an attempt lost with its actor is played again
    elsewhere by the cluster runner either way.)
    """
    from sandbox.observe import ObserveOptions
    from sandbox.pool import EpisodePool
    from sandbox.runtime import default_apps

    t0 = time.perf_counter()
    # Instantiate up front: a broken instance is reported (naming the file, the seed and the field)
    # and skipped, so one bad template or seed does not stop the run.
    broken: list[Outcome] = []
    good: dict[str, list[int]] = {}
    for tid in task_ids if jobs is None else ():
        for seed in seeds:
            try:
                registry.instance(tid, seed)
                good.setdefault(tid, []).append(seed)
            except Exception as e:  # noqa: BLE001 - reported as the instance's outcome
                path = getattr(registry.task(tid), "path", "")
                out = Outcome(tid, seed, "instance", "instance", "none", should_pass=True,
                              error=f"the instance could not be drawn ({path}, seed {seed}): {e}")
                broken.append(out)
                if on_outcome is not None:
                    on_outcome(out)
    if jobs is None:
        jobs = [j for tid, s_list in good.items()
                for j in plan(registry, [tid], s_list, repeat, with_adversaries=with_adversaries)]
    observe = ObserveOptions(screenshot="png" if screenshots else "none")
    outcomes: list[Outcome] = []
    retried: list[dict[str, Any]] = []

    def done(outcome: Outcome) -> None:
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)

    from sandbox.cluster.options import ray_options

    cluster = ray_options(ray)
    if cluster is not None:
        await _validate_on_cluster(registry, jobs, cluster, workers=workers, screenshots=screenshots, quick=quick,
                                   done=done, retried=retried, replays=replay_errors)  # fmt: skip
    else:
        pool = EpisodePool(max_concurrency=workers, runtime=runtime, source=registry, observe=observe,
                           runtime_options={"store": registry.store, "apps": default_apps()})
        queue: asyncio.Queue[Job] = asyncio.Queue()
        for job in jobs:
            queue.put_nowait(job)

        async def worker() -> None:
            while True:
                try:
                    job = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                done(await run_job_replaying(pool, registry, job, replay_errors, retried, quick=quick))

        try:
            await pool.start()
            await asyncio.gather(*(worker() for _ in range(max(1, min(workers, len(jobs))))))
        finally:
            await pool.close()
    order = {(j.task, j.seed, j.solution, j.round): i for i, j in enumerate(jobs)}
    outcomes.sort(key=lambda o: order[(o.task, o.seed, o.solution, o.round)])
    outcomes = broken + outcomes
    unstable = []
    if repeat > 1:
        first: dict[tuple[str, int, str], tuple[Any, ...]] = {}
        for o in outcomes:
            key = (o.task, o.seed, o.solution)
            if key not in first:
                first[key] = o.signature
            elif first[key] != o.signature and key not in unstable:
                unstable.append(key)
    return Report(outcomes=outcomes, seeds=list(seeds), wall_s=time.perf_counter() - t0, repeat=repeat, unstable=unstable,
                  retried=retried)


@dataclass
class _NodeJob:
    """A job as sent to a Ray actor, with how the actor's pool plays it."""

    job: Job
    quick: bool
    screenshots: bool
    slots: int
    replays: int = 0


ON_ACTOR = "its Ray actor"  # where a replayed episode ran, in ``Report.retried`` (an actor's own replay, not a lost actor)


def registry_at(root: str | None, store: Any) -> TaskRegistry:
    """A cluster node's task source on the node's store: the shipped tasks (``root`` None, wherever
    the package is installed there) or the driver's task folder (at the same path on every node)."""
    return TaskRegistry(store=store) if root is None else TaskRegistry(root, store=store)


async def job_on_node(node: Any, item: _NodeJob) -> tuple[Outcome, list[dict[str, Any]]]:
    """On a Ray actor: one job on the actor's pool (built once, over the actor's runtime), with its
    lost attempts (episodes that could not be played and were played again)."""
    from sandbox.observe import ObserveOptions
    from sandbox.pool import EpisodePool

    def make() -> EpisodePool:
        observe = ObserveOptions(screenshot="png" if item.screenshots else "none")
        return EpisodePool(max_concurrency=item.slots, runtime=node.runtime, source=node.source, observe=observe)

    pool = node.cached(("validate", item.screenshots, item.slots), make)
    lost: list[dict[str, Any]] = []
    out = await run_job_replaying(pool, node.source, item.job, item.replays, lost, where=ON_ACTOR, quick=item.quick)
    return out, lost


async def _validate_on_cluster(registry: TaskRegistry, jobs: list[Job], opts: Any, *, workers: int, screenshots: bool, quick: bool,
                               done: Callable[[Outcome], None], retried: list[dict[str, Any]], replays: int = 0) -> None:
    import functools

    import ray as ray_lib

    from sandbox.cluster import connect, dispatch, start_nodes, stop_nodes

    if opts.source is None:
        from .registry import TASKS_DIR

        shipped = registry.root.resolve() == Path(TASKS_DIR).resolve()
        opts.source = functools.partial(registry_at, None if shipped else str(registry.root.resolve()))
    items = [_NodeJob(j, quick, screenshots, workers, replays) for j in jobs]

    def failed(item: _NodeJob, error: str) -> Outcome:
        j = item.job
        return Outcome(j.task, j.seed, j.solution, j.kind, j.via, j.should_pass, round=j.round, score_range=j.score_range, error=error)

    def on_result(item: _NodeJob, result: Any) -> None:
        if isinstance(result, BaseException):
            done(failed(item, f"the job failed on its Ray actor: {type(result).__name__}: {result}"))
            return
        out, lost = result
        retried.extend(lost)
        done(out)

    def on_attempt(item: _NodeJob, attempt: Any) -> None:
        j = item.job
        retried.append({"task": j.task, "seed": j.seed, "solution": j.solution, "round": j.round, "attempt": attempt.number,
                        "actor": attempt.actor, "error": attempt.error, "retried": not attempt.final})  # fmt: skip

    connected = connect(opts)
    nodes: list[Any] = []
    try:
        nodes = await start_nodes(opts, slots=workers)
        await dispatch(nodes, items, job_on_node, slots=workers, key=lambda i: f"{i.job.task} seed {i.job.seed} {i.job.solution}",
                       on_result=on_result, on_attempt=on_attempt, on_give_up=lambda item, why: done(failed(item, why)),
                       max_attempts=opts.max_attempts, item_timeout=JOB_TIMEOUT_S + opts.grace_s)  # fmt: skip
    finally:
        if nodes:
            await stop_nodes(nodes)
        if connected:
            ray_lib.shutdown()


def validate(registry: TaskRegistry, task_ids: list[str], seeds: list[int], **kwargs: Any) -> Report:
    return asyncio.run(validate_async(registry, task_ids, seeds, **kwargs))
