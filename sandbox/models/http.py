"""The HTTP details the model-API callers share (the computer-use agents, the model judge and the
model-backed co-workers): headers, error replies turned into one clear exception, token usage."""

from __future__ import annotations

from typing import Any

ANTHROPIC_VERSION = "2023-06-01"
OPENAI_URL = "https://api.openai.com/v1"
ANTHROPIC_URL = "https://api.anthropic.com"


class OpenAIError(RuntimeError):
    """The API answered with an error."""


class AnthropicError(RuntimeError):
    """The API answered with an error (the message includes its type and text)."""


def openai_headers(api_key: str | None) -> dict[str, str]:
    headers = {"content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    return headers


def anthropic_headers(api_key: str | None, beta: str | None = None) -> dict[str, str]:
    headers = {"x-api-key": api_key or "", "anthropic-version": ANTHROPIC_VERSION, "content-type": "application/json"}
    if beta:
        headers["anthropic-beta"] = beta
    return headers


def _json(response: Any) -> Any:
    if not response.content:
        return {}
    try:
        return response.json()
    except ValueError:
        return {}


def openai_data(response: Any) -> dict[str, Any]:
    """The reply's JSON, or :class:`OpenAIError` naming the status, the error's type and message."""
    data = _json(response)
    if not isinstance(data, dict):
        data = {}
    if response.status_code >= 400 or data.get("error"):
        err = data.get("error") or {}
        if not isinstance(err, dict):
            err = {"message": str(err)}
        raise OpenAIError(f"OpenAI API {response.status_code}: {err.get('type') or err.get('code') or 'error'}: {err.get('message', response.text[:300])}")
    return data


def anthropic_data(response: Any) -> dict[str, Any]:
    """The reply's JSON, or :class:`AnthropicError` naming the status, the error's type and message."""
    data = _json(response)
    if not isinstance(data, dict):
        data = {}
    if response.status_code >= 400 or data.get("type") == "error":
        err = data.get("error", {}) if isinstance(data.get("error"), dict) else {}
        raise AnthropicError(f"Anthropic API {response.status_code}: {err.get('type', 'error')}: {err.get('message', response.text[:300])}")
    return data


def add_usage(usage: dict[str, int], data: dict[str, Any]) -> None:
    """Count one request and its tokens (both APIs' names: input/output and prompt/completion)."""
    usage["requests"] = usage.get("requests", 0) + 1
    got = data.get("usage") or {}
    for key, alt in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")):
        usage[key] = usage.get(key, 0) + int(got.get(key) or got.get(alt) or 0)


__all__ = ["ANTHROPIC_URL", "ANTHROPIC_VERSION", "OPENAI_URL", "AnthropicError", "OpenAIError", "add_usage", "anthropic_data",
           "anthropic_headers", "openai_data", "openai_headers"]
