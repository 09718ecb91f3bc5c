# Two commands: `make run` (the main job) and `make test` (the whole suite). Both set themselves up.
PY := .venv/bin/python
PORT ?= 8765
WORKERS ?= auto
RUN_WORKERS ?= 4

.PHONY: setup run serve test validate bench clean

setup:
	@bash scripts/setup.sh

# The main job: the oracle and a baseline agent over the whole task suite, a summary table, and the
# command that opens the viewer on the two runs.
run: setup
	$(PY) -m sandbox.cli suite --workers $(RUN_WORKERS)

serve: setup
	$(PY) -m sandbox.cli serve --port $(PORT)

test: setup
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup -q --durations=15

# The whole CI validation with every template's GUI oracle (CI plays a fixed half of them).
validate: setup
	SANDBOX_VALIDATE_GUI_ORACLE_EVERY=1 $(PY) -m pytest tests/tasks/test_validate.py -n $(WORKERS) --dist loadgroup -q

bench: setup
	$(PY) -m bench

clean:
	rm -rf .venv build *.egg-info
