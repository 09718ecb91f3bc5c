"""Task tests: a registry over the shipped task files, bound to the test world store."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# tests/ has no __init__.py, so pytest puts tests/ on sys.path and tests/tasks/ would shadow the real
# package as a namespace package under a plain `pytest` run; put the project root first.
ROOT = Path(__file__).resolve().parents[2]
if sys.path[:1] != [str(ROOT)]:
    sys.path.insert(0, str(ROOT))
if getattr(sys.modules.get("tasks"), "__file__", "") is None:
    del sys.modules["tasks"]

from tasks.registry import TaskRegistry  # noqa: E402


@pytest.fixture(scope="session")
def registry(store) -> TaskRegistry:  # noqa: ANN001 - the session's WorldStore (tests/conftest.py)
    return TaskRegistry(store=store)
