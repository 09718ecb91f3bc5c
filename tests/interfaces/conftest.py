"""Interface tests: the tools, the MCP server and the shell CLI over the shipped tasks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if sys.path[:1] != [str(ROOT)]:
    sys.path.insert(0, str(ROOT))
if getattr(sys.modules.get("tasks"), "__file__", "") is None:
    del sys.modules["tasks"]

from apps_web.host import create_host  # noqa: E402
from tasks.registry import TaskRegistry  # noqa: E402


@pytest.fixture(scope="session")
def registry(store) -> TaskRegistry:  # noqa: ANN001 - the session's WorldStore (tests/conftest.py)
    return TaskRegistry(store=store)


@pytest.fixture(scope="session")
def host(store):  # noqa: ANN001
    """An in-process host on the test store (tool calls go through it without a server)."""
    return create_host(store, secret="test-secret")
