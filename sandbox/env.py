"""The async core: ``AsyncSandboxEnv`` runs one episode at a time over a (possibly shared) runtime.

::

    env = make_async_env(start_url="/", instruction="Open the Acme account")   # the first installed app
    obs, info = await env.reset(seed=0)
    obs, reward, terminated, truncated, info = await env.step({"action": "left_click", "x": 96, "y": 40})
    await env.close()

Each ``reset`` forks a new world from the seed's template (milliseconds), applies the spec's setup,
opens a fresh BrowserContext signed in as the persona, loads the start page and returns the first
observation. ``reset()`` without a seed reuses the last seed (the spec's own seed at first): a world
template is built once per seed, so seeds are chosen deliberately, not drawn at random.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .context import BrowserSettings
from .episode import REWARD_MODES, Episode
from .observe import ObserveOptions
from .runtime import Runtime, default_apps
from .settle import SettleBudget
from .spec import DEFAULT_MAX_STEPS, DEFAULT_ROLE, EpisodeSpec, TaskSource, free_spec

Obs = dict[str, Any]
Info = dict[str, Any]


class AsyncSandboxEnv:
    """One episode at a time: ``await reset()``, ``await step(action)``, ``await close()``.

    Give it an :class:`EpisodeSpec`, or a :class:`TaskSource` and a ``task_id``. ``reward``:
    ``"passed"`` (default: 1.0/0.0 at the end), ``"score"`` (partial credit at the end) or
    ``"progress"`` (dense: each step, the change in the score); ``info["verdict"]`` always ends it. Without a
    ``runtime`` (or a ``runtime_factory`` that lends one for an app) it starts its own (Chromium + app
    host, with ``runtime_options``) on first reset and closes it on ``close``.
    """

    def __init__(
        self,
        spec: EpisodeSpec | None = None,
        *,
        source: TaskSource | None = None,
        task_id: str | None = None,
        runtime: Runtime | None = None,
        observe: ObserveOptions | None = None,
        settings: BrowserSettings | None = None,
        budget: SettleBudget | None = None,
        keep_worlds: bool = False,
        runtime_options: dict[str, Any] | None = None,
        runtime_factory: Callable[[str], Awaitable[Runtime]] | None = None,
        reward: str = "passed",
    ) -> None:
        if spec is None and (source is None or task_id is None):
            raise ValueError("give an EpisodeSpec, or a TaskSource and a task_id")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, got {reward!r}")
        self.reward = reward
        self.spec = spec
        self.source = source
        self.task_id = task_id if task_id is not None else (spec.id if spec is not None else None)
        self.observe = observe or ObserveOptions()
        self.settings = settings or BrowserSettings()
        self.budget = budget or SettleBudget()
        self.keep_worlds = keep_worlds
        self.runtime = runtime
        self._owns_runtime = runtime is None
        self._runtime_options = dict(runtime_options or {})
        self._runtime_factory = runtime_factory
        self._seed: int | None = None
        self.episode: Episode | None = None
        self._closed = False

    # -- lifecycle -----------------------------------------------------------------------------------
    async def _ensure_runtime(self, app: str) -> Runtime:
        if (self.runtime is None or self.runtime.closed) and self._runtime_factory is not None:
            self.runtime = await self._runtime_factory(app)  # shared: someone else closes it
            self._owns_runtime = False
        if self.runtime is None or self.runtime.closed:
            opts = dict(self._runtime_options)
            if "apps" not in opts and "host" not in opts:
                opts["apps"] = default_apps(app)
            self.runtime = await Runtime.start(**opts)
            self._owns_runtime = True
        return self.runtime

    def _spec_for(self, seed: int | None, options: dict[str, Any]) -> EpisodeSpec:
        if isinstance(options.get("spec"), EpisodeSpec):
            spec = options["spec"]
        elif self.source is not None and (options.get("task_id") or self.task_id):
            task_id = options.get("task_id") or self.task_id
            base_seed = seed if seed is not None else (self._seed if self._seed is not None else 0)
            spec = self.source.get(task_id, base_seed)
        elif self.spec is not None:
            spec = self.spec
        else:  # pragma: no cover - guarded in __init__
            raise ValueError("no episode spec")
        if seed is None:
            seed = self._seed if self._seed is not None else spec.seed
        changes = {k: options[k] for k in ("start_url", "instruction", "persona", "role", "max_steps") if k in options}
        spec = spec.with_seed(seed)
        return spec.replace(**changes) if changes else spec

    async def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, Info]:
        """End the current episode (if any) and start a new one; returns the first observation.

        ``options={"checkpoint": path}`` starts it from a checkpoint (:meth:`checkpoint`) instead: a new
        branch by default, ``"branch": False`` to continue the saved episode itself (once);
        ``"extensions": {name: object}`` restores the saved states of the episode's extensions."""
        if self._closed:
            raise RuntimeError("this env is closed")
        options = dict(options or {})
        if options.get("checkpoint") is not None:
            return await self._resume(options)
        spec = self._spec_for(seed, options)
        self._seed = spec.seed
        runtime = await self._ensure_runtime(spec.app)
        old, self.episode = self.episode, None
        try:
            self.episode, obs, info = await Episode.open(
                runtime, spec, observe=self.observe, settings=self.settings, budget=self.budget, keep_world=self.keep_worlds,
                reward=self.reward,
            )
        finally:
            if old is not None:  # closed once the next start page is shown: closing a context costs CPU
                runtime.later(self._end(old))
        return obs, info

    async def _resume(self, options: dict[str, Any]) -> tuple[Obs, Info]:
        from .checkpoint import read

        unknown = set(options) - {"checkpoint", "branch", "extensions"}
        if unknown:
            raise ValueError(f"reset from a checkpoint takes the options checkpoint, branch and extensions, not {', '.join(sorted(unknown))}")
        cp = read(options["checkpoint"], check_world=False)  # the whole check runs in Episode.resume
        tid, seed = cp.task["id"], int(cp.task["seed"])
        spec = None
        if self.source is None and self.spec is not None and self.spec.id == tid:
            spec = self.spec.with_seed(seed)
        runtime = await self._ensure_runtime(cp.task["app"])
        old, self.episode = self.episode, None
        try:
            self.episode, obs, info = await Episode.resume(
                runtime, cp.path, branch=bool(options.get("branch", True)), spec=spec, source=self.source,
                observe=self.observe, settings=self.settings, budget=self.budget, keep_world=self.keep_worlds, reward=self.reward,
                extensions=options.get("extensions"),
            )  # fmt: skip
        finally:
            if old is not None:
                runtime.later(self._end(old))
        self._seed = seed
        return obs, info

    async def checkpoint(self, path: Any, *, overwrite: bool = False) -> Any:
        """Save the current episode to the folder ``path`` (see :mod:`sandbox.checkpoint`); returns its
        Path. ``reset(options={"checkpoint": path})`` starts from it."""
        if self.episode is None:
            raise RuntimeError("no episode to checkpoint: call reset() first")
        return await self.episode.checkpoint(path, overwrite=overwrite)

    async def step(self, action: Any) -> tuple[Obs, float, bool, bool, Info]:
        """Run one action (canonical dict, JSON text or Action); see :meth:`Episode.step`."""
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        return (await self.episode.step(action)).astuple()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.episode is not None:
            episode, self.episode = self.episode, None
            await self._end(episode)
        if self._owns_runtime and self.runtime is not None:
            await self.runtime.close()

    async def _end(self, episode: Episode) -> None:
        await episode.close()
        if self.keep_worlds:  # kept for the caller beyond this process: not an orphan when it exits
            episode.runtime.store.release(episode.world)

    async def __aenter__(self) -> AsyncSandboxEnv:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # -- conveniences --------------------------------------------------------------------------------
    @property
    def page(self) -> Any:
        """The Playwright page the agent sees (for tests and tools; agents act through ``step``)."""
        if self.episode is None:
            raise RuntimeError("no episode: call reset() first")
        return self.episode.page


def make_async_env(
    app: str | None = None,
    start_url: str = "/",
    instruction: str = "",
    *,
    persona: str | None = None,
    role: str | None = DEFAULT_ROLE,
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    **kwargs: Any,
) -> AsyncSandboxEnv:
    """A free-form async env on ``app`` (default: the first installed app; no verifier):
    ``AsyncSandboxEnv(free_spec(...), **kwargs)``."""
    spec = free_spec(app, start_url, instruction, persona=persona, role=role, seed=seed, max_steps=max_steps)
    return AsyncSandboxEnv(spec, **kwargs)


__all__ = ["AsyncSandboxEnv", "make_async_env"]
