"""A typed OpenEnv client for the server: OpenEnv's ``EnvClient`` with CUA Sandbox's models.

::

    from sandbox.env_server.client import SandboxEnvClient

    async with SandboxEnvClient(base_url="http://localhost:8000") as env:
        result = await env.reset(task_id="<app>.<task>", seed=0)  # any id of `sandbox tasks`
        result = await env.step({"action": "left_click", "x": 640, "y": 360})
        print(result.observation.url, result.reward, result.done)

OpenEnv's ``GenericEnvClient`` works too (plain dicts).
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from ..actions import BaseAction
from .models import SandboxAction, SandboxObservation, SandboxState


class SandboxEnvClient(EnvClient[SandboxAction, SandboxObservation, SandboxState]):
    """Steps take a :class:`SandboxAction`, a canonical action or its dict."""

    def _step_payload(self, action: SandboxAction | BaseAction | dict[str, Any]) -> dict[str, Any]:
        if isinstance(action, SandboxAction):
            return {**action.payload(), **({"metadata": action.metadata} if action.metadata else {})}
        if isinstance(action, BaseAction):
            return action.to_dict()
        return dict(action)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[SandboxObservation]:
        obs = SandboxObservation(**payload.get("observation", {}), reward=payload.get("reward"), done=payload.get("done", False))
        return StepResult(observation=obs, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> SandboxState:
        return SandboxState(**payload)


__all__ = ["SandboxEnvClient"]
