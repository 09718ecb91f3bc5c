"""``SandboxEnv``: the gymnasium face of the async core, and registration by namespaced id.

::

    import gymnasium as gym
    import sandbox  # registers sandbox/<app>.free for every installed app

    env = gym.make("sandbox/crm.free", instruction="Open the Acme account")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step('{"action": "left_click", "x": 96, "y": 40}')

Observations are a ``spaces.Dict``: ``screenshot`` (HxWx3 uint8), ``url`` (without the app host's
port, e.g. ``http://crm.localhost/opportunities/3``: the same in every process), ``title``,
``instruction``, ``last_action_error`` (and ``axtree`` when asked for). Actions are canonical JSON text (a
``spaces.Text``); dicts and Action objects are accepted too. The async core runs on a private
background loop; envs without their own runtime share one Chromium and one app host per process.

Step ``info`` holds the url, the error, blocked requests, the world changes since the last step,
``cut`` when the action ran past its time budget (``budget=SettleBudget(action=...)``) and, at the end,
the verdict. Step timings are nondeterministic, so they are kept out of step ``info``
(gymnasium's determinism check compares infos) unless ``timing_info=True``; they are always in
``env.last_timing`` (reset ``info`` keeps its timing: it is not compared).
"""

from __future__ import annotations

import string
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .context import BrowserSettings
from .env import AsyncSandboxEnv
from .loop import background_loop, shared_runtime
from .observe import ObserveOptions
from .runtime import Runtime
from .settle import SettleBudget
from .spec import DEFAULT_MAX_STEPS, DEFAULT_ROLE, EpisodeSpec, TaskSource, free_spec

TEXT_LIMITS = {"url": 8192, "title": 4096, "instruction": 65536, "last_action_error": 16384, "axtree": 2_000_000, "tool_result": 1_000_000}
ACTION_MAX_CHARS = 65536
_SAMPLE_CHARSET = string.ascii_letters + string.digits + " {}[]:,\"'_-."


class UnicodeText(spaces.Text):
    """A ``spaces.Text`` that contains any Unicode string within its length bounds.

    ``spaces.Text`` only contains strings made of its character set; page titles, URLs and typed text
    can hold any character, so membership checks the length only. Samples use a small ASCII set.
    """

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=_SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, UnicodeText) and self.min_length == other.min_length and self.max_length == other.max_length


def observation_space(observe: ObserveOptions, viewport: tuple[int, int]) -> spaces.Dict:
    w, h = observe.size or viewport
    fields: dict[str, spaces.Space] = {"screenshot": spaces.Box(0, 255, (h, w, 3), np.uint8)}
    for name in ("url", "title", "instruction", "last_action_error"):
        fields[name] = UnicodeText(TEXT_LIMITS[name])
    if observe.axtree:
        fields["axtree"] = UnicodeText(TEXT_LIMITS["axtree"])
    if observe.tools:
        fields["tool_result"] = UnicodeText(TEXT_LIMITS["tool_result"])
    return spaces.Dict(fields)


def _extra_apps(app: str) -> tuple[str, ...]:
    return (app,) if app == "playground" else ()


class SandboxEnv(gym.Env):
    """A gymnasium env over one sandbox app: a free-form episode, an :class:`EpisodeSpec`, or a task id."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        app: str | None = None,
        start_url: str = "/",
        instruction: str = "",
        *,
        spec: EpisodeSpec | None = None,
        source: TaskSource | None = None,
        task_id: str | None = None,
        persona: str | None = None,
        role: str | None = DEFAULT_ROLE,
        seed: int = 0,
        max_steps: int = DEFAULT_MAX_STEPS,
        observe: ObserveOptions | None = None,
        screenshot_size: tuple[int, int] | None = None,
        axtree: bool = False,
        marks: bool = False,
        tools: bool = False,
        settings: BrowserSettings | None = None,
        budget: SettleBudget | None = None,
        runtime: Runtime | None = None,
        shared: bool = True,
        runtime_options: dict[str, Any] | None = None,
        keep_worlds: bool = False,
        timing_info: bool = False,
        render_mode: str | None = None,
        reward: str = "passed",
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        observe = observe or ObserveOptions(size=screenshot_size, axtree=axtree, marks=marks, tools=tools)
        if observe.screenshot != "array":
            raise ValueError("the gymnasium env observes screenshots as arrays; use AsyncSandboxEnv for PNG bytes")
        settings = settings or BrowserSettings()
        if spec is None and source is None:
            spec = free_spec(app, start_url, instruction, persona=persona, role=role, seed=seed, max_steps=max_steps)
        self.render_mode = render_mode
        self.timing_info = timing_info
        self.last_timing: dict[str, float] = {}
        self._loop = background_loop()
        factory = None
        if runtime is None and shared:
            async def factory(app_name: str) -> Runtime:
                return await shared_runtime(_extra_apps(app_name))
        self._core = AsyncSandboxEnv(
            spec, source=source, task_id=task_id, runtime=runtime, observe=observe, settings=settings,
            budget=budget, keep_worlds=keep_worlds, runtime_options=runtime_options, runtime_factory=factory,
            reward=reward,
        )
        if runtime is not None:
            self._core._owns_runtime = False
        self.observation_space = observation_space(observe, settings.viewport)
        self.action_space = UnicodeText(ACTION_MAX_CHARS)
        self._last_obs: dict[str, Any] | None = None

    # -- gymnasium API -------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        obs, info = self._loop.run(self._core.reset(seed=seed, options=options))
        return self._finish(obs, info, keep_timing=True)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self._loop.run(self._core.step(action))
        obs, info = self._finish(obs, info)
        return obs, float(reward), bool(terminated), bool(truncated), info

    def checkpoint(self, path: Any, *, overwrite: bool = False) -> Any:
        """Save the current episode to the folder ``path``; ``reset(options={"checkpoint": path})``
        starts a new branch from it (``"branch": False`` continues the saved episode itself, once)."""
        return self._loop.run(self._core.checkpoint(path, overwrite=overwrite))

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array" or self._last_obs is None:
            return None
        return self._last_obs["screenshot"].copy()

    def close(self) -> None:
        if getattr(self, "_core", None) is not None and self._loop.alive:
            self._loop.run(self._core.close())
        super().close()

    # -- helpers -------------------------------------------------------------------------------------
    def _finish(self, obs: dict[str, Any], info: dict[str, Any], keep_timing: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
        for name, limit in TEXT_LIMITS.items():
            value = obs.get(name)
            if isinstance(value, str) and len(value) > limit:
                obs[name] = value[: limit - 1] + "…"
        self.last_timing = info.get("timing", {})
        if not (self.timing_info or keep_timing):
            info = {k: v for k, v in info.items() if k != "timing"}
        self._last_obs = obs
        return obs, info

    @property
    def core(self) -> AsyncSandboxEnv:
        """The async env underneath (its coroutines must run on ``self.run``'s loop)."""
        return self._core

    def run(self, coro: Any, timeout: float | None = None) -> Any:
        """Run a coroutine on the env's loop (e.g. ``env.run(env.core.page.evaluate("1+1"))``)."""
        return self._loop.run(coro, timeout)

    @property
    def episode(self) -> Any:
        return self._core.episode


# -- registration -------------------------------------------------------------------------------------
from .registration import ENTRY_POINT  # noqa: E402


def register_free_envs(apps: list[str] | None = None) -> list[str]:
    """Register ``sandbox/<app>.free`` for each app (default: every installed app and the playground)."""
    if apps is None:
        from .registration import installed_app_names

        apps = installed_app_names()
    ids = []
    for app in apps:
        env_id = f"sandbox/{app}.free"
        if env_id not in gym.registry:
            gym.register(env_id, entry_point=ENTRY_POINT, kwargs={"app": app})
        ids.append(env_id)
    return ids


def register_tasks(source: TaskSource, *, prefix: str = "sandbox") -> list[str]:
    """Register ``sandbox/<app>.<task>`` for every task id of ``source`` (ids are ``<app>.<task>``)."""
    ids = []
    for task_id in source.ids():
        env_id = f"{prefix}/{task_id}"
        if env_id in gym.registry:
            del gym.registry[env_id]  # re-registering a source replaces its envs
        gym.register(env_id, entry_point=ENTRY_POINT, kwargs={"source": source, "task_id": task_id})
        ids.append(env_id)
    return ids


__all__ = ["SandboxEnv", "UnicodeText", "observation_space", "register_free_envs", "register_tasks"]
