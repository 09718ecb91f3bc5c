"""The shipped tasks by name only (file names), and a task source that loads them on first use.

``import sandbox`` registers ``sandbox/<app>.<task>`` with gymnasium from these names without
reading a single task file; the registry loads (and checks) the files when an env is made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

TASKS_DIR = Path(__file__).resolve().parent


def shipped_ids(root: Path = TASKS_DIR) -> list[str]:
    """``<app>.<task>`` for every task file of ``root/<app>/`` (files starting with '_' are not tasks)."""
    ids = []
    for app_dir in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        ids += [f"{app_dir.name}.{p.stem}" for p in sorted(app_dir.glob("*.yaml")) if not p.name.startswith("_")]
    return ids


class LazySource:
    """A TaskSource over the default registry, loaded when first asked for an episode."""

    def get(self, task_id: str, seed: int) -> Any:
        from .registry import default_registry

        return default_registry().get(task_id, seed)

    def ids(self) -> Iterable[str]:
        return shipped_ids()

    def summaries(self) -> list[dict[str, Any]]:
        from .registry import default_registry

        return default_registry().summaries()

    def __repr__(self) -> str:
        return "LazySource(tasks)"


SOURCE = LazySource()
