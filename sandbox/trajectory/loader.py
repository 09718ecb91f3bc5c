"""Reading trajectories back: an episode folder, and a run folder of many, lazily."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any, Iterator

import orjson

from .format import EPISODE_FILE, PARTIAL_SUFFIX, STEPS_FILE, EpisodeRecord, StepRecord, screenshot_name


class TrajectoryError(ValueError):
    """A folder that is not a readable trajectory; the message says which file and why."""


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Objects of a JSON-lines file; a torn last line (a crash mid-write) is skipped, not an error."""
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return
    with f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield orjson.loads(line)
            except orjson.JSONDecodeError:
                if line.endswith(b"\n"):
                    raise TrajectoryError(f"{path}: line {number} is not valid JSON") from None
                return  # the unterminated last line of an interrupted write


class Episode:
    """One episode folder. ``record`` is read on first use; steps are read only when asked for."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if not (self.path / EPISODE_FILE).is_file():
            raise TrajectoryError(f"{self.path} is not an episode folder: it has no {EPISODE_FILE}")

    def __repr__(self) -> str:
        return f"Episode({str(self.path)!r})"

    @cached_property
    def record(self) -> EpisodeRecord:
        try:
            return EpisodeRecord.model_validate_json((self.path / EPISODE_FILE).read_bytes())
        except ValueError as exc:
            raise TrajectoryError(f"{self.path / EPISODE_FILE}: {exc}") from None

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def finished(self) -> bool:
        return self.record.status == "finished" and not self.path.name.endswith(PARTIAL_SUFFIX)

    @property
    def verdict(self):  # noqa: ANN201 - verifiers.Verdict, imported lazily
        from verifiers import Verdict

        return Verdict.model_validate(self.record.verdict) if self.record.verdict else None

    def iter_steps(self) -> Iterator[StepRecord]:
        for obj in read_jsonl(self.path / STEPS_FILE):
            yield StepRecord.model_validate(obj)

    @cached_property
    def steps(self) -> list[StepRecord]:
        return list(self.iter_steps())

    def actions(self) -> list[dict[str, Any] | None]:
        """The canonical actions executed, in order (None where the agent's action did not parse)."""
        return [s.parsed for s in self.steps]

    def screenshot_path(self, index: int) -> Path | None:
        """The observation after step ``index`` (0 = the first observation), if it was recorded."""
        path = self.path / screenshot_name(index)
        return path if path.is_file() else None

    def screenshot(self, index: int) -> bytes | None:
        path = self.screenshot_path(index)
        return path.read_bytes() if path else None


def load_episode(path: Path | str) -> Episode:
    """Open an episode folder (finished or not)."""
    return Episode(path)
