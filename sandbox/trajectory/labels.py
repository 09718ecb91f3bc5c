"""Human labels of a run's episodes: ``<run>/labels.jsonl``, beside the run, never inside an episode.

One JSON line per label::

    {"episode": "<app>.<task>__s3", "grader": "ana", "time": "2026-11-30T19:02:11.120+00:00",
     "passed": true, "score": 0.9, "comment": "right record, slow", "rank": 1, "ranking": "..."}

``episode`` is the episode's id in the run (its folder name). ``passed`` and ``score`` are the grader's
verdict (null when not given), ``rank`` the episode's place (1 = best) when the grader ranked the
episodes of its task, ``ranking`` the id shared by the episodes ranked together. Every line is the
grader's whole judgement of the episode at that time: the latest line per (episode, grader) wins.

Lines are appended with one ``write`` under a file lock and flushed to disk; a torn tail left by a
process that died mid-write is cut off before the next append, and skipped by readers.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from typing import Any, Iterable

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .loader import TrajectoryError, read_jsonl
from .writer import utc_now

LABELS_FILE = "labels.jsonl"


class Label(BaseModel):
    model_config = ConfigDict(extra="allow")

    episode: str = Field(min_length=1)
    grader: str = Field(min_length=1, max_length=80)
    time: str = Field(default_factory=utc_now)
    passed: bool | None = None
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    comment: str | None = Field(default=None, max_length=20_000)
    rank: int | None = Field(default=None, ge=1)
    ranking: str | None = None  # id shared by the labels of one ranking of a task's episodes

    @field_validator("grader")
    @classmethod
    def _grader(cls, v: str) -> str:
        v = v.strip()
        if not v or any(ch in v for ch in "\n\r\t"):
            raise ValueError("the grader's name must be a non-empty single line")
        return v

    @field_validator("episode")
    @classmethod
    def _episode(cls, v: str) -> str:
        if "/" in v or v.startswith("."):
            raise ValueError(f"bad episode id {v!r}: use the episode's folder name in the run")
        return v

    def line(self) -> dict[str, Any]:
        """The JSON line: verdict fields always (null when not given), rank and ranking when given."""
        data = self.model_dump(mode="json")
        for key in ("rank", "ranking"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @property
    def judged(self) -> bool:
        """The grader said passed or failed (a label may carry only a rank or a comment)."""
        return self.passed is not None


class LabelStore:
    """The labels of one run folder: append, and the latest label per (episode, grader)."""

    def __init__(self, run_path: Path | str) -> None:
        self.path = Path(run_path) / LABELS_FILE
        self._lock = threading.Lock()
        self._adding = threading.Lock()  # read-merge-append of one process's requests, one at a time
        self._cache: tuple[tuple[int, int], dict[tuple[str, str], Label]] | None = None

    def __repr__(self) -> str:
        return f"LabelStore({str(self.path)!r})"

    def exists(self) -> bool:
        return self.path.is_file()

    def all(self) -> list[Label]:
        """Every label in the file, in the order written (a torn last line is skipped)."""
        out = []
        for number, obj in enumerate(read_jsonl(self.path), 1):
            try:
                out.append(Label.model_validate(obj))
            except ValidationError as exc:
                raise TrajectoryError(f"{self.path}: label {number} is not valid: {first_error(exc)}") from None
        return out

    def latest(self) -> dict[tuple[str, str], Label]:
        """``{(episode, grader): label}``: the last label each grader gave each episode."""
        try:
            st = self.path.stat()
            stamp = (st.st_size, st.st_mtime_ns)
        except FileNotFoundError:
            return {}
        with self._lock:
            if self._cache and self._cache[0] == stamp:
                return self._cache[1]
        latest: dict[tuple[str, str], Label] = {}
        for label in self.all():
            latest[(label.episode, label.grader)] = label
        with self._lock:
            self._cache = (stamp, latest)
        return latest

    def for_grader(self, grader: str) -> dict[str, Label]:
        return {ep: lab for (ep, g), lab in self.latest().items() if g == grader}

    def for_episode(self, episode: str) -> list[Label]:
        return sorted((lab for (ep, _), lab in self.latest().items() if ep == episode), key=lambda lab: lab.grader)

    def add(self, episode: str, grader: str, **fields: Any) -> Label:
        """Record a judgement; fields not given keep the grader's previous values for the episode."""
        with self._adding:
            previous = self.latest().get((episode, grader))
            base = previous.model_dump(exclude={"time"}) if previous else {}
            label = Label.model_validate({**base, **fields, "episode": episode, "grader": grader, "time": utc_now()})
            self.append([label])
        return label

    def append(self, labels: Iterable[Label]) -> None:
        """Append whole lines: one ``write`` under an exclusive lock, then fsync."""
        data = b"".join(orjson.dumps(lab.line()) + b"\n" for lab in labels)
        if not data:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            _cut_torn_tail(fd)
            view = memoryview(data)
            while view:  # a regular file takes the whole write; loop only for a signal's short write
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)  # closing releases the lock


def _cut_torn_tail(fd: int) -> None:
    """Drop an unterminated last line (a writer died mid-line) so the next line starts clean."""
    size = os.fstat(fd).st_size
    if not size:
        return
    chunk = 4096
    pos = size
    while pos > 0:
        start = max(0, pos - chunk)
        block = os.pread(fd, pos - start, start)
        if pos == size and block.endswith(b"\n"):
            return
        nl = block.rfind(b"\n")
        if nl >= 0:
            os.ftruncate(fd, start + nl + 1)
            return
        pos = start
    os.ftruncate(fd, 0)


def first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    return f"{where}: {err.get('msg')}" if where else str(err.get("msg"))


def rank_labels(grader: str, ranks: dict[str, int], previous: dict[str, Label], ranking: str) -> list[Label]:
    """Labels giving episodes their ``ranks`` (1 = best) in ``ranking``, each keeping the grader's verdict."""
    now = utc_now()
    out = []
    for episode, rank in ranks.items():
        base = previous[episode].model_dump(exclude={"time"}) if episode in previous else {}
        out.append(Label.model_validate({**base, "episode": episode, "grader": grader, "time": now, "rank": rank, "ranking": ranking}))
    return out
