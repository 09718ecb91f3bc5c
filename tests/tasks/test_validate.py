"""The CI sample of `sandbox validate`: every template at seed 0, on the env pool, in real Chromium.

The oracle must pass with score 1; the no-op agent and every near-miss must fail. The full run (three
seeds, twice) is `sandbox validate --seeds 0,1,2 --repeat 2` (tasks/README.md).
"""

from __future__ import annotations

import os

import pytest

from tasks.registry import TaskRegistry
from tasks.validate import validate_async

pytestmark = pytest.mark.browser

WORKERS = int(os.environ.get("SANDBOX_VALIDATE_WORKERS", "3"))


def _explain(report) -> str:  # noqa: ANN001
    lines = []
    for o in report.disagreements:
        what = o.error or f"{'passed' if o.passed else 'failed'} (score {o.score}): {o.reason}"
        lines.append(f"{o.task} seed {o.seed} {o.solution} ({o.kind}): {what}")
    return "\n".join(lines)


async def test_every_template_validates_at_seed_0(registry: TaskRegistry) -> None:
    ids = registry.task_ids()
    report = await validate_async(registry, ids, [0], workers=WORKERS, quick=True)
    confusion = report.confusion()
    assert report.ok, f"{len(report.disagreements)} disagreement(s), confusion {confusion}:\n{_explain(report)}"
    assert confusion["true_pass"] == len(ids)
    assert confusion["true_fail"] == len(report.outcomes) - len(ids)
    # Every category of the issue is covered by the shipped templates.
    categories = {registry.task(t).template.category for t in ids}
    assert {"single-field-edit", "create-with-lookup", "answer-lookup", "list-question", "lead-conversion",
            "board-move", "mass-update", "workflow", "infeasible"} <= categories
