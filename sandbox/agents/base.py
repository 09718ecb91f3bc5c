"""The agent protocol: given an observation, return an action (sync or async).

An agent is any object with ``act(observation)``; ``reset(task)`` and ``close()`` are optional, and
each of the three may be a coroutine function. ``act`` returns:

- an action: a canonical action, a dict or JSON text that parses as one;
- an :class:`AgentStep` to record the action as the agent gave it (e.g. an Anthropic tool input) and
  its reasoning beside the canonical action;
- ``None`` to stop: the episode ends and is graded as it stands.

``answer`` and ``report_infeasible`` actions end the episode too.
"""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from sandbox.actions import BaseAction, parse_action


@dataclass
class TaskBrief:
    """What an agent is told at the start of an episode (``reset``)."""

    task: str
    seed: int
    instruction: str
    start_url: str | None = None
    viewport: tuple[int, int] = (1280, 800)
    max_steps: int | None = None
    # Privileged handles, for agents that need them (the oracle): the task, the env and the episode.
    spec: Any = None
    env: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class AgentStep:
    """An action plus what the trajectory should record beside it."""

    action: BaseAction | dict[str, Any] | str | None
    raw: Any = None  # the action as the agent produced it (before parsing into the canonical model)
    thought: str | None = None


class HttpAgent:
    """Shared life cycle of the API agents: one HTTP client per agent, opened at the first reset.

    Subclasses set ``timeout`` and implement ``_reset_state(task)`` (the conversation of one episode).
    """

    timeout: float
    client: Any = None

    def _reset_state(self, task: TaskBrief | None) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    async def reset(self, task: TaskBrief) -> None:
        import httpx

        self._reset_state(task)
        if self.client is None:
            self.client = httpx.AsyncClient(timeout=self.timeout)

    async def close(self) -> None:
        if self.client is not None:
            await self.client.aclose()
            self.client = None


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: Any) -> Any: ...


async def maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def call(agent: Any, method: str, *args: Any, in_thread: bool = True) -> Any:
    """Call an agent method that may be sync or async; sync ones run in a thread so that a slow
    agent (a blocking HTTP call) does not stall the other episodes of the event loop."""
    fn = getattr(agent, method, None)
    if fn is None:
        return None
    if inspect.iscoroutinefunction(fn) or not in_thread:
        return await maybe_await(fn(*args))
    return await maybe_await(await asyncio.to_thread(fn, *args))


def agent_name(agent: Any) -> str:
    return str(getattr(agent, "name", None) or type(agent).__name__)


def normalize_step(out: Any) -> AgentStep | None:
    """An agent's return value as an AgentStep (None: the agent stops)."""
    if out is None:
        return None
    if isinstance(out, AgentStep):
        return out if out.action is not None else None
    return AgentStep(action=out, raw=out)


def canonical(action: Any) -> BaseAction:
    """Parse an agent's action into the canonical model (raises ActionError)."""
    return parse_action(action)


def obs_get(observation: Any, key: str, default: Any = None) -> Any:
    """A field of an observation, whether it is a dict (gymnasium) or an object (async env)."""
    if isinstance(observation, dict):
        return observation.get(key, default)
    return getattr(observation, key, default)


def screenshot_png(observation: Any) -> bytes | None:
    """The observation's screenshot as PNG bytes (encoding an array if needed)."""
    shot = obs_get(observation, "screenshot")
    if shot is None:
        return None
    from sandbox.trajectory import png_bytes

    return png_bytes(shot)


def screenshot_size(observation: Any, default: tuple[int, int] = (1280, 800)) -> tuple[int, int]:
    """(width, height) of the observation's screenshot."""
    shot = obs_get(observation, "screenshot")
    if shot is None:
        return default
    shape = getattr(shot, "shape", None)
    if shape is not None and len(shape) >= 2:
        return int(shape[1]), int(shape[0])
    data = bytes(shot)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return default


def app_tools(task: TaskBrief | None) -> list[Any]:
    """The apps' tools an agent may offer its model: those of every installed app where the task
    allows tools, else none."""
    spec = getattr(task, "spec", None)
    if spec is None or not getattr(spec, "allows_tools", False):
        return []
    from apps_web import registry
    from sandbox.episode import tools_of

    return list(tools_of(tuple(s.name for s in registry.discover())))


def allows_gui(task: TaskBrief | None) -> bool:
    spec = getattr(task, "spec", None)
    return spec is None or getattr(spec, "allows_gui", True)
