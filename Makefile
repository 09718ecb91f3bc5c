# Two commands: `make run` (the main job) and `make test` (the suite; `make test-long` has the tests that
# take minutes each, and CI runs both). Both set themselves up.
PY := .venv/bin/python
PORT ?= 8765
WORKERS ?= auto
RUN_WORKERS ?= 4

.PHONY: setup run serve test test-long validate bench clean

setup:
	@bash scripts/setup.sh

# The main job: the oracle and a baseline agent over the whole task suite, a summary table, and the
# command that opens the viewer on the two runs.
run: setup
	$(PY) -m sandbox.cli suite --workers $(RUN_WORKERS)

serve: setup
	$(PY) -m sandbox.cli serve --port $(PORT)

# The suite without the tests that take minutes each (marked long: `make test-long`; CI runs both).
test: setup
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup -q --durations=15 -m "not long"

# The long tests: every template at seed 0 on the env pool (oracle, no-op agent, near-misses,
# adversaries; the GUI oracles of a fixed half of the templates), three templates played twice, and the
# runs on a local Ray cluster.
test-long: setup
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup -q --durations=15 -m long

# The templates' validation with every template's GUI oracle.
validate: setup
	SANDBOX_VALIDATE_GUI_ORACLE_EVERY=1 $(PY) -m pytest tests/tasks/test_validate.py -m long -n $(WORKERS) --dist loadgroup -q --durations=10

bench: setup
	$(PY) -m bench

clean:
	rm -rf .venv build *.egg-info
