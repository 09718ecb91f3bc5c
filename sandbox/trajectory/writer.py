"""Writing one episode's trajectory: append-only while it runs, finished atomically."""

from __future__ import annotations

import datetime as _dt
import io
import os
import time
from pathlib import Path
from typing import Any

import orjson

from .format import (
    EPISODE_FILE,
    PARTIAL_SUFFIX,
    SCREENSHOTS_DIR,
    STEPS_FILE,
    EpisodeRecord,
    StepRecord,
    screenshot_name,
)


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, default=_default, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)


def _default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(bytes(value))} bytes>"
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def write_atomic(path: Path, data: bytes) -> None:
    """Write a file so that readers see the old content or the new, never a mix (tmp + fsync + rename)."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def png_bytes(image: Any) -> bytes:
    """PNG bytes from PNG bytes or an HxWx3 uint8 array."""
    if isinstance(image, (bytes, bytearray, memoryview)):
        return bytes(image)
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


class EpisodeWriter:
    """Writes ``<final>.partial/`` as the episode goes, then renames it to ``<final>`` in :meth:`finish`.

    ``steps.jsonl`` is flushed after every line, so a killed process leaves every completed step on disk.
    """

    def __init__(self, final_dir: Path | str, record: EpisodeRecord) -> None:
        self.final_dir = Path(final_dir)
        self.dir = self.final_dir.with_name(self.final_dir.name + PARTIAL_SUFFIX)
        if self.final_dir.exists():
            raise FileExistsError(f"episode folder {self.final_dir} already exists")
        if self.dir.exists():  # a leftover of a crash: its owner (the run) decides to keep it; we start over
            raise FileExistsError(f"unfinished episode folder {self.dir} exists; move it aside first")
        (self.dir / SCREENSHOTS_DIR).mkdir(parents=True)
        self.record = record
        record.status = "running"
        record.started_at = record.started_at or utc_now()
        self._t0 = time.perf_counter()
        self._write_record()
        self._steps = open(self.dir / STEPS_FILE, "ab")
        self.closed = False

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def _write_record(self) -> None:
        write_atomic(self.dir / EPISODE_FILE, dumps(self.record.model_dump(mode="json")) + b"\n")

    def screenshot(self, index: int, image: Any) -> str | None:
        """Save the observation after step ``index`` (0: the first one); return its relative path."""
        if image is None:
            return None
        name = screenshot_name(index)
        (self.dir / name).write_bytes(png_bytes(image))
        return name

    def step(self, step: StepRecord, screenshot: Any = None) -> StepRecord:
        """Append one step (and its screenshot) to the trajectory."""
        if screenshot is not None:
            step.screenshot = self.screenshot(step.step, screenshot)
        if not step.t:
            step.t = round(self.elapsed, 4)
        self._steps.write(dumps(step.model_dump(mode="json", exclude_none=True)) + b"\n")
        self._steps.flush()
        self.record.steps = max(self.record.steps, step.step)
        return step

    def finish(self, **fields: Any) -> EpisodeRecord:
        """Write the final ``episode.json`` and rename the folder: the episode is then whole."""
        for key, value in fields.items():
            setattr(self.record, key, value)
        rec = self.record
        rec.status = "finished"
        rec.finished_at = utc_now()
        if not rec.timings.total:
            rec.timings.total = round(self.elapsed, 4)
        if rec.outcome == "running":
            rec.outcome = "error" if rec.error else ("passed" if rec.passed else "failed")
        if rec.end_reason == "running":
            rec.end_reason = "error" if rec.error else "agent_done"
        self._steps.flush()
        os.fsync(self._steps.fileno())
        self._steps.close()
        self._write_record()
        os.replace(self.dir, self.final_dir)
        self.closed = True
        return rec

    def close(self) -> None:
        """Leave the episode unfinished (e.g. cancelled): the folder keeps its ``.partial`` suffix."""
        if not self.closed:
            self._steps.close()
            self.closed = True
