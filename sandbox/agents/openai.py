"""A computer-use agent on OpenAI's Responses API with the computer tool (via httpx, no SDK).

``OPENAI_API_KEY`` holds the key; ``OPENAI_BASE_URL`` may point elsewhere (default
``https://api.openai.com/v1``). A ``computer_call`` (one ``action`` or a batch in ``actions``) becomes
canonical actions through :func:`sandbox.actions.from_openai`; after the last one the screenshot goes
back as its ``computer_call_output``, chained with ``previous_response_id``. ``answer`` and
``report_infeasible`` are offered as function tools.
"""

from __future__ import annotations

import base64
import os
from collections import deque
from typing import Any

import httpx

from sandbox.actions import ActionError, BaseAction, build, from_openai

from sandbox.models.http import OPENAI_URL, OpenAIError, add_usage, openai_data, openai_headers

from .base import AgentStep, HttpAgent, TaskBrief, allows_gui, app_tools, obs_get, screenshot_png, screenshot_size

INSTRUCTIONS = (
    "You operate a web browser showing a company's business applications. Work like a careful person. "
    "When the task asks for information, finish by calling the answer function with it; when the task "
    "is done, call answer with a short confirmation; if it cannot be done, call report_infeasible with "
    "the reason. Do not ask questions: nobody will reply."
)
FUNCTIONS = [
    {
        "type": "function",
        "name": "answer",
        "description": "Finish the task with a final answer for the user.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": False},
        "strict": True,
    },
    {
        "type": "function",
        "name": "report_infeasible",
        "description": "Finish the task saying it cannot be done, and why.",
        "parameters": {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"], "additionalProperties": False},
        "strict": True,
    },
]
MAX_BAD_TURNS = 3


class OpenAIAgent(HttpAgent):
    name = "openai"

    def __init__(
        self,
        model: str = "computer-use-preview",
        tool_type: str = "computer_use_preview",
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 120.0,
        instructions: str = INSTRUCTIONS,
        reasoning_summary: str | None = "concise",
    ) -> None:
        self.model = model
        self.tool_type = tool_type
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY")
        if not self.api_key:
            raise ValueError("the openai agent needs an API key: set OPENAI_API_KEY")
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/")
        self.timeout = float(timeout)
        self.instructions = instructions
        self.reasoning_summary = reasoning_summary
        self.client: httpx.AsyncClient | None = None
        self.usage = {"input_tokens": 0, "output_tokens": 0, "requests": 0}
        self._reset_state(None)

    def _reset_state(self, task: TaskBrief | None) -> None:
        self.task = task
        self.previous_id: str | None = None
        self.pending: deque[tuple[dict[str, Any] | None, BaseAction, Any, str | None]] = deque()
        self.outputs: list[dict[str, Any]] = []
        self.current: dict[str, Any] | None = None  # the computer_call whose last action just ran

    async def act(self, observation: Any) -> AgentStep | None:
        if self.current is not None:
            self._record_output(self.current, observation)
            self.current = None
        if not self.pending and not await self._next_turn(observation):
            return None
        if not self.pending:
            return None
        call, action, raw, thought = self.pending.popleft()
        self.current = call
        return AgentStep(action=action, raw=raw, thought=thought)

    def _record_output(self, call: dict[str, Any], observation: Any) -> None:
        if call.get("type") == "function_call":  # an app's tool: its result (or error) as text
            error = obs_get(observation, "last_action_error")
            text = str(f"error: {error}" if error else obs_get(observation, "tool_result") or "done")
            self.outputs.append({"type": "function_call_output", "call_id": call.get("call_id"), "output": text})
            return
        png = screenshot_png(observation) or b""
        out: dict[str, Any] = {
            "type": "computer_call_output",
            "call_id": call.get("call_id"),
            "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64," + base64.b64encode(png).decode()},
        }
        if call.get("pending_safety_checks"):
            # The sandbox is isolated and disposable: acknowledge the checks so the episode can go on.
            out["acknowledged_safety_checks"] = call["pending_safety_checks"]
        if obs_get(observation, "url"):
            out["current_url"] = obs_get(observation, "url")
        self.outputs.append(out)

    async def _next_turn(self, observation: Any) -> bool:
        width, height = screenshot_size(observation)
        if self.previous_id is None:
            png = screenshot_png(observation)
            content: list[dict[str, Any]] = [{"type": "input_text", "text": self.task.instruction if self.task else "Complete the task."}]
            if png:
                content.append({"type": "input_image", "image_url": "data:image/png;base64," + base64.b64encode(png).decode()})
            inputs: list[dict[str, Any]] = [{"role": "user", "content": content}]
        else:
            inputs, self.outputs = self.outputs, []
        for _ in range(MAX_BAD_TURNS):
            reply = await self._request(inputs, width, height)
            self.previous_id = reply.get("id")
            inputs = []
            thought = _summary(reply)
            text = _output_text(reply)
            calls = [item for item in reply.get("output", []) if item.get("type") in ("computer_call", "function_call")]
            if not calls:
                if text:
                    self.pending.append((None, build("answer", text=text), {"output_text": text}, thought))
                    return True
                return False
            for item in calls:
                try:
                    actions = from_openai(item)
                except ActionError as exc:
                    if item.get("type") == "function_call":
                        inputs.append({"type": "function_call_output", "call_id": item.get("call_id"), "output": f"error: {exc}"})
                    else:
                        inputs.append({"type": "computer_call_output", "call_id": item.get("call_id"),
                                       "output": {"type": "computer_screenshot", "image_url": _data_url(screenshot_png(observation))}})  # fmt: skip
                    continue
                raw = {k: v for k, v in item.items() if k in ("type", "name", "arguments", "action", "actions", "call_id")}
                for i, action in enumerate(actions):
                    last = i == len(actions) - 1
                    answers = item.get("type") == "computer_call" or action.action == "tool_call"  # its output goes back
                    self.pending.append((item if last and answers else None, action,
                                         raw if i == 0 else None, thought if not self.pending else None))  # fmt: skip
            if self.pending:
                self.outputs.extend(inputs)
                return True
        return False

    def _tools(self, width: int, height: int) -> list[dict[str, Any]]:
        computer = {"type": self.tool_type, "display_width": width, "display_height": height, "environment": "browser"}
        apps = [{"type": "function", "name": t.name, "description": t.description[:1024], "parameters": t.input_schema} for t in app_tools(self.task)]
        return [*([computer] if allows_gui(self.task) else []), *FUNCTIONS, *apps]

    async def _request(self, inputs: list[dict[str, Any]], width: int, height: int) -> dict[str, Any]:
        assert self.client is not None, "call reset() first"
        body: dict[str, Any] = {
            "model": self.model,
            "tools": self._tools(width, height),
            "input": inputs,
            "instructions": self.instructions,
            "truncation": "auto",
        }
        if self.previous_id:
            body["previous_response_id"] = self.previous_id
        if self.reasoning_summary:
            body["reasoning"] = {"summary": self.reasoning_summary}
        response = await self.client.post(f"{self.base_url}/responses", json=body, headers=openai_headers(self.api_key))
        data = openai_data(response)
        add_usage(self.usage, data)
        return data


def _data_url(png: bytes | None) -> str:
    return "data:image/png;base64," + base64.b64encode(png or b"").decode()


def _summary(reply: dict[str, Any]) -> str | None:
    parts = [s.get("text", "") for item in reply.get("output", []) if item.get("type") == "reasoning" for s in item.get("summary") or []]
    return " ".join(p for p in parts if p).strip() or None


def _output_text(reply: dict[str, Any]) -> str:
    parts = [c.get("text", "") for item in reply.get("output", []) if item.get("type") == "message"
             for c in item.get("content") or [] if c.get("type") == "output_text"]  # fmt: skip
    return "\n".join(p for p in parts if p).strip()


__all__ = ["OpenAIAgent", "OpenAIError"]
