"""The OpenEnv ``Environment`` of one session, on the async env core, and what all sessions share.

OpenEnv's server makes one :class:`SandboxEnvironment` per WebSocket session. Each runs its own
:class:`~sandbox.env.AsyncSandboxEnv` (its own forked world and browser context) on the server's one
:class:`Hub`: one Chromium, one app host, one world store and the task registry, started with the
server. ``reset`` picks the task (or a free-form app), the seed and what the observations hold.
"""

from __future__ import annotations

import asyncio
import base64
import io
import threading
import uuid
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Coroutine, TypeVar

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata
from pydantic import ValidationError

from ..env import AsyncSandboxEnv
from ..episode import tools_of
from ..observe import ObserveOptions
from ..runtime import Runtime, default_apps
from ..spec import EpisodeSpec, TaskSource, free_spec
from .models import ResetOptions, SandboxAction, SandboxObservation, SandboxState

T = TypeVar("T")

NO_EPISODE = (
    "no episode in this session: reset it first. OpenEnv's HTTP /step is stateless (each request gets a new "
    "environment); work an episode over a WebSocket session (/ws, e.g. with an EnvClient)"
)
# info keys passed on in the observation's metadata (JSON-ready)
_INFO_KEYS = ("answer", "infeasible_reason", "error", "cut", "blocked_requests", "tool_result", "progress", "settle")


class Hub:
    """What every session shares: the runtime (Chromium, app host, world store) and the task source.

    Started on the server's event loop (``await hub.start()``); Playwright objects belong to it.
    """

    def __init__(self, *, source: TaskSource | None = None, store: Any = None, tasks_dir: Path | None = None,
                 runtime_options: dict[str, Any] | None = None) -> None:
        self.source = source
        self.store = store
        self.tasks_dir = tasks_dir
        self.runtime_options = dict(runtime_options or {})
        self.runtime: Runtime | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None

    async def start(self) -> None:
        if self.runtime is not None:
            return
        self.loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        if self.store is None:
            from apps_web.world import WorldStore

            self.store = WorldStore()
        if self.source is None:
            from tasks.registry import TASKS_DIR, TaskRegistry

            self.source = TaskRegistry(self.tasks_dir or TASKS_DIR, store=self.store)
        await asyncio.to_thread(lambda: list(self.source.ids()))  # a broken task file fails the start, not a reset
        opts = {"apps": default_apps(), **self.runtime_options}
        self.runtime = await Runtime.start(store=self.store, **opts)

    async def close(self) -> None:
        if self.runtime is not None:
            runtime, self.runtime = self.runtime, None
            await runtime.close()

    def on_loop(self) -> bool:
        return self._thread == threading.get_ident()

    def call(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the hub's loop from another thread and wait for it."""
        if self.loop is None:
            coro.close()
            raise RuntimeError("the server is not started (the hub starts with the app)")
        if self.on_loop():
            coro.close()
            raise RuntimeError("called from the server's event loop: use reset_async/step_async there")
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(timeout)

    def spec(self, options: ResetOptions, seed: int | None) -> EpisodeSpec:
        """The episode a reset asks for (a task instance, or a free-form episode in an app)."""
        assert self.runtime is not None and self.source is not None
        if options.task_id is not None:
            resolve = getattr(self.source, "resolve_id", None)
            try:
                task_id = resolve(options.task_id) if resolve is not None else options.task_id
                return self.source.get(task_id, seed or 0)
            except LookupError as exc:
                raise ValueError(f"reset: {exc}") from None
        apps = self.runtime.app_names()
        if options.app not in apps:
            raise ValueError(f"reset: no app {options.app!r}; the apps are: {', '.join(apps)}")
        return free_spec(options.app, options.start_url or "/", options.instruction or "", persona=options.persona, seed=seed or 0)


def _reset_options(options: dict[str, Any]) -> ResetOptions:
    try:
        return ResetOptions(**options)
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            where = ".".join(str(p) for p in err["loc"])
            if err["type"] == "extra_forbidden":
                problems.append(f"unknown option {where!r} (options: seed, episode_id, {', '.join(ResetOptions.model_fields)})")
            else:
                msg = err["msg"].removeprefix("Value error, ")
                problems.append(f"{where}: {msg}" if where else msg)
        raise ValueError("reset: " + "; ".join(problems)) from None


def _jpeg(png: bytes, quality: int) -> bytes:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        out = io.BytesIO()
        img.convert("RGB").save(out, format="JPEG", quality=quality)
        return out.getvalue()


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


class SandboxEnvironment(Environment[SandboxAction, SandboxObservation, SandboxState]):
    """One OpenEnv session: a CUA Sandbox episode at a time, reset to any task or app."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # every session has its own world and browser context

    def __init__(self, hub: Hub) -> None:
        super().__init__()
        self.hub = hub
        self._env: AsyncSandboxEnv | None = None
        self._options = ResetOptions.model_construct()  # the defaults, until the first reset
        self._state = SandboxState()
        self._closed = False

    # -- OpenEnv's API (async: the server awaits these on its loop) ---------------------------------
    async def reset_async(self, seed: int | None = None, episode_id: str | None = None, **options: Any) -> SandboxObservation:
        """Start an episode: ``task_id`` or ``app``, ``seed``, and the observation options (:class:`ResetOptions`)."""
        if self._closed:
            raise RuntimeError("this session is closed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise ValueError(f"reset: seed must be a non-negative integer, got {seed!r}")
        opts = _reset_options(options)
        if self.hub.runtime is None:
            raise RuntimeError("the server's runtime is not running")
        spec = await asyncio.to_thread(self.hub.spec, opts, seed)  # a task's params may read the world template
        observe = ObserveOptions(
            screenshot="none" if opts.screenshot == "none" else "png", size=opts.screen_size,
            axtree=opts.axtree, marks=opts.marks, tools=opts.tools,
        )
        if self._env is None:
            self._env = AsyncSandboxEnv(spec, runtime=self.hub.runtime, observe=observe, reward=opts.reward)
        else:
            self._env.observe, self._env.reward = observe, opts.reward
        self._options = opts
        obs, info = await self._env.reset(seed=spec.seed, options={"spec": spec})
        self._state = SandboxState(
            episode_id=episode_id or uuid.uuid4().hex, step_count=0, task_id=spec.id, app=spec.app, seed=spec.seed,
            interfaces=list(spec.interfaces), max_steps=spec.max_steps, done=False, url=obs["url"],
        )
        out = await self._observation(obs, info, reward=None, done=False)
        if opts.tools and spec.allows_tools:
            out.tools = [{"name": t.name, "description": t.description, "input_schema": t.input_schema}
                         for t in tools_of(self.hub.runtime.app_names())]
        return out

    async def step_async(self, action: SandboxAction, timeout_s: float | None = None, **kwargs: Any) -> SandboxObservation:
        """Run one action. A bad one comes back as ``last_action_error``; the episode goes on.
        (Each step has the env's own time budget, so ``timeout_s`` is not needed.)"""
        if self._env is None or self._env.episode is None:
            return SandboxObservation(last_action_error=NO_EPISODE)
        payload = action.payload() if isinstance(action, SandboxAction) else action
        obs, reward, terminated, truncated, info = await self._env.step(payload)
        done = terminated or truncated
        self._state.step_count = self._env.episode.steps
        self._state.done = done
        self._state.url = obs["url"]
        return await self._observation(obs, info, reward=reward, done=done)

    @property
    def state(self) -> SandboxState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        from importlib.metadata import PackageNotFoundError, version

        try:
            ours = version("cua-sandbox")
        except PackageNotFoundError:
            ours = None
        return EnvironmentMetadata(
            name="cua-sandbox",
            description="Cloned enterprise web apps (CRM, service desk, mail) driven by screenshots, mouse, keyboard and "
                        "the apps' tools; every task graded from the world's database. Reset with task_id (any registered "
                        "task) or app (free-form), and seed.",
            version=ours,
        )

    # -- sync faces (from another thread than the server's loop) ---------------------------------------
    def reset(self, seed: int | None = None, episode_id: str | None = None, **options: Any) -> SandboxObservation:
        return self.hub.call(self.reset_async(seed=seed, episode_id=episode_id, **options))

    def step(self, action: SandboxAction, timeout_s: float | None = None, **kwargs: Any) -> SandboxObservation:
        return self.hub.call(self.step_async(action, timeout_s=timeout_s))

    def close(self) -> None:
        """End the session's episode (OpenEnv calls this from a worker thread, or from the loop for HTTP)."""
        if self._closed:
            return
        self._closed = True
        env, self._env = self._env, None
        if env is None:
            return
        if self.hub.on_loop():
            assert self.hub.runtime is not None
            self.hub.runtime.later(env.close())  # awaited when the runtime closes
        elif self.hub.loop is not None and not self.hub.loop.is_closed():
            self.hub.call(env.close(), timeout=60)

    # -- observations ----------------------------------------------------------------------------------
    async def _observation(self, obs: dict[str, Any], info: dict[str, Any], *, reward: float | None, done: bool) -> SandboxObservation:
        opts = self._options
        shot, fmt = obs.get("screenshot"), None
        if shot is not None and opts.screenshot == "jpeg":
            shot, fmt = await asyncio.to_thread(_jpeg, shot, opts.jpeg_quality), "jpeg"
        elif shot is not None:
            fmt = "png"
        verdict = info.get("verdict")
        metadata = {k: _plain(info[k]) for k in _INFO_KEYS if info.get(k) not in (None, [], "")}
        if verdict is not None:
            metadata["verdict"] = _plain(verdict)
        spec = self._env.episode.spec if self._env is not None and self._env.episode is not None else None
        return SandboxObservation(
            screenshot=base64.b64encode(shot).decode("ascii") if shot is not None else None,
            screenshot_format=fmt,
            url=obs.get("url", ""),
            title=obs.get("title", ""),
            instruction=obs.get("instruction", ""),
            last_action_error=obs.get("last_action_error", ""),
            axtree=obs.get("axtree") if opts.axtree else None,
            elements=info.get("elements") if opts.marks else None,
            tool_result=obs.get("tool_result") if opts.tools else None,
            task_id=spec.id if spec is not None else "",
            interfaces=list(spec.interfaces) if spec is not None else [],
            step=self._state.step_count,
            verdict=verdict,
            reward=reward,
            done=done,
            metadata=metadata,
        )


__all__ = ["Hub", "NO_EPISODE", "SandboxEnvironment"]
