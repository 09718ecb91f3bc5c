"""The sandbox's Ray actor: one per node (or per few cores), owning what episodes share there.

Each actor starts a Chromium, an app host and a world store on its node, like a local run's runtime,
and plays the work items the driver gives it (``call(fn, item)``, at most its slots at once) with the
function the driver names. A restarted actor (Ray restarts one that died) removes the worlds its
killed predecessor left and starts afresh.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

import psutil


@dataclass(frozen=True)
class NodeSetup:
    store: str | None = None
    templates: str | None = None
    source: Callable[[Any], Any] | None = None  # store -> the node's TaskSource (None: the shipped tasks)
    judge: str | None = None  # model specs, as given to the driver's --judge and --coworkers
    coworkers: str | None = None


def shipped_tasks(store: Any) -> Any:
    """The default task source of a node: the task templates installed with the package."""
    from tasks.registry import TaskRegistry

    return TaskRegistry(store=store)


class Node:
    """Made a Ray actor by :func:`sandbox.cluster.start_nodes`; plain Python otherwise (and in tests
    of the functions it runs)."""

    def __init__(self, setup: NodeSetup) -> None:
        self.setup = setup
        self.runtime: Any = None
        self.store: Any = None
        self.source: Any = None
        self.scratch: Path | None = None
        self._starting: asyncio.Future | None = None
        self._cache: dict[Any, Any] = {}
        self._models = ExitStack()

    async def start(self) -> dict[str, Any]:
        """Start the runtime once (every caller waits for the same start); describe the actor."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        await asyncio.shield(self._starting)
        return self.describe()

    async def _start(self) -> None:
        from apps_web.world import WorldStore
        from sandbox.runtime import Runtime

        from sandbox.models.setup import models_in_use

        if self.setup.judge or self.setup.coworkers:  # this actor process's judge and co-workers, for its lifetime
            self._models.enter_context(models_in_use(self.setup.judge, self.setup.coworkers))
        store = WorldStore(self.setup.store, templates_dir=self.setup.templates)
        await asyncio.to_thread(store.remove_orphans)  # the worlds of a predecessor that was killed
        self.scratch = await asyncio.to_thread(_scratch_dir, store.root)
        self.store = store
        self.source = (self.setup.source or shipped_tasks)(store)
        if callable(getattr(self.source, "load", None)):  # read every task file now, not in the first episode
            await asyncio.to_thread(self.source.load)
        self.runtime = await Runtime.start(store=store)

    def describe(self) -> dict[str, Any]:
        node_id = None
        try:
            import ray

            node_id = ray.get_runtime_context().get_node_id()
        except Exception:  # not in a Ray worker
            pass
        return {"pid": os.getpid(), "host": socket.gethostname(), "node_id": node_id}

    async def call(self, fn: Callable[[Node, Any], Awaitable[Any]], item: Any) -> Any:
        """Play one work item: ``await fn(self, item)``."""
        await self.start()
        return await fn(self, item)

    def cached(self, key: Any, make: Callable[[], Any]) -> Any:
        """Something built once per actor for the items that share ``key`` (e.g. an episode pool)."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    async def close(self) -> None:
        for value in self._cache.values():
            close = getattr(value, "close", None)
            if close is not None:
                try:
                    res = close()
                    if asyncio.iscoroutine(res):
                        await res
                except Exception:
                    pass
        self._cache.clear()
        if self.runtime is not None:
            await self.runtime.close()
            self.runtime = None
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
        self._models.close()


def _scratch_dir(root: Path) -> Path:
    """This actor's folder for episodes in the making (sent to the driver when finished); the folders
    of dead actors on this node are removed."""
    base = Path(root) / "ray-scratch"
    base.mkdir(parents=True, exist_ok=True)
    for child in base.iterdir():
        if child.name.isdigit() and not psutil.pid_exists(int(child.name)):
            shutil.rmtree(child, ignore_errors=True)
    mine = base / str(os.getpid())
    shutil.rmtree(mine, ignore_errors=True)
    mine.mkdir()
    return mine
