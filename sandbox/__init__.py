"""CUA Sandbox runtime: gymnasium envs, an async core and a pool over one Chromium and one app host.

Public names are imported lazily (``import sandbox`` stays cheap); importing the package registers
``sandbox/<app>.free`` with gymnasium (as soon as gymnasium is imported: not before, which keeps
the command line's start-up free of gymnasium and numpy).

- ``make_env(app, start_url, instruction)`` -> :class:`SandboxEnv` (gymnasium)
- ``make_async_env(...)`` / :class:`AsyncSandboxEnv` (``await reset/step/close``)
- :class:`EpisodePool` / :class:`SyncEpisodePool`: many episodes concurrently
- :class:`EpisodeSpec`, :class:`TaskSource`, ``free_spec``: the contract with tasks
- ``sandbox.actions``: the canonical action model and the agent adapters
- ``sandbox.checkpoint``: episodes saved mid-way, resumed or branched (``env.checkpoint(path)``)
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .registration import register_when_imported as _register

_EXPORTS = {
    "AsyncSandboxEnv": "env", "make_async_env": "env",
    "SandboxEnv": "gym_env", "register_tasks": "gym_env", "register_free_envs": "gym_env",
    "EpisodePool": "pool", "SyncEpisodePool": "pool", "EpisodeResult": "pool",
    "EpisodeSpec": "spec", "TaskSource": "spec", "free_spec": "spec",
    "Episode": "episode", "StepResult": "episode",
    "ObserveOptions": "observe", "Element": "observe",
    "BrowserSettings": "context", "SettleBudget": "settle",
    "Runtime": "runtime", "AppHost": "apphost", "shutdown": "loop",
    "CheckpointError": "checkpoint",
}  # fmt: skip


def make_env(app: str | None = None, start_url: str = "/", instruction: str = "", **kwargs: Any) -> Any:
    """A free-form gymnasium env on ``app`` (default: the first installed app; see
    :class:`sandbox.gym_env.SandboxEnv` for options)."""
    from .gym_env import SandboxEnv
    from .spec import default_app

    return SandboxEnv(app or default_app(), start_url, instruction, **kwargs)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


_register()

__all__ = ["make_env", *_EXPORTS]
