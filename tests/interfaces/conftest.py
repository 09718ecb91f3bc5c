"""Interface tests: the tools, the MCP server and the shell CLI over the shipped tasks."""

from __future__ import annotations

import pytest

from apps_web.host import create_host


@pytest.fixture(scope="session")
def host(store):  # noqa: ANN001
    """An in-process host on the test store (tool calls go through it without a server)."""
    return create_host(store, secret="test-secret")
