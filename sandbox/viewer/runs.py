"""The runs a viewer shows: each with a short key used in its URLs, its results index and its labels.

The key is the run folder's name (``runs/suite-1/oracle`` -> ``oracle``), made unique in the order
the runs were given (``oracle``, ``oracle-2``). `sandbox agreement` builds the same keys, so the links
it prints open in a viewer started on the same runs.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.trajectory import LabelStore, RunDir, load_run

from .index import ResultsIndex

DEFAULT_URL = "http://127.0.0.1:8790"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def run_keys(paths: list[Path | str]) -> list[str]:
    keys: list[str] = []
    for p in paths:
        base = _UNSAFE.sub("-", Path(p).resolve().name).strip("-.") or "run"
        key, n = base, 1
        while key in keys:
            n += 1
            key = f"{base}-{n}"
        keys.append(key)
    return keys


def episode_path(key: str, episode_id: str) -> str:
    """The viewer's path of an episode page."""
    return f"/runs/{urllib.parse.quote(key, safe='')}/episodes/{urllib.parse.quote(episode_id, safe='')}"


@dataclass
class RunView:
    key: str
    run: RunDir
    index: ResultsIndex
    labels: LabelStore

    @property
    def path(self) -> Path:
        return self.run.path

    @property
    def title(self) -> str:
        meta = self.run.meta
        agent = meta.get("agent") or ""
        return f"{self.key} ({agent})" if agent and agent != self.key else self.key

    def row(self, episode_id: str) -> dict[str, Any] | None:
        return self.index.by_id.get(episode_id)


def load_runs(paths: list[Path | str]) -> list[RunView]:
    """Open run folders (a TrajectoryError says which one is not a run)."""
    if not paths:
        raise ValueError("no run folder given")
    out = []
    for key, p in zip(run_keys(paths), paths):
        run = load_run(p)
        out.append(RunView(key, run, ResultsIndex(run.results_path), LabelStore(run.path)))
    return out
