"""World store: time to fork a world (a copy of one SQLite file) and to build a template from cold.

Measured at scale 1 (the default world, about 1 MB) and at a scale whose world is at least 5 MB,
each beside a raw copy of the same file (the floor) in the same run.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from apps_web.world import WorldStore

from .stats import summarize, time_ms

SCALES = ((1, 3), (6, 1))  # (scale, cold builds): scale 6 is about 6 MB


def _measure(root: Path, scale: int, cold_runs: int, repeat: int) -> tuple[float, dict[str, list[float]]]:
    cold: list[float] = []
    for i in range(cold_runs):
        store = WorldStore(root / f"cold-x{scale}-{i}")
        t = time.perf_counter()
        store.create(seed=0, scale=scale)
        cold.append((time.perf_counter() - t) * 1000)
    store = WorldStore(root / f"warm-x{scale}")
    template = store.template(seed=0, scale=scale)
    worlds = []
    fork = time_ms(lambda: worlds.append(store.create(seed=0, scale=scale)), repeat)
    dest = root / f"floor-x{scale}.sqlite"
    floor = time_ms(lambda: shutil.copyfile(template, dest), repeat)
    drop = []
    for w in worlds:
        t = time.perf_counter()
        store.drop(w)
        drop.append((time.perf_counter() - t) * 1000)
    return template.stat().st_size / 1e6, {"fork (create from cached template)": fork, "raw file copy (floor)": floor,
                                           "drop": drop, "create from cold cache (build)": cold}


def main(repeat: int = 200) -> None:
    console = Console()
    root = Path(tempfile.mkdtemp(prefix="bench-world-"))
    try:
        table = Table(title="World store (seed 0)")
        for col in ("scale", "world MB", "operation", "median ms", "p95 ms", "n", "ratio to copy floor"):
            table.add_column(col, justify="left" if col == "operation" else "right")
        for scale, cold_runs in SCALES:
            size_mb, samples = _measure(root, scale, cold_runs, repeat)
            floor = summarize(samples["raw file copy (floor)"])
            for name, values in samples.items():
                s = summarize(values)
                ratio = f"{s['median'] / floor['median']:.2f}x" if name.startswith("fork") else ""
                table.add_row(str(scale), f"{size_mb:.1f}", name, f"{s['median']:.2f}", f"{s['p95']:.2f}", str(s["n"]), ratio)
            table.add_section()
        console.print(table)
        console.print("target: fork median <= 10 ms for a world of at least 5 MB")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
