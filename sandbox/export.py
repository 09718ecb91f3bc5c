"""Export a run to a Hugging Face ``datasets`` table (optional extra: ``pip install 'cua-sandbox[datasets]'``).

One row per step (``level="step"``: the episode's task, seed, instruction and verdict beside the
step's action, url, error and screenshot) or per episode (``level="episode"``: the actions as a
list). Rows are produced lazily from the trajectory folders, so a big run streams through
``Dataset.from_generator`` without being held in memory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Literal

import orjson

from sandbox.trajectory import load_run

Level = Literal["step", "episode"]


def _json(value: Any) -> str:
    return orjson.dumps(value).decode() if value is not None else ""


def rows(run_dir: Path | str, level: Level = "step", *, images: bool = True) -> Iterator[dict[str, Any]]:
    """The run's rows as plain dicts (no ``datasets`` needed). Screenshots are PNG bytes, or None."""
    run = load_run(run_dir)
    for line in run.results():
        ep = run.episode(line["id"])
        rec = ep.record
        verdict = rec.verdict or {}
        base = {
            "episode": rec.id, "task": rec.task, "seed": rec.seed, "app": rec.app or "", "difficulty": rec.difficulty or "",
            "tags": list(rec.tags), "instruction": rec.instruction, "agent": rec.agent.name, "source": rec.source,
            "passed": bool(verdict.get("passed")), "score": float(verdict.get("score") or 0.0), "reason": verdict.get("reason") or "",
            "verdict": _json(verdict), "answer": rec.answer or "",
        }  # fmt: skip
        if level == "episode":
            steps = ep.steps
            yield {**base, "steps": len(steps), "actions": [_json(s.parsed) for s in steps], "urls": [s.url or "" for s in steps],
                   "final_screenshot": ep.screenshot(steps[-1].step) if images and steps else None}  # fmt: skip
            continue
        previous = 0
        for s in ep.iter_steps():
            yield {
                **base, "step": s.step, "action": _json(s.parsed), "action_given": _json(s.action), "thought": s.thought or "",
                "url": s.url or "", "error": s.error or "", "changes": _json(s.changes),
                "screenshot_before": ep.screenshot(previous) if images else None,
                "screenshot_after": ep.screenshot(s.step) if images and s.screenshot else None,
            }  # fmt: skip
            if s.screenshot:
                previous = s.step


def to_dataset(run_dir: Path | str, level: Level = "step", *, images: bool = True) -> Any:
    """A ``datasets.Dataset`` of the run (screenshots as ``datasets.Image`` columns)."""
    try:
        import datasets
    except ImportError:  # pragma: no cover - depends on the extra
        raise ImportError("exporting needs the datasets extra: pip install 'cua-sandbox[datasets]'") from None
    ds = datasets.Dataset.from_generator(rows, gen_kwargs={"run_dir": str(run_dir), "level": level, "images": images})
    if images:
        for col in ("screenshot_before", "screenshot_after") if level == "step" else ("final_screenshot",):
            ds = ds.cast_column(col, datasets.Image())
    return ds
