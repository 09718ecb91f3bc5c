"""Building a corpus: draw every (template, seed) instance, drop duplicates, prove the rest with the
validation engine, and append each decided instance to the corpus folder.

1. **Render** (cheap: parameters and instruction from the seed's template world, no browser). Seeds
   go in order, all templates at one seed before the next, so a build stopped early still covers
   every template; the drawn instances are proven in batches as the seeds go. An instance whose key (template, instruction, start page and parameters, less the
   seed and the persona's user row: see :func:`instance_key`) equals a lower seed's is a duplicate:
   recorded, counted, never played. An instance that cannot be drawn is a failure.
2. **Prove** (:class:`Policy`): at every seed the oracle (and the tool oracle where the task allows
   tools) must pass with score 1, the no-op agent must score 0, and every near-miss and generic
   adversary that needs no browser (world changes and/or an answer, graded on a forked world) must
   fail as it should. At a template's first ``full_seeds`` kept seeds, every near-miss and every
   generic adversary is played too (those replay the oracle in the browser: the costly part).
3. **Record**: as soon as all of an instance's episodes are in, one line goes to ``instances.jsonl``
   (every rung held) or ``failures.jsonl`` (with the broken rungs). An episode that could not be
   played (an error, no verdict) is played once more in the same build before the instance is
   decided. Re-running skips every (template, seed) already in the folder, except failures marked
   ``retry`` (only episode errors, no wrong verdict), which are played again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import inspect
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import orjson

from ..instance import TOOL_ORACLE, TaskInstance, _plain
from ..registry import TaskRegistry
from ..validate import Job, Outcome, _browserless, plan, validate_async
from .card import seed_ranges, write_card
from .files import BUILDS, DUPLICATES, FAILURES, INSTANCES, CorpusDir
from .policy import Policy

# Left out of an instance's key: the seed itself, the task id (the key is per template) and the
# persona's user row (a world fact: every seed's world has other people; the persona's role in the
# task shows in the instruction and the parameters that name it).
KEY_EXCLUDED = frozenset({"seed", "task", "persona"})


def instance_key(inst: TaskInstance) -> str:
    """What makes two instances of a template the same task: the instruction, the start page and the
    drawn parameters (less :data:`KEY_EXCLUDED`), hashed."""
    params = {k: v for k, v in _plain(inst.params).items() if k not in KEY_EXCLUDED}
    blob = orjson.dumps({"task": f"{inst.app}.{inst.id}", "instruction": inst.instruction, "start_url": inst.start_url, "params": params},
                        option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)
    return hashlib.sha256(blob).hexdigest()[:24]


def template_version(registry: TaskRegistry, task_id: str) -> str:
    """A hash of the template file and its app's macros: a record names the version it proved."""
    task = registry.task(task_id)
    macros = orjson.dumps({k: m.model_dump(mode="json") for k, m in sorted(task.macros.items())})
    return hashlib.sha256(task.path.read_bytes() + b"\0" + macros).hexdigest()[:16]


def versions(registry: TaskRegistry, task_id: str, seed: int) -> dict[str, str]:
    """What a decision about a template's instance was made with: the template's version and the
    digest of the seed's world (what the world holds, not the code that built it: a faster or
    reworded generator that builds the same worlds leaves every decision standing). A record naming
    others is stale. ``decided_at`` orders an instance's decisions (files.CorpusDir.latest)."""
    return {"template_version": template_version(registry, task_id), "world_version": registry.store.digest(seed),
            "decided_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")}


def current_versions(registry: TaskRegistry) -> Callable[[str, int], dict[str, str]]:
    """(task id, seed) -> the versions a record must name to count as done (cached: one hash per
    template, one digest per seed)."""
    templates: dict[str, str | None] = {}

    def current(task_id: str, seed: int) -> dict[str, str]:
        if task_id not in templates:
            try:
                templates[task_id] = template_version(registry, task_id)
            except KeyError:  # a template no longer in the folder: its records are kept as they are
                templates[task_id] = None
        if templates[task_id] is None:
            return {}
        return {"template_version": templates[task_id], "world_version": registry.store.digest(seed)}

    return current


@dataclass
class Candidate:
    """An instance to prove."""

    task: str  # qualified id
    seed: int
    key: str
    full: bool = False
    jobs: list[Job] = field(default_factory=list)


@dataclass
class BuildResult:
    proven: int = 0
    failed: int = 0
    duplicates: int = 0
    skipped: int = 0  # already in the folder
    stale: int = 0  # decided before with another template file or in another world: proven again
    episodes: int = 0
    render_s: float = 0.0
    prove_s: float = 0.0
    interrupted: bool = False

    @property
    def decided(self) -> int:
        return self.proven + self.failed

    def per_minute(self) -> float:
        return 60 * self.decided / self.prove_s if self.prove_s > 0 else 0.0


Event = Callable[[str, dict[str, Any]], None]  # ("proven" | "failed" | "duplicate", record)


def _fail_record(registry: TaskRegistry, task: str, seed: int, key: str, stage: str, reasons: list[str],
                 outcomes: list[Outcome] | None = None) -> dict[str, Any]:
    """A failure; ``retry`` when no rung broke on a verdict, only episodes that could not be played
    (a timeout on a loaded machine, a browser that crashed): the next build tries it again."""
    tpl = registry.task(task).template
    bad = [o for o in outcomes or [] if not o.agrees]
    return {
        **versions(registry, task, seed),
        "id": task, "seed": seed, "key": key, "app": tpl.app, "stage": stage, "reasons": reasons,
        "retry": bool(bad) and all(o.error is not None for o in bad),
        "outcomes": [{"solution": o.solution, "kind": o.kind, "via": o.via, "passed": o.passed, "score": o.score,
                      "error": o.error, "ladder": o.ladder, "reason": o.reason} for o in outcomes or []],
    }  # fmt: skip


def proven_record(registry: TaskRegistry, cand: Candidate, outcomes: list[Outcome]) -> dict[str, Any]:
    """The corpus line of a proven instance: what an agent is given, what grades it, and its proof."""
    from verifiers.values import resolve

    inst = registry.instance(cand.task, cand.seed)
    t = inst.template
    steps = {o.solution: o.steps for o in outcomes}
    params = {k: v for k, v in _plain(inst.params).items() if k not in ("seed", "task")}
    return {
        "id": cand.task,
        "task": t.id,
        "app": t.app,
        "seed": cand.seed,
        "key": cand.key,
        "title": t.title,
        "instruction": inst.instruction,
        "persona": inst.persona,
        "start_url": inst.start_url,
        "max_steps": t.max_steps,
        "category": t.category,
        "difficulty": t.difficulty,
        "tags": t.tags.model_dump(),
        "interfaces": list(t.interfaces),
        "params": params,
        "verifier": _plain(resolve(t.verifier, inst.params)),
        "oracle_steps": steps.get("oracle"),
        "tool_oracle_steps": steps.get(TOOL_ORACLE),
        "proof": {
            "level": "full" if cand.full else "core",
            "seconds": round(sum(o.seconds for o in outcomes), 1),  # the episodes' time, summed over workers
            "solutions": {o.solution: {"kind": o.kind, "via": o.via, "passed": o.passed, "score": o.score} for o in outcomes},
        },
        **versions(registry, cand.task, cand.seed),
    }


class Renderer:
    """Draws instances seed by seed, remembering every key taken (from the folder, then as it goes),
    so that a duplicate is found against any lower seed, in this run or an earlier one."""

    def __init__(self, registry: TaskRegistry, task_ids: list[str], corpus: CorpusDir, policy: Policy, *,
                 on_event: Event | None = None, result: BuildResult | None = None) -> None:
        self.registry, self.task_ids, self.corpus, self.policy = registry, task_ids, corpus, policy
        self.on_event = on_event
        self.result = result if result is not None else BuildResult()
        current = current_versions(registry)
        latest = corpus.latest()  # the logs, read once
        self.done = corpus.done(current, latest)
        selected = set(task_ids)
        self.stale = {k for k in corpus.done(latest=latest) if k[0] in selected and k not in self.done}
        self.seen: dict[str, dict[str, int]] = {}  # template -> instance key -> the seed that has it
        self.kept: dict[str, set[int]] = {}  # template -> seeds proven or failed (not duplicates)
        for (tid, seed), (name, r) in sorted(latest.items()):
            if name in (INSTANCES, FAILURES) and r.get("key") and (tid, seed) in self.done:
                self.seen.setdefault(tid, {}).setdefault(r["key"], seed)
                self.kept.setdefault(tid, set()).add(seed)

    def _emit(self, kind: str, rec: dict[str, Any]) -> None:
        if self.on_event:
            self.on_event(kind, rec)

    def render(self, seed: int, *, limit: int | None = None) -> list[Candidate]:
        """The candidates of one seed (at most ``limit``); duplicates and instances that cannot be
        drawn are recorded on the way."""
        out: list[Candidate] = []
        for tid in self.task_ids:
            if (tid, seed) in self.done:
                self.result.skipped += 1
                continue
            if (tid, seed) in self.stale:
                self.result.stale += 1
            if limit is not None and len(out) >= limit:
                break
            try:
                inst = self.registry.instance(tid, seed)
                key = instance_key(inst)
            except Exception as e:  # noqa: BLE001 - an instance that cannot be drawn is a recorded failure
                rec = _fail_record(self.registry, tid, seed, "", "draw", [f"the instance could not be drawn: {e}"])
                self.corpus.append(FAILURES, rec)
                self.result.failed += 1
                self._emit("failed", rec)
                continue
            first = self.seen.setdefault(tid, {}).get(key)
            if first is not None and first != seed:
                rec = {"id": tid, "seed": seed, "key": key, "same_as": first, "app": self.registry.task(tid).template.app,
                       **versions(self.registry, tid, seed)}
                self.corpus.append(DUPLICATES, rec)
                self.result.duplicates += 1
                self._emit("duplicate", rec)
                continue
            self.seen[tid][key] = seed
            lower = sum(1 for s in self.kept.get(tid, ()) if s < seed)
            self.kept.setdefault(tid, set()).add(seed)
            cand = Candidate(tid, seed, key, full=lower < self.policy.full_seeds)
            cand.jobs = [j for j in plan(self.registry, [tid], [seed])
                         if self.policy.wants(j, _browserless(self.registry, inst, j), cand.full)]
            out.append(cand)
        return out


def render(registry: TaskRegistry, task_ids: list[str], seeds: list[int], corpus: CorpusDir, policy: Policy, *,
           limit: int | None = None, on_event: Event | None = None) -> list[Candidate]:
    """Draw the instances of ``seeds`` not yet in the folder (see :class:`Renderer`)."""
    renderer = Renderer(registry, task_ids, corpus, policy, on_event=on_event)
    out: list[Candidate] = []
    for seed in seeds:
        out += renderer.render(seed, limit=None if limit is None else limit - len(out))
    return out


def engine_options() -> set[str]:
    """The keyword options of the validation engine (e.g. ``ray`` where it has one)."""
    return set(inspect.signature(validate_async).parameters)


BATCH = 64  # instances drawn before they are played: bounded memory, and the first records come early


async def build_async(registry: TaskRegistry, task_ids: list[str], seeds: list[int], out: Path | str, *,
                      workers: int = 2, policy: Policy | None = None, limit: int | None = None,
                      on_event: Event | None = None, runtime: Any = None, selection: str | None = None,
                      batch: int = BATCH, **engine: Any) -> BuildResult:
    """Build (or resume) the corpus in ``out``: seed after seed, draw the instances, then prove them
    in batches of at least ``batch`` instances (a batch is one run of the validation engine).
    ``engine`` options go to :func:`tasks.validate.validate_async`, e.g. ``ray=...`` where it has it."""
    unknown = set(engine) - engine_options()
    if unknown:
        raise TypeError(f"the validation engine has no option {', '.join(sorted(unknown))}")
    policy = policy or Policy()
    corpus = CorpusDir(out, create=True)
    result = BuildResult()
    renderer = Renderer(registry, task_ids, corpus, policy, on_event=on_event, result=result)
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    by_key: dict[tuple[str, int], Candidate] = {}
    got: dict[tuple[str, int], list[Outcome]] = {}

    def collect(o: Outcome) -> None:
        key = (o.task, o.seed)
        cand = by_key[key]
        got.setdefault(key, []).append(o)
        if len(got[key]) < len(cand.jobs):
            return
        outcomes = got.pop(key)
        del by_key[key]
        bad = [o for o in outcomes if not o.agrees]
        failure = None
        if bad:
            failure = _fail_record(registry, cand.task, cand.seed, cand.key, "prove", [f"{o.solution}: {o.ladder}" for o in bad], outcomes)
        else:
            try:
                rec = proven_record(registry, cand, outcomes)
            except Exception as e:  # noqa: BLE001 - one instance's record must not stop the build
                failure = _fail_record(registry, cand.task, cand.seed, cand.key, "record", [f"its record could not be made: {type(e).__name__}: {e}"], outcomes)
        if failure is not None:
            rec = failure
            corpus.append(FAILURES, rec)
            result.failed += 1
            event = "failed"
        else:
            corpus.append(INSTANCES, rec)
            result.proven += 1
            event = "proven"
        if on_event:
            on_event(event, {**rec, "seconds": sum(o.seconds for o in outcomes)})

    async def prove(cands: list[Candidate]) -> None:
        jobs = [j for c in cands for j in c.jobs]
        if not jobs:
            return
        by_key.update({(c.task, c.seed): c for c in cands})
        result.episodes += len(jobs)
        t = time.perf_counter()
        try:
            # an episode that could not be played is played once more before its instance is decided
            report = await validate_async(registry, [], [], jobs=jobs, workers=workers, quick=True, on_outcome=collect,
                                          runtime=runtime, replay_errors=1, **engine)  # fmt: skip
            result.episodes += len(report.retried)
        finally:
            result.prove_s += time.perf_counter() - t

    try:
        pending: list[Candidate] = []
        planned = 0
        for seed in seeds:
            if limit is not None and planned >= limit:
                break
            t = time.perf_counter()
            cands = renderer.render(seed, limit=None if limit is None else limit - planned)
            result.render_s += time.perf_counter() - t
            planned += len(cands)
            pending += cands
            if len(pending) >= batch:
                await prove(pending)
                pending = []
                write_card(corpus)  # the card follows a long build batch by batch
        await prove(pending)
    except BaseException:
        result.interrupted = True
        raise
    finally:
        corpus.append(BUILDS, {
            "started": started.isoformat(timespec="seconds"), "wall_s": round(time.perf_counter() - t0, 1),
            "selection": selection, "seeds": seed_ranges(seeds), "workers": workers, "limit": limit, "policy": asdict(policy),
            "engine": {k: str(v) for k, v in engine.items()}, **asdict(result), "instances_per_min": round(result.per_minute(), 2),
        })  # fmt: skip
        write_card(corpus)
    return result
