"""The OpenEnv wire models: the action, the observation, the state and the reset options.

They subclass ``openenv-core``'s ``Action``, ``Observation`` and ``State``, so OpenEnv's server and
clients (and trainers built on them) read and write them unchanged.

- :class:`SandboxAction` is one canonical action (``sandbox.actions``: ``left_click``, ``type``,
  ``goto``, ``tool_call``, ``answer``...) as its JSON fields. The wire accepts any object so that a
  bad action reaches the episode and comes back as ``last_action_error`` with the env's own message
  (what was wrong, the action's signature, an example) instead of ending the session; the published
  JSON schema (``/schema``) is the canonical union.
- :class:`SandboxObservation` carries the screenshot as base64 PNG or JPEG (chosen at reset), the url,
  title, instruction and last action's error; on request the accessibility tree, the set-of-marks
  elements and the last tool call's result; ``reward`` and ``done``; and at the end the ``verdict``
  (passed, score, reason, checks), also in ``metadata``.
"""

from __future__ import annotations

import base64
import copy
from typing import Any, Literal

from openenv.core.env_server.types import Action, Observation, State
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from verifiers import Verdict

from ..actions import BaseAction, action_json_schema, parse_action
from ..episode import REWARD_MODES

ScreenshotFormat = Literal["png", "jpeg", "none"]


def _action_schema() -> dict[str, Any]:
    """The canonical action union's schema, each variant also accepting OpenEnv's ``metadata``."""
    union = copy.deepcopy(action_json_schema())
    for variant in union.get("$defs", {}).values():
        if "action" in variant.get("properties", {}):
            variant["properties"]["metadata"] = {"type": "object", "description": "free-form data carried with the action"}
    union["title"] = "SandboxAction"
    union["description"] = "One canonical action of CUA Sandbox, discriminated on `action` (see describe_action_space())."
    return union


class SandboxAction(Action):
    """One canonical action: ``SandboxAction(action="left_click", x=640, y=360)``, or
    ``SandboxAction.of(LeftClick(x=640, y=360))``; :meth:`canonical` validates it."""

    model_config = ConfigDict(extra="allow")

    action: Any = Field(default=None, description="what to do: left_click, type, key, goto, tool_call, answer...")

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The canonical union (what the wire's loose model stands for), as OpenEnv's ``/schema`` shows it."""
        return _action_schema()

    @classmethod
    def of(cls, action: BaseAction | dict[str, Any]) -> SandboxAction:
        """The wire form of a canonical action (or of its dict)."""
        data = action.to_dict() if isinstance(action, BaseAction) else dict(action)
        return cls(**data)

    def payload(self) -> dict[str, Any]:
        """The canonical action's fields (``action`` and its arguments), without OpenEnv's metadata."""
        data = self.model_dump(exclude={"metadata"})
        if "action" not in self.model_fields_set:  # let the episode say that it is missing
            data.pop("action", None)
        return data

    def canonical(self) -> BaseAction:
        """The validated canonical action; ``ActionError`` says what to fix."""
        return parse_action(self.payload())


class ResetOptions(BaseModel):
    """What ``reset`` accepts besides OpenEnv's ``seed`` and ``episode_id``.

    Give ``task_id`` (any registered task id, ``<app>.<task>``: see ``sandbox tasks``) or ``app`` (a free-form
    episode in one app, no verifier: ``start_url``, ``instruction`` and ``persona`` then apply).
    """

    model_config = ConfigDict(extra="forbid")

    task_id: str | None = Field(default=None, description="a registered task id, <app>.<task> (see `sandbox tasks`)")
    app: str | None = Field(default=None, description="a free-form episode in this app (no verifier)")
    start_url: str | None = Field(default=None, description="free-form: the start page (a path on the app)")
    instruction: str | None = Field(default=None, description="free-form: the instruction")
    persona: str | None = Field(default=None, description="free-form: the username to sign in as")
    screenshot: ScreenshotFormat = Field(default="png", description="the screenshot's encoding in observations")
    jpeg_quality: int = Field(default=80, ge=1, le=100, description="quality of JPEG screenshots")
    screen_size: tuple[int, int] | None = Field(default=None, description="(width, height) of the screenshots, if not the viewport's")
    axtree: bool = Field(default=False, description="add the accessibility tree (text) to observations")
    marks: bool = Field(default=False, description="add the set-of-marks elements (id, role, name, bbox) to observations")
    tools: bool = Field(default=False, description="add the last tool call's result to observations, and the tools to the first one")
    reward: str = Field(default="passed", description=f"reward mode: {', '.join(REWARD_MODES)}")

    @field_validator("reward")
    @classmethod
    def _reward(cls, v: str) -> str:
        if v not in REWARD_MODES:
            raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}")
        return v

    @model_validator(mode="after")
    def _one_kind(self) -> ResetOptions:
        if (self.task_id is None) == (self.app is None):
            raise ValueError("give task_id (a registered task id, <app>.<task>) or app (a free-form episode), not both")
        if self.task_id is not None and any(v is not None for v in (self.start_url, self.instruction, self.persona)):
            raise ValueError("start_url, instruction and persona are for free-form episodes (app=...); a task sets its own")
        return self


class SandboxObservation(Observation):
    """What the agent sees after reset and each step (``reward``, ``done``, ``metadata`` from OpenEnv)."""

    screenshot: str | None = Field(default=None, description="the screen, base64-encoded in screenshot_format")
    screenshot_format: Literal["png", "jpeg"] | None = None
    url: str = Field(default="", description="the page's URL (no port: stable across processes)")
    title: str = ""
    instruction: str = ""
    last_action_error: str = Field(default="", description="why the last action failed or was refused; empty if it worked")
    axtree: str | None = Field(default=None, description="the accessibility tree as text (reset option axtree)")
    elements: list[dict[str, Any]] | None = Field(default=None, description="set-of-marks elements (reset option marks)")
    tool_result: str | None = Field(default=None, description="the last tool call's result (reset option tools)")
    tools: list[dict[str, Any]] | None = Field(default=None, description="the tools a tool_call may name (first observation, reset option tools)")
    task_id: str = ""
    interfaces: list[str] = Field(default_factory=list, description="how the task may be worked: gui, tools or both")
    step: int = 0
    verdict: Verdict | None = Field(default=None, description="the task's verdict when the episode ends (passed, score, reason, checks)")

    def screenshot_bytes(self) -> bytes | None:
        """The screenshot's PNG or JPEG bytes."""
        return base64.b64decode(self.screenshot) if self.screenshot else None

    def image(self) -> Any:
        """The screenshot as a PIL image (None without one)."""
        import io

        from PIL import Image

        data = self.screenshot_bytes()
        return Image.open(io.BytesIO(data)) if data else None


class SandboxState(State):
    """The session's episode: OpenEnv's ``episode_id`` and ``step_count``, and what it runs."""

    task_id: str | None = None
    app: str | None = None
    seed: int | None = None
    interfaces: list[str] = Field(default_factory=list)
    max_steps: int | None = None
    done: bool = False
    url: str = ""


__all__ = ["ResetOptions", "SandboxAction", "SandboxObservation", "SandboxState", "ScreenshotFormat"]
