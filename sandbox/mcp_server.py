"""`sandbox mcp`: the apps' tools over the Model Context Protocol (official ``mcp`` SDK).

One server process serves many episodes. Each episode is a forked world with its persona, opened on
the first call of a client and kept for that client's later calls: over stdio the one client; over
streamable HTTP each client names its episode with the ``X-Sandbox-Episode`` header (any string it
chooses; without one, one shared episode) and may pick the task and seed of a new episode with
``X-Sandbox-Task`` and ``X-Sandbox-Seed`` (else the server's ``--task``/``--seed``).

With a task, the tools ``submit_answer`` and ``report_infeasible`` end the work the way the GUI's
actions do, and ``--grade`` adds ``task_verdict`` (for people trying tasks; an agent under evaluation
should not see its grade).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, Callable

import mcp_types as types
from mcp.server import Server
from mcp.shared.exceptions import MCPError

from apps_web.tools import Tool

from .spec import EpisodeSpec
from .tool_episode import ToolEpisode

EPISODE_HEADER = "x-sandbox-episode"
TASK_HEADER = "x-sandbox-task"
SEED_HEADER = "x-sandbox-seed"
INVALID_PARAMS = -32602
SERVER_ERROR = -32000

EPISODE_TOOLS = {
    "submit_answer": ("Give your final answer to the task's question (the task ends with it).",
                      {"type": "object", "properties": {"text": {"type": "string", "description": "the answer"}}, "required": ["text"]}),
    "report_infeasible": ("Report that the task cannot be done, and why (what is missing or not allowed).",
                          {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]}),
}
VERDICT_TOOL = ("task_verdict", "Grade the episode now with the task's verifier (passed, score, reason, checks).",
                {"type": "object", "properties": {}})


@dataclass
class EpisodeFactory:
    """Opens the episode of a new client: a task instance, or tools on an existing world."""

    host: Any
    spec_for: Callable[[str | None, int | None], EpisodeSpec | None]  # (task, seed) -> spec; None: no task
    world_id: str | None = None  # attach to this world instead of forking one
    persona: str | None = None
    apps: tuple[str, ...] | None = None

    async def open(self, task: str | None, seed: int | None) -> ToolEpisode:
        if self.world_id is not None:
            world = self.host.state.store.get(self.world_id)
            return ToolEpisode.attach(self.host, world, self.persona, apps=self.apps)
        spec = self.spec_for(task, seed)
        if spec is None:
            raise MCPError(INVALID_PARAMS, "No task given: start the server with --task, or send the X-Sandbox-Task header.")
        return await ToolEpisode.open(self.host, spec, apps=self.apps)


@dataclass
class Episodes:
    """The open episodes of a server, by client key."""

    factory: EpisodeFactory
    grade: bool = False
    _open: dict[str, ToolEpisode] = field(default_factory=dict)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def of(self, key: str, task: str | None, seed: int | None) -> ToolEpisode:
        async with self._lock:
            episode = self._open.get(key)
            if episode is None:
                episode = await self.factory.open(task, seed)
                self._open[key] = episode
            return episode

    async def close(self) -> None:
        for episode in list(self._open.values()):
            await episode.close()
        self._open.clear()


def _mcp_tool(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name, description=tool.description, input_schema=tool.input_schema, output_schema=None,
        annotations=types.ToolAnnotations(read_only_hint=tool.read_only, destructive_hint=tool.method == "DELETE"),
    )


def _request_headers(ctx: Any) -> dict[str, str]:
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    return {k.lower(): v for k, v in headers.items()} if headers is not None else {}


def _text(payload: Any) -> list[types.TextContent]:
    return [types.TextContent(text=payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, default=str))]


def build_server(episodes: Episodes, *, default_task: str | None = None, default_seed: int | None = None, name: str = "cua-sandbox",
                 task_instruction: str | None = None) -> Server:
    """The MCP server: lists the episode's tools and calls them in the caller's episode."""

    async def episode_of(ctx: Any) -> ToolEpisode:
        headers = _request_headers(ctx)
        task = headers.get(TASK_HEADER) or default_task
        seed_text = headers.get(SEED_HEADER)
        try:
            seed = int(seed_text) if seed_text not in (None, "") else default_seed
        except ValueError as exc:
            raise MCPError(INVALID_PARAMS, f"X-Sandbox-Seed must be an integer, got {seed_text!r}.") from exc
        try:
            return await episodes.of(headers.get(EPISODE_HEADER, "default"), task, seed)
        except MCPError:
            raise
        except (KeyError, ValueError, LookupError) as exc:
            raise MCPError(INVALID_PARAMS, f"Could not open the episode: {exc}") from exc

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        episode = await episode_of(ctx)
        tools = [_mcp_tool(t) for t in episode.tools]
        if episode.spec is not None:
            tools += [types.Tool(name=n, description=d, input_schema=s) for n, (d, s) in EPISODE_TOOLS.items()]
            if episodes.grade:
                tools.append(types.Tool(name=VERDICT_TOOL[0], description=VERDICT_TOOL[1], input_schema=VERDICT_TOOL[2]))
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        episode = await episode_of(ctx)
        name, arguments = params.name, dict(params.arguments or {})
        if episode.spec is not None and name in EPISODE_TOOLS:
            key = "text" if name == "submit_answer" else "reason"
            value = arguments.get(key)
            if not isinstance(value, str) or not value.strip():
                return types.CallToolResult(content=_text(f"{name}: give a non-empty {key}."), is_error=True)
            (episode.submit_answer if name == "submit_answer" else episode.report_infeasible)(value)
            return types.CallToolResult(content=_text("Recorded."), structured_content={"recorded": True})
        if episodes.grade and episode.spec is not None and name == VERDICT_TOOL[0]:
            verdict = await episode.verify()
            data = verdict.model_dump(mode="json") if hasattr(verdict, "model_dump") else {"verdict": str(verdict)}
            return types.CallToolResult(content=_text(data), structured_content=data)
        if name not in episode.session.tools:
            result = await episode.call(name, arguments)  # recorded, and gives the near names
            raise MCPError(INVALID_PARAMS, result.error or f"No tool named {name!r}.")
        result = await episode.call(name, arguments)
        structured = result.data if result.ok and isinstance(result.data, dict) else None
        return types.CallToolResult(content=_text(result.text()), structured_content=structured, is_error=not result.ok)

    instructions = "Tools of the CUA Sandbox apps, acting as the episode's persona in its own world."
    if task_instruction:  # the server's task: the client's model reads it as the user's request
        instructions = f"{instructions}\n\nYour task: {task_instruction}"
    return Server(name, instructions=instructions, on_list_tools=list_tools, on_call_tool=call_tool)


__all__ = ["EPISODE_HEADER", "EpisodeFactory", "Episodes", "SEED_HEADER", "TASK_HEADER", "build_server"]
