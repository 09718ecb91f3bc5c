"""Choosing the episodes of a run: task selectors (globs over ids, tags, difficulty) times seeds."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Iterable


class SelectionError(ValueError):
    """The task selection or the seed list is malformed, or matches nothing."""


@dataclass(frozen=True)
class TaskInfo:
    """What the runner knows of a task before running it (for selection and the summary)."""

    id: str  # qualified: "<app>.<task>"
    app: str
    difficulty: str | None = None
    tags: tuple[str, ...] = ()
    title: str | None = None
    category: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def flat_tags(tags: Any) -> tuple[str, ...]:
    """Tags as flat strings, from a list or a dict of lists (``{"skill": ["edit"]}`` -> ``("edit",)``)."""
    if not tags:
        return ()
    if isinstance(tags, dict):
        out: list[str] = []
        for value in tags.values():
            out.extend(flat_tags(value))
        return tuple(dict.fromkeys(out))
    if isinstance(tags, str):
        return (tags,)
    return tuple(dict.fromkeys(str(t) for t in tags))


def catalog(source: Any) -> list[TaskInfo]:
    """Every task a source offers. Uses ``summaries()`` when the source has it (no instantiation),
    else the metadata of each task's seed-0 episode spec."""
    if hasattr(source, "summaries"):
        out = []
        for s in source.summaries():
            app = s.get("app") or ""
            tid = s.get("id", "")
            qualified = tid if tid.startswith(f"{app}.") else f"{app}.{tid}"
            out.append(TaskInfo(id=qualified, app=app, difficulty=s.get("difficulty"), tags=flat_tags(s.get("tags")), title=s.get("title"),
                                category=s.get("category")))
        return sorted(out, key=lambda t: t.id)
    out = []
    for tid in source.ids():
        spec = source.get(tid, 0)
        meta = spec.metadata or {}
        out.append(TaskInfo(id=spec.id, app=spec.app, difficulty=meta.get("difficulty"), tags=flat_tags(meta.get("tags")), title=meta.get("title"),
                            category=meta.get("category")))
    return sorted(out, key=lambda t: t.id)


def select_tasks(tasks: Iterable[TaskInfo], selectors: str | list[str] | None) -> list[TaskInfo]:
    """Tasks matching the selectors.

    Selectors are separated by commas (or given as a list): an id glob (``crm.*``, ``*close*``),
    ``tag:GLOB``, ``difficulty:GLOB``, ``category:GLOB`` (``category:long-horizon``) or ``app:GLOB``.
    Id globs add tasks (all tasks when there is none); the other selectors then keep only the tasks
    matching each.
    A ``!`` before a selector excludes what it matches.
    """
    tasks = list(tasks)
    if isinstance(selectors, str):
        selectors = [selectors]
    tokens = [t.strip() for s in (selectors or []) for t in s.split(",") if t.strip()]
    include, filters, exclude = [], [], []
    for token in tokens:
        negate = token.startswith("!")
        token = token[1:] if negate else token
        kind, sep, pattern = token.partition(":")
        if sep and kind in ("tag", "difficulty", "category", "app"):
            (exclude if negate else filters).append((kind, pattern))
        elif sep:
            raise SelectionError(f"unknown task selector {token!r}: use an id glob, tag:GLOB, difficulty:GLOB, category:GLOB or app:GLOB")
        else:
            (exclude if negate else include).append(("id", token))

    def hit(task: TaskInfo, kind: str, pattern: str) -> bool:
        values = {"id": (task.id, task.id.partition(".")[2]), "tag": task.tags,
                  "difficulty": (task.difficulty or "",), "category": (task.category or "",), "app": (task.app,)}[kind]  # fmt: skip
        return any(fnmatch.fnmatchcase(str(v).lower(), pattern.lower()) for v in values)

    chosen = [t for t in tasks if not include or any(hit(t, k, p) for k, p in include)]
    chosen = [t for t in chosen if all(hit(t, k, p) for k, p in filters)]
    chosen = [t for t in chosen if not any(hit(t, k, p) for k, p in exclude)]
    if not chosen:
        raise SelectionError(f"no task matches {', '.join(tokens) or 'the selection'} (among {len(tasks)} tasks)")
    return chosen


def parse_seeds(text: str | int | Iterable[int]) -> list[int]:
    """``"0-4"``, ``"1,3,7"``, ``"0-2,10"``, ``5`` (one seed) -> a sorted list of distinct seeds."""
    if isinstance(text, int):
        return [text]
    if not isinstance(text, str):
        return sorted({int(s) for s in text})
    seeds: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            if sep:
                a, b = int(lo), int(hi)
                if b < a:
                    raise SelectionError(f"seed range {part!r} is empty (end before start)")
                seeds.update(range(a, b + 1))
            else:
                seeds.add(int(part))
        except ValueError:
            raise SelectionError(f"seeds must look like 0-4 or 1,3,7; got {text!r}") from None
    if not seeds or min(seeds) < 0:
        raise SelectionError(f"seeds must be non-negative integers, got {text!r}")
    return sorted(seeds)
