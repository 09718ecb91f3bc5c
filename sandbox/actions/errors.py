"""The one error type of the action layer.

A ValueError, so pydantic validators can raise it and callers that already catch ValueError keep
working. Its message is written for the agent that sent the action: what was wrong, what to send.
"""

from __future__ import annotations


class ActionError(ValueError):
    """An action (or a provider payload) could not be understood; the message says why and how to fix it."""
