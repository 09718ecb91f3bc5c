"""The files of a corpus folder: append-only JSONL logs that a build resumes from.

- ``instances.jsonl``: one record per proven instance (the corpus).
- ``failures.jsonl``: instances that could not be drawn or whose score ladder broke, with the reason.
- ``duplicates.jsonl``: seeds whose instance coincides with a lower seed's (never played).
- ``builds.jsonl``: one line per build run (selection, seeds, policy, counts, wall time).
- ``card.json`` and ``CARD.md``: the data card, regenerated from the logs.

Every line is written whole and flushed as soon as its instance is decided, so a crash or Ctrl-C
loses at most the instances in flight. A torn last line (a crash in the middle of a write) is cut
off when the folder is opened again, so the next append starts on a clean line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

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

    def done(self) -> dict[tuple[str, int], str]:
        """(task, seed) -> its instance key, for every instance already decided: proven, a duplicate,
        or failed on a verdict (a failure marked ``retry``, whose episodes could not be played, is
        not done: the next build plays it again)."""
        out: dict[tuple[str, int], str] = {}
        for name in (INSTANCES, FAILURES, DUPLICATES):
            for r in read_jsonl(self.root / name):
                if name == FAILURES and r.get("retry"):
                    continue
                out[(r["id"], int(r["seed"]))] = r.get("key") or ""
        return out

    def failures(self) -> list[dict[str, Any]]:
        """The failures still standing: the last line of each instance, unless it was proven since."""
        proven = {(r["id"], int(r["seed"])) for r in read_jsonl(self.root / INSTANCES)}
        last = {(r["id"], int(r["seed"])): r for r in read_jsonl(self.root / FAILURES)}
        return [r for k, r in last.items() if k not in proven]

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
