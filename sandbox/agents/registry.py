"""Choosing an agent by name: built-ins, or ``package.module:Class`` for your own."""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

import yaml

BUILTINS: dict[str, str] = {
    "oracle": "sandbox.agents.oracle:OracleAgent",
    "noop": "sandbox.agents.builtin:NoopAgent",
    "random": "sandbox.agents.builtin:RandomAgent",
    "anthropic": "sandbox.agents.anthropic:AnthropicAgent",
    "openai": "sandbox.agents.openai:OpenAIAgent",
}


class AgentLoadError(ValueError):
    """The agent spec names nothing loadable; the message says what was tried."""


def parse_options(pairs: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """``["model=claude-x", "keep_images=2"]`` -> ``{"model": "claude-x", "keep_images": 2}`` (YAML scalars)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise AgentLoadError(f"agent option {pair!r} must look like key=value")
        out[key.strip().replace("-", "_")] = yaml.safe_load(value) if value.strip() else ""
    return out


def resolve(spec: str) -> Callable[..., Any]:
    target = BUILTINS.get(spec, spec)
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise AgentLoadError(f"unknown agent {spec!r}: use one of {', '.join(BUILTINS)} or package.module:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentLoadError(f"agent {spec!r}: cannot import {module_name!r}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AgentLoadError(f"agent {spec!r}: {module_name!r} has no {attr!r}") from None
    if not callable(obj):
        raise AgentLoadError(f"agent {spec!r}: {attr!r} is not a class or a factory function")
    return obj


def load_agent(spec: str, options: dict[str, Any] | None = None) -> Any:
    """An agent instance from a spec: ``oracle``, ``noop``, ``random``, ``anthropic``, ``openai`` or
    ``module:Class`` / ``module:factory``; ``options`` are keyword arguments of its constructor."""
    factory = resolve(spec)
    options = dict(options or {})
    try:
        inspect.signature(factory).bind(**options)
    except TypeError as exc:
        raise AgentLoadError(f"agent {spec!r} does not take these options ({exc})") from None
    except ValueError:  # no signature (a builtin): just try
        pass
    agent = factory(**options)
    if not callable(getattr(agent, "act", None)):
        raise AgentLoadError(f"agent {spec!r} has no act(observation) method")
    if not getattr(agent, "name", None):
        try:
            agent.name = spec.rpartition(":")[2]
        except AttributeError:  # slots or a read-only property: agent_name() falls back to the class name
            pass
    return agent
