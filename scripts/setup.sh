#!/usr/bin/env bash
# Idempotent set-up: a .venv with the package and its dev extras, and a Chromium the launcher can use.
# Fast when nothing changed (a stamp records the hash of pyproject.toml).
set -euo pipefail
cd "$(dirname "$0")/.."

find_python() {
  for py in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$py" ] || continue
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$py"; return 0
    fi
  done
  return 1
}

if [ ! -x .venv/bin/python ]; then
  PY=$(find_python) || { echo "error: Python 3.11 or newer is needed (set PYTHON=/path/to/python3.11)" >&2; exit 1; }
  echo "setup: creating .venv with $PY"
  "$PY" -m venv .venv
fi

stamp=.venv/.cua-sandbox-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  # The dev extra holds what the suite tests for real: the MCP SDK, datasets, OpenEnv's clients and Ray
  # (the cluster runner's tests start a local Ray cluster; `make test-long` runs them).
  echo "setup: installing cua-sandbox and its dev extras into .venv"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q -e '.[dev]'
  echo "$want" > "$stamp"
fi

# openenv-core without its own requirements (Gradio, OpenAI, the FastMCP server): the OpenEnv server
# and its tests need only what the dev extra already installs.
if ! .venv/bin/python -c 'import openenv.core' >/dev/null 2>&1; then
  echo "setup: installing openenv-core (no extra requirements)"
  .venv/bin/python -m pip install -q --no-deps 'openenv-core>=0.3,<0.4'
fi

# The launcher owns the search for Chromium; --ensure installs one when none is found.
.venv/bin/python -m sandbox.browser --ensure
