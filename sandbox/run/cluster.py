"""A run on a Ray cluster: the same episodes, records and run folder as the local pool.

Each actor (:class:`sandbox.cluster.Node`) plays an item with :func:`play_on_node` into its node's
scratch folder and sends the finished trajectory folder back (a tar of ``episode.json``,
``steps.jsonl`` and the screenshots); the driver unpacks it into ``<run>/episodes/<id>`` and appends
the ``results.jsonl`` line, exactly as the local runner does. An attempt lost with its actor is
written to ``<run>/attempts.jsonl`` and played again; only the finished episode counts.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import tarfile
from dataclasses import dataclass
from typing import Any, Callable

from sandbox.trajectory import AgentInfo, EpisodeRecord, EpisodeWriter, RunDir, episode_name
from sandbox.trajectory.format import PARTIAL_SUFFIX
from sandbox.trajectory.writer import utc_now

from .episode import play_task
from .select import TaskInfo


@dataclass
class EpisodeItem:
    """One (task, seed, agent) work item, as sent to an actor."""

    task: TaskInfo
    seed: int
    agent: str
    agent_options: dict[str, Any]
    info: AgentInfo
    max_steps: int | None
    time_limit: float | None
    factory: Callable[[], Any] | None = None  # the run's agent_factory (shipped by cloudpickle)

    @property
    def id(self) -> str:
        return episode_name(self.task.id, self.seed)


async def play_on_node(node: Any, item: EpisodeItem) -> tuple[dict[str, Any], bytes]:
    """On the actor: play the item into the node's scratch folder; return its record and the folder
    as a tar (then removed from the node)."""
    from sandbox.agents import load_agent

    folder = node.scratch / item.id
    for leftover in (folder, folder.with_name(folder.name + PARTIAL_SUFFIX)):
        shutil.rmtree(leftover, ignore_errors=True)
    make = item.factory or (lambda: load_agent(item.agent, item.agent_options))
    try:
        finished = await play_task(node.runtime, node.source, item.task, item.seed, info=item.info, make_agent=make,
                                   writer_for=lambda rec: EpisodeWriter(folder, rec), max_steps=item.max_steps,
                                   time_limit=item.time_limit)  # fmt: skip
        data = await asyncio.to_thread(_pack, folder)
    finally:
        for done in (folder, folder.with_name(folder.name + PARTIAL_SUFFIX)):
            shutil.rmtree(done, ignore_errors=True)
    return finished.model_dump(mode="json"), data


def _pack(folder: Any) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:  # screenshots are PNGs already: no compression
        tar.add(folder, arcname=".")
    return buf.getvalue()


def receive(run: RunDir, record: dict[str, Any], data: bytes) -> EpisodeRecord:
    """Unpack an episode sent by an actor into the run folder (whole, or not at all)."""
    rec = EpisodeRecord.model_validate(record)
    if "/" in rec.id or rec.id.startswith("."):
        raise ValueError(f"an actor sent an episode with a bad id {rec.id!r}")
    final = run.episodes_dir / rec.id
    partial = final.with_name(final.name + PARTIAL_SUFFIX)
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(partial, filter="data")
    os.replace(partial, final)
    return rec


def _error_episode(run: RunDir, item: EpisodeItem, error: str) -> EpisodeRecord:
    rec = EpisodeRecord(id=item.id, task=item.task.id, seed=item.seed, agent=item.info, app=item.task.app,
                        difficulty=item.task.difficulty, tags=list(item.task.tags), time_limit=item.time_limit)  # fmt: skip
    return run.episode_writer(rec).finish(error=error)


async def run_on_cluster(config: Any, opts: Any, run: RunDir, todo: list[tuple[TaskInfo, int]], info: AgentInfo,
                         progress: Any, agent_factory: Callable[[], Any] | None) -> None:
    """Play ``todo`` on the cluster's actors; every finished episode lands in ``run`` as it comes."""
    import ray

    from sandbox.cluster import connect, dispatch, start_nodes, stop_nodes

    items = [EpisodeItem(t, s, config.agent, dict(config.agent_options), info, config.max_steps, config.time_limit, agent_factory)
             for t, s in todo]  # fmt: skip
    connected = connect(opts)
    nodes: list[Any] = []
    try:
        nodes = await start_nodes(opts, slots=config.workers)
        run.update_meta(ray={"address": opts.address, "episodes_per_actor": config.workers, "cpus_per_actor": opts.cpus_per_actor,
                             "actors": [n.info for n in nodes]})  # fmt: skip

        def on_result(item: EpisodeItem, result: Any) -> None:
            if isinstance(result, BaseException):  # the item's code failed on the actor (not the actor)
                rec = _error_episode(run, item, f"the episode failed on its Ray actor: {type(result).__name__}: {result}")
            else:
                rec = receive(run, *result)
            progress.episode_finished(rec, run.add_result(rec))

        def on_attempt(item: EpisodeItem, attempt: Any) -> None:
            run.add_attempt({"id": item.id, "task": item.task.id, "seed": item.seed, "attempt": attempt.number, "actor": attempt.actor,
                             "error": attempt.error, "seconds": attempt.seconds, "retried": not attempt.final, "at": utc_now()})  # fmt: skip
            progress.episode_retried(item.id, attempt.error)

        def on_give_up(item: EpisodeItem, why: str) -> None:
            rec = _error_episode(run, item, f"the episode could not be played on the cluster: {why}")
            progress.episode_finished(rec, run.add_result(rec))

        timeout = config.time_limit + opts.grace_s if config.time_limit else None
        await dispatch(nodes, items, play_on_node, slots=config.workers, key=lambda i: i.id,
                       on_start=lambda item, node: progress.episode_started(item.id), on_result=on_result,
                       on_attempt=on_attempt, on_give_up=on_give_up, max_attempts=opts.max_attempts, item_timeout=timeout)  # fmt: skip
    finally:
        if nodes:
            await stop_nodes(nodes)
        if connected:
            ray.shutdown()
