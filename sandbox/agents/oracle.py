"""The oracle agent: plays each task's oracle solution through the GUI, like a person.

The task library's :class:`tasks.player.Player` finds each step's target on the live page and turns
it into a plain computer action (``left_click(x, y)``, ``type``...). The player pushes actions while
the agent protocol pulls them, so the player runs as a task beside the episode and hands its actions
to :meth:`OracleAgent.act` one at a time. The oracle is privileged: it needs the live episode
(``TaskBrief.env``) to look at the page, which no other agent gets.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sandbox.actions import BaseAction

from .base import TaskBrief

_DONE = object()


class OracleAgent:
    name = "oracle"

    def __init__(self, solution: str = "oracle", timeout_s: float | None = None) -> None:
        self.solution = solution  # "oracle", or the name of a near-miss to play instead
        self.timeout_s = timeout_s
        self._task: asyncio.Task[Any] | None = None
        self._actions: asyncio.Queue[Any] | None = None
        self._results: asyncio.Queue[bool] | None = None
        self._waiting = False

    @staticmethod
    def instance(brief: TaskBrief) -> Any:
        """The task instance behind the episode (the spec's verifier is bound to it), else from the registry."""
        inst = getattr(getattr(brief.spec, "verify", None), "__self__", None)
        if inst is not None and hasattr(inst, "oracle"):
            return inst
        from tasks.registry import default_registry

        return default_registry().instance(brief.task, brief.seed)

    async def reset(self, brief: TaskBrief) -> None:
        from tasks.player import DEFAULT_TIMEOUT_S, Player

        await self.close()
        if brief.env is None:
            raise RuntimeError("the oracle agent needs the live episode (TaskBrief.env) to find its targets")
        inst = self.instance(brief)
        solution = inst.oracle if self.solution == "oracle" else inst.near_miss(self.solution)
        episode = brief.env
        self._actions, self._results = asyncio.Queue(), asyncio.Queue()
        self._waiting = False
        fx, fy = getattr(episode, "scale", (1.0, 1.0))
        base_url = episode.runtime.host.url(brief.spec.app, "/") if getattr(episode, "runtime", None) else ""

        async def step(action: BaseAction) -> bool:
            await self._actions.put(action)  # type: ignore[union-attr]
            return await self._results.get()  # type: ignore[union-attr]

        player = Player(lambda: episode.page, step, base_url=base_url, timeout_s=self.timeout_s or DEFAULT_TIMEOUT_S, scale=(1 / fx, 1 / fy))

        async def play() -> None:
            try:
                await player.play(list(solution.steps))
            except BaseException as exc:  # an OracleError: the agent raises it from act()
                await self._actions.put(exc)  # type: ignore[union-attr]
                if isinstance(exc, asyncio.CancelledError):
                    raise
            else:
                await self._actions.put(_DONE)  # type: ignore[union-attr]

        self._task = asyncio.ensure_future(play())

    async def act(self, observation: Any) -> BaseAction | None:
        if self._actions is None:
            raise RuntimeError("reset() first")
        if self._waiting:  # the previous action was executed: let the player look at the page again
            self._waiting = False
            await self._results.put(False)  # type: ignore[union-attr]
        item = await self._actions.get()
        if item is _DONE:
            return None
        if isinstance(item, BaseException):
            raise item
        self._waiting = True
        return item

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except BaseException:
                pass
        self._task = None
