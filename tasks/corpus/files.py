"""The files of a corpus folder: append-only JSONL logs that a build resumes from.

- ``instances.jsonl``: one record per proven instance (the corpus).
- ``failures.jsonl``: instances that could not be drawn or whose score ladder broke, with the reason.
- ``duplicates.jsonl``: seeds whose instance coincides with a lower seed's (never played).
- ``builds.jsonl``: one line per build run (selection, seeds, policy, counts, wall time).
- ``card.json`` and ``CARD.md``: the data card, regenerated from the logs.

Every line is written whole and flushed as soon as its instance is decided, so a crash or Ctrl-C
loses at most the instances in flight. A torn last line (a crash in the middle of a write) is cut
off when the folder is opened again, so the next append starts on a clean line.

An instance may be decided more than once: a failure that only timed out is played again, and an
instance proven with an older template file or in another world (its record's ``template_version``,
and ``world_version``: the digest of its seed's world, ``apps_web.world.digest``) is stale and proven
again by the next build. The logs keep every decision; what
counts is each instance's latest (``decided_at``; a record without it is older than any with it, and
among those a proof outranks a failure, which outranks a duplicate).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

INSTANCES = "instances.jsonl"
FAILURES = "failures.jsonl"
DUPLICATES = "duplicates.jsonl"
BUILDS = "builds.jsonl"
CARD_JSON = "card.json"
CARD_MD = "CARD.md"


class CorpusError(ValueError):
    """A corpus folder that cannot be read (missing, or a line that is not a record)."""


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a log; a torn last line (no newline) is skipped, any other bad line is an error."""
    if not path.exists():
        return
    data = path.read_bytes()
    lines = data.split(b"\n")
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield orjson.loads(line)
        except orjson.JSONDecodeError:
            if i == len(lines):  # the last line, cut short by a crash
                return
            raise CorpusError(f"{path}:{i}: not a JSON record; remove or fix the line and run again") from None


def _cut_torn_tail(path: Path) -> None:
    """Drop a last line without its newline (a write interrupted half way)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as f:
        f.truncate(keep)


def is_current(record: dict[str, Any], versions: dict[str, str]) -> bool:
    """Whether a record was decided with these versions (one without them predates versioning: stale)."""
    return all(record.get(k) == v for k, v in versions.items())


class CorpusDir:
    """A corpus folder: what is done, and appending records to its logs."""

    def __init__(self, root: Path | str, *, create: bool = False) -> None:
        self.root = Path(root)
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
            for name in (INSTANCES, FAILURES, DUPLICATES, BUILDS):
                _cut_torn_tail(self.root / name)
        elif not self.root.is_dir():
            raise CorpusError(f"no corpus folder {self.root} (build one with: sandbox corpus build --out {self.root})")

    def path(self, name: str) -> Path:
        return self.root / name

    def records(self, name: str = INSTANCES) -> list[dict[str, Any]]:
        return list(read_jsonl(self.root / name))

    def instances(self) -> list[dict[str, Any]]:
        return self.records(INSTANCES)

    def duplicates(self) -> list[dict[str, Any]]:
        return self.records(DUPLICATES)

    def builds(self) -> list[dict[str, Any]]:
        return self.records(BUILDS)

    def latest(self) -> dict[tuple[str, int], tuple[str, dict[str, Any]]]:
        """(task, seed) -> (log name, record) of each instance's latest decision."""
        rank = {DUPLICATES: 0, FAILURES: 1, INSTANCES: 2}
        out: dict[tuple[str, int], tuple[tuple[str, int], str, dict[str, Any]]] = {}
        for name in (DUPLICATES, FAILURES, INSTANCES):
            for r in read_jsonl(self.root / name):
                k = (r["id"], int(r["seed"]))
                order = (str(r.get("decided_at") or ""), rank[name])
                if k not in out or order >= out[k][0]:
                    out[k] = (order, name, r)
        return {k: (name, r) for k, (_order, name, r) in out.items()}

    def decided(self, name: str) -> list[dict[str, Any]]:
        """The records of one log that are their instance's latest decision (the card's and dataset's)."""
        return [r for n, r in self.latest().values() if n == name]

    def done(self, current: Callable[[str, int], dict[str, str]] | None = None,
             latest: dict[tuple[str, int], tuple[str, dict[str, Any]]] | None = None) -> dict[tuple[str, int], str]:
        """(task, seed) -> its instance key, for every instance already decided: proven, a duplicate,
        or failed on a verdict. Not done: a failure marked ``retry`` (its episodes could not be played)
        and, given ``current`` ((task, seed) -> the versions a record must name, e.g. ``{"template_version":
        ..., "world_version": ...}``), a decision made with other versions: the next build plays those again.
        ``latest``: :meth:`latest` already read (the logs are read once per build)."""
        out: dict[tuple[str, int], str] = {}
        for k, (name, r) in (latest if latest is not None else self.latest()).items():
            if name == FAILURES and r.get("retry"):
                continue
            if current is not None and not is_current(r, current(r["id"], int(r["seed"]))):
                continue
            out[k] = r.get("key") or ""
        return out

    def failures(self) -> list[dict[str, Any]]:
        """The failures still standing: each instance's latest decision, when it is a failure."""
        return self.decided(FAILURES)

    def append(self, name: str, record: dict[str, Any]) -> None:
        """Append one record as one line, flushed to disk before returning."""
        with open(self.root / name, "ab") as f:
            f.write(_dumps(record) + b"\n")
            f.flush()
            os.fsync(f.fileno())

    def write(self, name: str, text: str) -> None:
        """Replace a file atomically (the card)."""
        tmp = self.root / f".{name}.tmp"
        tmp.write_text(text)
        tmp.replace(self.root / name)
