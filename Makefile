# Two commands: `make run` (the main job) and `make test` (the whole suite). Both set themselves up.
PY := .venv/bin/python
PORT ?= 8765
WORKERS ?= auto

.PHONY: setup run serve test bench clean

setup:
	@bash scripts/setup.sh

run: setup
	$(PY) -m sandbox.cli serve --port $(PORT)

serve: setup
	$(PY) -m sandbox.cli serve --port $(PORT)

test: setup
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup -q

bench: setup
	$(PY) -m bench

clean:
	rm -rf .venv build *.egg-info
