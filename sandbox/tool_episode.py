"""An episode worked through tools alone: a forked world, the persona, tool calls, the verdict.

The MCP server and the shell CLI give each session one of these. There is no browser: every change
goes through the apps' APIs as the persona, and the task's verifier grades the world's change set
exactly as it grades a GUI episode (the trajectory holds the tool calls).
"""

from __future__ import annotations

import asyncio
import time
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

from apps_web.tools import ToolResult, ToolSession
from apps_web.world import World, WorldStore
from apps_web.world import changelog as _changelog

from .spec import EpisodeSpec, fork_world


@dataclass
class ToolEpisode:
    """One world and one persona, driven by tool calls. Open with :meth:`open`; end with :meth:`close`."""

    host: Any
    store: WorldStore
    world: World
    username: str | None
    session: ToolSession
    spec: EpisodeSpec | None = None
    keep_world: bool = False
    answer: str | None = None
    infeasible_reason: str | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    _start_seq: int = 0
    _closed: bool = False
    extensions: dict[str, Any] = field(default_factory=dict)  # checkpointed parts: the co-workers

    @classmethod
    async def open(cls, host: Any, spec: EpisodeSpec, *, apps: list[str] | tuple[str, ...] | None = None) -> ToolEpisode:
        """Fork a world for ``spec`` (its setup applied) and sign its persona in to the tools."""
        store: WorldStore = host.state.store
        world, username = await asyncio.to_thread(fork_world, store, spec, host.state.specs)
        episode = cls._bind(host, store, world, username, spec=spec, apps=apps)
        from .coworkers.extension import CoworkerExtension

        ext = CoworkerExtension.for_spec(spec, world)
        if ext is not None:
            episode.extensions[ext.name] = ext
        return episode

    @classmethod
    def attach(cls, host: Any, world: World, username: str | None, *, apps: list[str] | tuple[str, ...] | None = None) -> ToolEpisode:
        """Tools on an existing world (kept when the episode closes), as ``username``."""
        return cls._bind(host, host.state.store, world, username, keep_world=True, apps=apps)

    @classmethod
    def _bind(cls, host: Any, store: WorldStore, world: World, username: str | None, *, spec: EpisodeSpec | None = None,
              keep_world: bool = False, apps: list[str] | tuple[str, ...] | None = None) -> ToolEpisode:
        session = ToolSession.for_host(host, world.id, username, apps)
        with closing(world.connect()) as conn:
            start = _changelog.last_seq(conn)
        return cls(host=host, store=store, world=world, username=username, session=session, spec=spec,
                   keep_world=keep_world, _start_seq=start)

    @property
    def tools(self) -> list[Any]:
        return list(self.session.tools.values())

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Call one tool; the call and its result join the trajectory (errors too: nothing is lost)."""
        if self._closed:
            return ToolResult(tool=name, ok=False, status=0, error="This episode has ended; start a new one.")
        t0 = time.perf_counter()
        result = await self.session.call(name, arguments or {})
        line = {
            "step": len(self.steps) + 1,
            "action": {"action": "tool_call", "name": name, "arguments": arguments or {}},
            "tool_result": result.as_dict(),
            "error": None if result.ok else result.error,
            "elapsed_ms": round((time.perf_counter() - t0) * 1000, 2),
        }
        await self._coworkers(line, "tool_call")
        self.steps.append(line)
        return result

    async def wait(self) -> list[dict[str, Any]]:
        """Let world time pass to the next scheduled event (a co-worker's reply): what was delivered."""
        line: dict[str, Any] = {"step": len(self.steps) + 1, "action": {"action": "wait"}}
        delivered = await self._coworkers(line, "wait")
        self.steps.append(line)
        return delivered

    async def _coworkers(self, line: dict[str, Any], action: str) -> list[dict[str, Any]]:
        ext = self.extensions.get("coworkers")
        if ext is None or self._closed:
            return []
        if ext.in_thread:  # a model's HTTP call must not stall the host's other sessions
            delivered = await asyncio.to_thread(ext.after_step, persona=self.username, action_name=action)
        else:
            delivered = ext.after_step(persona=self.username, action_name=action)
        if delivered:
            line["coworkers"] = delivered
        return delivered

    def submit_answer(self, text: str) -> None:
        self.answer = str(text)
        self.steps.append({"step": len(self.steps) + 1, "action": {"action": "answer", "text": self.answer}})

    def report_infeasible(self, reason: str) -> None:
        self.infeasible_reason = str(reason)
        self.steps.append({"step": len(self.steps) + 1, "action": {"action": "report_infeasible", "reason": self.infeasible_reason}})

    def changes(self) -> Any:
        with closing(self.world.connect()) as conn:
            diff, _ = _changelog.changes_since(conn, self._start_seq)
        return diff

    async def verify(self) -> Any:
        """The task's verdict on the world as it is now (None without a task)."""
        if self.spec is None or self.spec.verify is None:
            return None
        from apps_web import registry
        from verifiers import Verdict, VerifyContext

        try:
            ctx = VerifyContext(
                end_db=self.world.path, diff=self.changes(), instruction=self.spec.instruction, answer=self.answer,
                infeasible=self.infeasible_reason is not None, infeasible_reason=self.infeasible_reason,
                steps=list(self.steps), params=dict(self.spec.params), ignore=registry.volatile_columns(),
                persona=self.username, final_user=self.username, start_seq=self._start_seq,
            )
            return await asyncio.to_thread(self.spec.verify, ctx)
        except Exception as exc:
            return Verdict(passed=False, score=0.0, reason=f"the verifier failed: {type(exc).__name__}: {exc}")

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for ext in self.extensions.values():
            ext.close()
        await self.session.aclose()
        if not self.keep_world:
            await asyncio.to_thread(self.store.drop, self.world)


__all__ = ["ToolEpisode"]
