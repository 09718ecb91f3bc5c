"""Replaying a recorded episode in a fresh world and comparing the verdicts.

The canonical actions recorded in ``steps.jsonl`` (``parsed``; the agent's own form where it did not
parse) are played in order on a new instance of the same task and seed; the new verdict is compared
with the recorded one check by check.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.agents.base import AgentStep
from sandbox.trajectory import AgentInfo, EpisodeRecord, EpisodeWriter, load_episode


@dataclass
class ReplayResult:
    original: dict[str, Any] | None
    replayed: dict[str, Any] | None
    record: EpisodeRecord
    differences: list[str] = field(default_factory=list)
    original_world: str | None = None  # the recorded episode's world digest

    @property
    def same(self) -> bool:
        return not self.differences

    @property
    def world_changed(self) -> str | None:
        """Why verdicts may differ beyond the actions: the seed's world is not the one recorded (the
        code builds another world for it). None when it is the same, or the recording predates digests."""
        before, now = self.original_world, self.record.world
        if before and now and before != now:
            return (f"the world of seed {self.record.seed} is not the one recorded (digest {before}, now {now}): "
                    "the code builds another world for it, and the replay played in that one")
        return None


def _checks(verdict: dict[str, Any] | None) -> dict[str, bool]:
    out: dict[str, bool] = {}

    def walk(checks: list[dict[str, Any]], prefix: str) -> None:
        for c in checks or []:
            name = prefix + str(c.get("name"))
            out[name] = bool(c.get("passed"))
            walk(c.get("checks") or [], name + "/")

    walk((verdict or {}).get("checks") or [], "")
    return out


def compare(original: dict[str, Any] | None, replayed: dict[str, Any] | None) -> list[str]:
    """Differences between two verdicts: passed, score, and each check's outcome."""
    if original is None and replayed is None:
        return []
    if original is None or replayed is None:
        return [f"verdict: {'none' if original is None else 'present'} originally, {'none' if replayed is None else 'present'} in the replay"]
    diffs = []
    if bool(original.get("passed")) != bool(replayed.get("passed")):
        diffs.append(f"passed: {original.get('passed')} originally, {replayed.get('passed')} in the replay")
    if abs(float(original.get("score", 0)) - float(replayed.get("score", 0))) > 1e-6:
        diffs.append(f"score: {original.get('score')} originally, {replayed.get('score')} in the replay")
    a, b = _checks(original), _checks(replayed)
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            diffs.append(f"check {name}: {a.get(name)} originally, {b.get(name)} in the replay")
    return diffs


async def replay_async(episode_dir: Path | str, *, out: Path | str | None = None, runtime: Any = None, source: Any = None) -> ReplayResult:
    """Replay one episode folder; the replay's own trajectory goes to ``out`` (a temporary folder if None)."""
    from sandbox.run.episode import new_record, play

    ep = load_episode(episode_dir)
    rec = ep.record
    if source is None:
        from tasks.registry import default_registry

        source = default_registry()
    spec = await asyncio.to_thread(source.get, rec.task, rec.seed)
    if rec.max_steps and rec.max_steps != spec.max_steps:
        spec = spec.replace(max_steps=rec.max_steps)
    actions = [AgentStep(action=s.parsed if s.parsed is not None else s.action, raw=s.action, thought=s.thought) for s in ep.steps]
    if len(actions) > spec.max_steps:
        spec = spec.replace(max_steps=len(actions))
    new = new_record(spec, AgentInfo(name="replay", spec=str(ep.path)), source="replay")
    new.replay_of = str(ep.path)
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="sandbox-replay-")
        out = Path(tmp) / rec.id
    writer = EpisodeWriter(Path(out), new)
    own = runtime is None
    if own:
        from sandbox.runtime import Runtime

        runtime = await Runtime.start()
    try:
        finished = await play(runtime, spec, None, writer, actions=actions, time_limit=rec.time_limit)
    finally:
        if own:
            await runtime.close()
    return ReplayResult(original=rec.verdict, replayed=finished.verdict, record=finished, differences=compare(rec.verdict, finished.verdict),
                        original_world=rec.world)


def replay(episode_dir: Path | str, **kwargs: Any) -> ReplayResult:
    return asyncio.run(replay_async(episode_dir, **kwargs))
