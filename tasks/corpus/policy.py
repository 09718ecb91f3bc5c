"""What "proven" means for an instance of the corpus: which of its solutions are played."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_FULL_SEEDS = 3


@dataclass(frozen=True)
class Policy:
    """Which solutions prove an instance. ``full_seeds``: how many of a template's kept seeds (the
    lowest) play every near-miss and generic adversary; the others play the oracles, the no-op
    agent and the solutions that need no browser."""

    full_seeds: int = DEFAULT_FULL_SEEDS

    def wants(self, job: Any, browserless: bool, full: bool) -> bool:
        return full or job.should_pass or job.kind == "noop" or browserless

    def describe(self) -> str:
        full = (f"At each template's first {self.full_seeds} kept seed(s): every near-miss and every generic adversary "
                "is played in the browser too." if self.full_seeds else
                "No seed plays the near-misses and adversaries that need the browser (--full-seeds 0): they probe the "
                "template's verifier, the same at every seed, and `sandbox validate` plays them.")
        return (
            "At every seed: the oracle (and the tool oracle of a task that allows tools) passes with score 1, "
            "the no-op agent scores 0, and every near-miss and generic adversary that needs no browser "
            "(world changes and/or a final answer, graded on a forked world) fails as the score ladder requires. " + full
        )
