"""A run folder: many episodes, a ``results.jsonl`` index, and resuming after a crash.

::

    <run>/
        run.json            what was run: agent, task patterns, seeds, options, start and end times
        results.jsonl       one line per finished episode (EpisodeRecord.result()), in finishing order
        episodes/<id>/      finished episodes; ``<id>.partial`` while running
        aborted/<id>.<n>/   unfinished episodes found by --resume, kept for inspection
        attempts.jsonl      attempts lost with a Ray actor that died (the episode was played again)
        labels.jsonl        human labels of the episodes (``labels.py``), written by the viewer

The episode folders are the truth; ``results.jsonl`` is an index rebuilt from them on resume, so an
episode appears in it exactly once however the previous process ended.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Iterator

import orjson

from .format import EPISODE_FILE, PARTIAL_SUFFIX, EpisodeRecord
from .loader import Episode, TrajectoryError, read_jsonl
from .writer import EpisodeWriter, dumps, utc_now, write_atomic

RUN_FILE = "run.json"
RESULTS_FILE = "results.jsonl"
EPISODES_DIR = "episodes"
ABORTED_DIR = "aborted"
ATTEMPTS_FILE = "attempts.jsonl"


class RunExists(FileExistsError):
    """The output folder already holds a run and --resume was not given."""


class RunDir:
    """Create, resume and read a run folder."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.episodes_dir = self.path / EPISODES_DIR
        self.results_path = self.path / RESULTS_FILE
        self._lock = threading.Lock()

    # -- creating and resuming -------------------------------------------------------------------
    @classmethod
    def create(cls, path: Path | str, meta: dict[str, Any], *, resume: bool = False) -> RunDir:
        """Start a run in ``path``; with ``resume``, continue the run already there."""
        run = cls(path)
        exists = (run.path / RUN_FILE).exists() or run.episodes_dir.exists()
        if exists and not resume:
            raise RunExists(f"{run.path} already holds a run; pass --resume to continue it, or choose another --out")
        run.episodes_dir.mkdir(parents=True, exist_ok=True)
        old = run.meta if (run.path / RUN_FILE).exists() else {}
        merged = {**old, **meta, "created_at": old.get("created_at") or utc_now(), "status": "running"}
        if exists:
            merged["resumed_at"] = [*old.get("resumed_at", []), utc_now()]
            run.recover()
        run.write_meta(merged)
        return run

    def recover(self) -> list[str]:
        """Move unfinished episodes aside and rebuild ``results.jsonl`` from the finished ones.

        Returns the ids of the unfinished episodes that were moved to ``aborted/``.
        """
        moved = []
        for child in sorted(self.episodes_dir.iterdir()):
            if child.name.endswith(PARTIAL_SUFFIX) or not (child / EPISODE_FILE).exists():
                name = child.name.removesuffix(PARTIAL_SUFFIX)
                dest_root = self.path / ABORTED_DIR
                dest_root.mkdir(exist_ok=True)
                n = 1
                while (dest_root / f"{name}.{n}").exists():
                    n += 1
                os.replace(child, dest_root / f"{name}.{n}")
                moved.append(name)
        finished = {}
        for child in sorted(self.episodes_dir.iterdir()):
            ep = Episode(child)
            if ep.record.status == "finished":
                finished[ep.record.id] = ep.record
        lines = list(self.results())
        seen: set[str] = set()
        keep = []
        for line in lines:  # keep the original finishing order; drop duplicates and strays
            rid = line.get("id")
            if rid in finished and rid not in seen:
                seen.add(rid)
                keep.append(line)
        missing = [rec for rid, rec in finished.items() if rid not in seen]
        missing.sort(key=lambda r: r.finished_at or "")
        keep.extend(rec.result() for rec in missing)
        torn = self.results_path.exists() and self.results_path.stat().st_size and not self.results_path.read_bytes().endswith(b"\n")
        if keep != lines or torn:
            write_atomic(self.results_path, b"".join(dumps(x) + b"\n" for x in keep))
        return moved

    # -- metadata --------------------------------------------------------------------------------
    @property
    def meta(self) -> dict[str, Any]:
        try:
            return orjson.loads((self.path / RUN_FILE).read_bytes())
        except FileNotFoundError:
            return {}
        except orjson.JSONDecodeError as exc:
            raise TrajectoryError(f"{self.path / RUN_FILE}: {exc}") from None

    def write_meta(self, meta: dict[str, Any]) -> None:
        write_atomic(self.path / RUN_FILE, dumps(meta) + b"\n")

    def update_meta(self, **fields: Any) -> None:
        with self._lock:
            self.write_meta({**self.meta, **fields})

    # -- episodes --------------------------------------------------------------------------------
    def finished_ids(self) -> set[str]:
        """Ids of the finished episodes (folders without the ``.partial`` suffix)."""
        if not self.episodes_dir.exists():
            return set()
        return {c.name for c in self.episodes_dir.iterdir() if not c.name.endswith(PARTIAL_SUFFIX) and (c / EPISODE_FILE).exists()}

    def episode_writer(self, record: EpisodeRecord) -> EpisodeWriter:
        return EpisodeWriter(self.episodes_dir / record.id, record)

    def add_result(self, record: EpisodeRecord) -> dict[str, Any]:
        """Append a finished episode's line to ``results.jsonl`` (one write, flushed)."""
        line = record.result()
        with self._lock, open(self.results_path, "ab") as f:
            f.write(dumps(line) + b"\n")
            f.flush()
        return line

    def add_attempt(self, attempt: dict[str, Any]) -> None:
        """Record a failed attempt at an episode (not a result: the episode is retried)."""
        with self._lock, open(self.path / ATTEMPTS_FILE, "ab") as f:
            f.write(dumps(attempt) + b"\n")
            f.flush()

    def attempts(self) -> Iterator[dict[str, Any]]:
        """The lines of ``attempts.jsonl`` (none when no attempt failed)."""
        return read_jsonl(self.path / ATTEMPTS_FILE)

    def results(self) -> Iterator[dict[str, Any]]:
        """The lines of ``results.jsonl``, read as a stream."""
        return read_jsonl(self.results_path)

    def episode(self, episode_id: str) -> Episode:
        if "/" in episode_id or episode_id.startswith("."):
            raise TrajectoryError(f"bad episode id {episode_id!r}")
        path = self.episodes_dir / episode_id
        if not path.exists():
            partial = path.with_name(path.name + PARTIAL_SUFFIX)
            if partial.exists():
                return Episode(partial)
            raise TrajectoryError(f"no episode {episode_id!r} in {self.path}")
        return Episode(path)

    def running(self) -> list[str]:
        """Ids of episodes in progress (or left unfinished by a crash)."""
        if not self.episodes_dir.exists():
            return []
        return sorted(c.name.removesuffix(PARTIAL_SUFFIX) for c in self.episodes_dir.iterdir() if c.name.endswith(PARTIAL_SUFFIX))


def load_run(path: Path | str) -> RunDir:
    """Open a run folder for reading."""
    run = RunDir(path)
    if not (run.path / RUN_FILE).exists() and not run.results_path.exists():
        raise TrajectoryError(f"{run.path} is not a run folder: it has neither {RUN_FILE} nor {RESULTS_FILE}")
    return run
