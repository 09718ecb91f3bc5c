"""World store: time to fork a world (a copy of one SQLite file) and to build a template from cold."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from apps_web.world import WorldStore

from .stats import summarize, time_ms


def main(repeat: int = 200) -> None:
    console = Console()
    root = Path(tempfile.mkdtemp(prefix="bench-world-"))
    try:
        cold: list[float] = []
        for i in range(3):
            store = WorldStore(root / f"cold{i}")
            t = time.perf_counter()
            store.create(seed=0)
            cold.append((time.perf_counter() - t) * 1000)
        store = WorldStore(root / "warm")
        template = store.template(seed=0)
        size_mb = template.stat().st_size / 1e6
        worlds = []
        fork = time_ms(lambda: worlds.append(store.create(seed=0)), repeat)
        # Floor: a raw file copy of the same file, measured in the same run.
        dest = root / "floor.sqlite"
        floor = time_ms(lambda: shutil.copyfile(template, dest), repeat)
        drop = []
        for w in worlds:
            t = time.perf_counter()
            store.drop(w)
            drop.append((time.perf_counter() - t) * 1000)
        table = Table(title=f"World store (template {size_mb:.1f} MB, seed 0, scale 1)")
        for col in ("operation", "median ms", "p95 ms", "n", "ratio to copy floor"):
            table.add_column(col, justify="right" if col != "operation" else "left")
        f = summarize(floor)
        for name, samples in (("fork (create from cached template)", fork), ("raw file copy (floor)", floor), ("drop", drop), ("create from cold cache (build)", cold)):
            s = summarize(samples)
            ratio = f"{s['median'] / f['median']:.2f}x" if name.startswith("fork") else ""
            table.add_row(name, f"{s['median']:.2f}", f"{s['p95']:.2f}", str(s["n"]), ratio)
        console.print(table)
        console.print("target: fork median <= 10 ms for a world of at least 5 MB")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
