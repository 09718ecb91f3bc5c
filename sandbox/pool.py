"""Many episodes at once in one event loop, over one Chromium and one app host.

::

    async with EpisodePool(max_concurrency=8) as pool:
        results = await pool.run([free_spec()] * 32, policy)          # policy(obs, info) -> action

    pool = SyncEpisodePool(max_concurrency=8)                          # the same, blocking
    first = pool.reset([spec_a, spec_b])                               # vector style: one env per slot
    results = pool.step([action_a, action_b])
    pool.close()

Every episode has its own world and its own BrowserContext, so episodes never see each other's
cookies, storage or data; the pool only shares the processes. ``max_concurrency`` caps how many
episodes are live at once (each costs a renderer process).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from .context import BrowserSettings
from .env import AsyncSandboxEnv
from .loop import background_loop
from .observe import ObserveOptions
from .runtime import Runtime, default_apps
from .settle import SettleBudget
from .spec import EpisodeSpec, TaskSource

Policy = Callable[[dict[str, Any], dict[str, Any]], Any]  # (obs, info) -> action, or an awaitable of one
Item = EpisodeSpec | str | tuple[str, int]  # a spec, a task id, or (task id, seed)


@dataclass
class EpisodeResult:
    """The outcome of one episode run by the pool."""

    task_id: str
    seed: int
    steps: int = 0
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    verdict: Any = None
    answer: str | None = None
    error: str | None = None  # an exception that ended the episode early (not an action error)
    wall_ms: float = 0.0
    step_ms: list[float] = field(default_factory=list)


class EpisodePool:
    """Runs episodes concurrently (at most ``max_concurrency`` at once) over one shared runtime."""

    def __init__(
        self,
        *,
        max_concurrency: int = 8,
        runtime: Runtime | None = None,
        source: TaskSource | None = None,
        observe: ObserveOptions | None = None,
        settings: BrowserSettings | None = None,
        budget: SettleBudget | None = None,
        keep_worlds: bool = False,
        runtime_options: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ValueError(f"max_concurrency must be a positive integer, got {max_concurrency!r}")
        self.max_concurrency = max_concurrency
        self.runtime = runtime
        self._owns_runtime = runtime is None
        self.source = source
        self.observe = observe or ObserveOptions()
        self.settings = settings or BrowserSettings()
        self.budget = budget or SettleBudget()
        self.keep_worlds = keep_worlds
        self._runtime_options = dict(runtime_options or {})
        self._slots = asyncio.Semaphore(max_concurrency)
        self._vector: list[AsyncSandboxEnv] = []
        self._envs: set[AsyncSandboxEnv] = set()

    # -- lifecycle -----------------------------------------------------------------------------------
    async def start(self) -> EpisodePool:
        if self.runtime is None or self.runtime.closed:
            opts = dict(self._runtime_options)
            opts.setdefault("apps", default_apps("playground"))
            self.runtime = await Runtime.start(**opts)
            self._owns_runtime = True
        return self

    async def close(self) -> None:
        envs = list(self._envs)
        self._envs.clear()
        self._vector.clear()
        await asyncio.gather(*(env.close() for env in envs), return_exceptions=True)
        if self._owns_runtime and self.runtime is not None:
            await self.runtime.close()

    async def __aenter__(self) -> EpisodePool:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # -- episodes ------------------------------------------------------------------------------------
    def _spec(self, item: Item, seed: int | None = None) -> EpisodeSpec:
        if isinstance(item, EpisodeSpec):
            return item.with_seed(seed)
        task_id, item_seed = (item, 0) if isinstance(item, str) else item
        if self.source is None:
            raise ValueError(f"task {task_id!r} given by id, but the pool has no TaskSource")
        return self.source.get(task_id, seed if seed is not None else item_seed)

    def env(self, spec: EpisodeSpec) -> AsyncSandboxEnv:
        """An env on the pool's runtime (not counted against the cap; closed with the pool)."""
        if self.runtime is None:
            raise RuntimeError("start the pool first (await pool.start() or `async with`)")
        env = AsyncSandboxEnv(
            spec, runtime=self.runtime, observe=self.observe, settings=self.settings, budget=self.budget,
            keep_worlds=self.keep_worlds,
        )
        self._envs.add(env)
        return env

    @asynccontextmanager
    async def episode(self, item: Item, *, seed: int | None = None) -> AsyncIterator[tuple[AsyncSandboxEnv, dict, dict]]:
        """Within the cap: ``async with pool.episode(spec) as (env, obs, info): ...``."""
        await self.start()
        spec = self._spec(item, seed)
        async with self._slots:
            env = self.env(spec)
            try:
                obs, info = await env.reset(seed=spec.seed)
                yield env, obs, info
            finally:
                self._envs.discard(env)
                await env.close()

    async def run_episode(self, item: Item, policy: Policy, *, seed: int | None = None) -> EpisodeResult:
        """Reset, then ask ``policy(obs, info)`` for actions until the episode ends."""
        spec = self._spec(item, seed)
        result = EpisodeResult(task_id=spec.id, seed=spec.seed)
        t0 = time.perf_counter()
        try:
            async with self.episode(spec) as (env, obs, info):
                done = False
                while not done:
                    action = policy(obs, info)
                    if inspect.isawaitable(action):
                        action = await action
                    ts = time.perf_counter()
                    obs, reward, terminated, truncated, info = await env.step(action)
                    result.step_ms.append((time.perf_counter() - ts) * 1000)
                    result.steps += 1
                    result.reward = reward
                    result.terminated, result.truncated = terminated, truncated
                    done = terminated or truncated
                result.verdict = info.get("verdict")
                result.answer = info.get("answer")
        except Exception as exc:
            result.error = f"{type(exc).__name__}: {exc}"
        result.wall_ms = (time.perf_counter() - t0) * 1000
        return result

    async def run(self, items: Iterable[Item], policy: Policy) -> list[EpisodeResult]:
        """Run every item (at most ``max_concurrency`` at once); results in the order of ``items``."""
        await self.start()
        return list(await asyncio.gather(*(self.run_episode(item, policy) for item in items)))

    # -- vector style ----------------------------------------------------------------------------------
    async def reset(self, items: Sequence[Item], *, seeds: Sequence[int | None] | None = None) -> list[tuple[dict, dict]]:
        """One env per item (up to the cap), all reset concurrently; they stay open for :meth:`step`."""
        await self.start()
        if len(items) > self.max_concurrency:
            raise ValueError(f"{len(items)} episodes asked for, but max_concurrency is {self.max_concurrency}")
        seeds = list(seeds) if seeds is not None else [None] * len(items)
        specs = [self._spec(item, seed) for item, seed in zip(items, seeds)]
        while len(self._vector) > len(specs):
            env = self._vector.pop()
            self._envs.discard(env)
            await env.close()
        while len(self._vector) < len(specs):
            self._vector.append(self.env(specs[len(self._vector)]))
        return list(await asyncio.gather(*(
            env.reset(seed=spec.seed, options={"spec": spec}) for env, spec in zip(self._vector, specs)
        )))

    async def step(self, actions: Sequence[Any]) -> list[tuple[dict, float, bool, bool, dict]]:
        """Step every env of the last :meth:`reset` with its action, concurrently."""
        if len(actions) != len(self._vector):
            raise ValueError(f"{len(actions)} actions for {len(self._vector)} episodes")
        return list(await asyncio.gather(*(env.step(a) for env, a in zip(self._vector, actions))))

    @property
    def envs(self) -> list[AsyncSandboxEnv]:
        """The envs of the last vector-style :meth:`reset`."""
        return list(self._vector)


class SyncEpisodePool:
    """The blocking face of :class:`EpisodePool` (the pool runs on the sandbox's background loop)."""

    def __init__(self, **kwargs: Any) -> None:
        self._loop = background_loop()
        self.pool = EpisodePool(**kwargs)
        self._loop.run(self.pool.start())

    def run(self, items: Iterable[Item], policy: Policy) -> list[EpisodeResult]:
        return self._loop.run(self.pool.run(list(items), policy))

    def run_episode(self, item: Item, policy: Policy, *, seed: int | None = None) -> EpisodeResult:
        return self._loop.run(self.pool.run_episode(item, policy, seed=seed))

    def reset(self, items: Sequence[Item], *, seeds: Sequence[int | None] | None = None) -> list[tuple[dict, dict]]:
        return self._loop.run(self.pool.reset(items, seeds=seeds))

    def step(self, actions: Sequence[Any]) -> list[tuple[dict, float, bool, bool, dict]]:
        return self._loop.run(self.pool.step(actions))

    def call(self, fn: Callable[[EpisodePool], Awaitable[Any]]) -> Any:
        """Run ``await fn(pool)`` on the pool's loop (for tools and tests that reach into the pages)."""

        async def inside() -> Any:
            return await fn(self.pool)  # fn is called on the loop, so whatever it creates belongs there

        return self._loop.run(inside())

    def close(self) -> None:
        if self._loop.alive:
            self._loop.run(self.pool.close())

    def __enter__(self) -> SyncEpisodePool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = ["EpisodePool", "EpisodeResult", "Item", "Policy", "SyncEpisodePool"]
