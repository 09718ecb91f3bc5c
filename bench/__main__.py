"""Run every benchmark (`python -m bench`), or some (`python -m bench world env`)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = [m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_") and m.name != "stats"]
    chosen = [n for n in names if not argv or n in argv]
    unknown = [a for a in argv if a not in names]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(sorted(names))}", file=sys.stderr)
        return 2
    for name in sorted(chosen):
        module = importlib.import_module(f"bench.{name}")
        if hasattr(module, "main"):
            print(f"\n== bench.{name} ==")
            module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
