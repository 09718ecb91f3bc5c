"""Agents: the protocol (``act(observation) -> action``, sync or async) and the built-ins.

``load_agent("oracle" | "noop" | "random" | "anthropic" | "openai" | "pkg.module:Class", options)``.
"""

from .base import Agent, AgentStep, TaskBrief, agent_name, obs_get, screenshot_png, screenshot_size
from .builtin import NoopAgent, RandomAgent
from .registry import BUILTINS, AgentLoadError, load_agent, parse_options

__all__ = [
    "BUILTINS", "Agent", "AgentLoadError", "AgentStep", "NoopAgent", "RandomAgent", "TaskBrief",
    "agent_name", "load_agent", "obs_get", "parse_options", "screenshot_png", "screenshot_size",
]  # fmt: skip
