"""A computer-use agent on Anthropic's Messages API with the ``computer`` tool (via httpx, no SDK).

``ANTHROPIC_API_KEY`` holds the key; ``ANTHROPIC_BASE_URL`` may point elsewhere (a proxy, or the
local fake server of the tests). Each model turn's ``tool_use`` blocks are turned into canonical
actions by :func:`sandbox.actions.from_anthropic_tool` and played one per step; their results go back
in one user message with the screenshot after the last one.
"""

from __future__ import annotations

import base64
import os
from collections import deque
from typing import Any

import httpx

from sandbox.actions import ActionError, BaseAction, from_anthropic_tool

from sandbox.models.http import ANTHROPIC_URL, AnthropicError, add_usage, anthropic_data, anthropic_headers

from .base import AgentStep, HttpAgent, TaskBrief, allows_gui, app_tools, obs_get, screenshot_png, screenshot_size

BETAS = {
    "computer_20241022": "computer-use-2024-10-22",
    "computer_20250124": "computer-use-2025-01-24",
    "computer_20251124": "computer-use-2025-11-24",
}
SYSTEM = (
    "You operate a web browser (Chromium) showing a company's business applications, through the "
    "computer tool: coordinates are pixels of the latest screenshot. Work like a careful person: look, "
    "act, check the result. When the task asks for information, finish by calling the answer tool with "
    "it; when the task is done, call answer with a short confirmation; if the task cannot be done, call "
    "report_infeasible with the reason. Do not ask questions: nobody will reply."
)
EXTRA_TOOLS = [
    {
        "name": "answer",
        "description": "Finish the task with a final answer for the user (the requested information, or a short confirmation).",
        "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
    {
        "name": "report_infeasible",
        "description": "Finish the task saying it cannot be done, and why.",
        "input_schema": {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]},
    },
]
MAX_BAD_TURNS = 3  # consecutive model turns without a usable action before the agent gives up


def image_block(png: bytes) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(png).decode()}}


class AnthropicAgent(HttpAgent):
    name = "anthropic"

    def __init__(
        self,
        model: str = "claude-sonnet-4-5",
        tool_version: str = "computer_20250124",
        api_key: str | None = None,
        base_url: str | None = None,
        max_tokens: int = 4096,
        keep_images: int = 3,
        timeout: float = 120.0,
        system: str = SYSTEM,
    ) -> None:
        if tool_version not in BETAS:
            raise ValueError(f"unknown tool_version {tool_version!r}; one of {', '.join(BETAS)}")
        self.model = model
        self.tool_version = tool_version
        self.api_key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not self.api_key:
            raise ValueError("the anthropic agent needs an API key: set ANTHROPIC_API_KEY")
        self.base_url = (base_url or os.environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_URL).rstrip("/")
        self.max_tokens = int(max_tokens)
        self.keep_images = int(keep_images)
        self.timeout = float(timeout)
        self.system = system
        self.client: httpx.AsyncClient | None = None
        self.usage = {"input_tokens": 0, "output_tokens": 0, "requests": 0}
        self._reset_state(None)

    def _reset_state(self, task: TaskBrief | None) -> None:
        self.task = task
        self.messages: list[dict[str, Any]] = []
        self.pending: deque[tuple[str, BaseAction, Any, str | None, bool]] = deque()
        self.results: list[dict[str, Any]] = []
        self.current: tuple[str, bool, bool] | None = None  # (tool_use id, last action of that tool_use, an app tool call)

    # -- the loop ------------------------------------------------------------------------------
    async def act(self, observation: Any) -> AgentStep | None:
        if self.current is not None:
            self._record_result(observation)
        if not self.pending:
            if not await self._next_turn(observation):
                return None
        if not self.pending:
            return None
        tool_id, action, raw, thought, last = self.pending.popleft()
        self.current = (tool_id, last, action.action == "tool_call")
        return AgentStep(action=action, raw=raw, thought=thought)

    def _record_result(self, observation: Any) -> None:
        tool_id, last, app_call = self.current  # type: ignore[misc]
        self.current = None
        error = obs_get(observation, "last_action_error")
        content: list[dict[str, Any]] = []
        if app_call:  # an app's tool: its result (or error) as text, no screenshot
            text = str(error or obs_get(observation, "tool_result") or "done")
            result = {"type": "tool_result", "tool_use_id": tool_id, "content": [{"type": "text", "text": text}]}
            if error:
                result["is_error"] = True
            self.results.append(result)
            return
        if error:
            content.append({"type": "text", "text": str(error)})
        if last:
            png = screenshot_png(observation)
            if png:
                content.append(image_block(png))
            result = {"type": "tool_result", "tool_use_id": tool_id, "content": content or [{"type": "text", "text": "done"}]}
            if error:
                result["is_error"] = True
            self.results.append(result)

    async def _next_turn(self, observation: Any) -> bool:
        """Send the results (or the task) and queue the actions of the model's reply; False: it is done."""
        if not self.messages:
            text = self.task.instruction if self.task else "Complete the task shown on screen."
            content: list[dict[str, Any]] = [{"type": "text", "text": text}]
            png = screenshot_png(observation)
            if png:
                content.append(image_block(png))
            self.messages.append({"role": "user", "content": content})
        elif self.results:
            self.messages.append({"role": "user", "content": self.results})
            self.results = []
        width, height = screenshot_size(observation)
        for _ in range(MAX_BAD_TURNS):
            reply = await self._request(width, height)
            self.messages.append({"role": "assistant", "content": reply.get("content", [])})
            thought = " ".join(b.get("text", "") for b in reply.get("content", []) if b.get("type") == "text").strip() or None
            uses = [b for b in reply.get("content", []) if b.get("type") == "tool_use"]
            if not uses:
                if thought:  # the model ended its turn with text: take it as the final answer
                    self.pending.append(("", _answer(thought), {"text": thought}, None, True))
                    return True
                return False
            errors = []
            for use in uses:
                try:
                    parsed = from_anthropic_tool(use.get("name", ""), use.get("input") or {})
                except ActionError as exc:
                    errors.append({"type": "tool_result", "tool_use_id": use.get("id"), "is_error": True,
                                   "content": [{"type": "text", "text": str(exc)}]})  # fmt: skip
                    continue
                actions = parsed if isinstance(parsed, list) else [parsed]
                for i, action in enumerate(actions):
                    raw = {"tool": use.get("name"), "input": use.get("input")} if i == 0 else None
                    self.pending.append((use.get("id", ""), action, raw, thought if not self.pending else None, i == len(actions) - 1))
            if self.pending:
                self.results.extend(errors)
                return True
            self.messages.append({"role": "user", "content": errors})
        return False

    def _tools(self, width: int, height: int) -> list[dict[str, Any]]:
        computer = {"type": self.tool_version, "name": "computer", "display_width_px": width, "display_height_px": height}
        apps = [{"name": t.name, "description": t.description[:1024], "input_schema": t.input_schema} for t in app_tools(self.task)]
        return [*([computer] if allows_gui(self.task) else []), *EXTRA_TOOLS, *apps]

    def _trimmed_messages(self) -> list[dict[str, Any]]:
        """The conversation with all but the last ``keep_images`` screenshots replaced by a note."""
        seen = 0
        out = []
        for message in reversed(self.messages):
            content = message["content"]
            if isinstance(content, list):
                new = []
                for block in content:
                    block, seen = self._trim_block(block, seen)
                    new.append(block)
                message = {**message, "content": new}
            out.append(message)
        return list(reversed(out))

    def _trim_block(self, block: dict[str, Any], seen: int) -> tuple[dict[str, Any], int]:
        if block.get("type") == "image":
            seen += 1
            return (block if seen <= self.keep_images else {"type": "text", "text": "[older screenshot omitted]"}), seen
        if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            inner = []
            for b in reversed(block["content"]):
                b, seen = self._trim_block(b, seen)
                inner.append(b)
            return {**block, "content": list(reversed(inner))}, seen
        return block, seen

    async def _request(self, width: int, height: int) -> dict[str, Any]:
        assert self.client is not None, "call reset() first"
        body = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": self.system,
            "tools": self._tools(width, height),
            "messages": self._trimmed_messages(),
        }
        headers = anthropic_headers(self.api_key, BETAS[self.tool_version])
        response = await self.client.post(f"{self.base_url}/v1/messages", json=body, headers=headers)
        data = anthropic_data(response)
        add_usage(self.usage, data)
        return data


def _answer(text: str) -> BaseAction:
    from sandbox.actions import build

    return build("answer", text=text)
