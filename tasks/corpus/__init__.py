"""The task corpus: every template proven over many seeds, written as records with a data card
(``sandbox corpus build|card|export``; docs/corpus.md). Names are imported lazily (the CLI reads the
policy's defaults without loading the validation engine)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "BuildResult": "build", "Candidate": "build", "build_async": "build", "instance_key": "build", "render": "build",
    "compute_card": "card", "write_card": "card", "export": "dataset",
    "CorpusDir": "files", "CorpusError": "files", "Policy": "policy",
}  # fmt: skip
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
