"""Baseline agents: ``noop`` (does nothing) and ``random`` (random clicks, keys, scrolls; seeded)."""

from __future__ import annotations

import random
import string
from typing import Any

from sandbox.actions import BaseAction, build

from .base import TaskBrief, screenshot_size


class NoopAgent:
    """Stops at once: the episode is graded on the untouched world (a floor every task must fail)."""

    name = "noop"

    def act(self, observation: Any) -> None:
        return None


class RandomAgent:
    """Random clicks, typing, keys and scrolls inside the viewport: a floor baseline.

    Seeded per episode from ``seed`` and the task's own seed, so a run is reproducible.
    It never navigates away by URL and never answers; the runner's step limit ends its episodes.
    """

    name = "random"
    KEYS = ("Return", "Tab", "Escape", "BackSpace", "Down", "Up", "space", "ctrl+a")

    def __init__(self, seed: int = 0, max_steps: int | None = None) -> None:
        self.seed = int(seed)
        self.max_steps = int(max_steps) if max_steps else None
        self.rng = random.Random(self.seed)
        self.steps = 0

    def reset(self, task: TaskBrief) -> None:
        self.rng = random.Random(f"{self.seed}:{task.task}:{task.seed}")
        self.steps = 0

    def act(self, observation: Any) -> BaseAction | None:
        self.steps += 1
        if self.max_steps and self.steps > self.max_steps:
            return None
        width, height = screenshot_size(observation)
        rng = self.rng
        x, y = rng.randrange(width), rng.randrange(height)
        kind = rng.choices(("click", "type", "key", "scroll", "double_click"), weights=(6, 2, 2, 1, 1))[0]
        if kind == "click":
            return build("left_click", x=x, y=y)
        if kind == "double_click":
            return build("double_click", x=x, y=y)
        if kind == "type":
            return build("type", text="".join(rng.choices(string.ascii_letters + " ", k=rng.randint(3, 10))))
        if kind == "key":
            return build("key", key=rng.choice(self.KEYS))
        return build("scroll", x=x, y=y, direction=rng.choice(("up", "down")), amount=rng.randint(1, 5))
