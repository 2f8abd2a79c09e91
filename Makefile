# TriPeaks: `make run` plays, `make test` tests. Both set themselves up on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint audit bench install install-test system-deps clean

# The virtualenv counts as made only once all of it is: a half-made one (python3 -m venv
# without Debian's python3-venv leaves one) is removed and made again, not reused.
$(VENV)/.made:
	PYTHON=$(PYTHON) sh scripts/install-system-deps venv
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	touch $@

install: $(VENV)/.made
	$(BIN)/pip install --quiet -c constraints.txt -e .

install-test: $(VENV)/.made system-deps
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test]'

system-deps:
	sh scripts/install-system-deps

run: install
	$(BIN)/tripeaks serve --host $(HOST) --port $(PORT)

lint: install-test
	$(BIN)/ruff check app tests bench
	$(BIN)/mypy --strict app

# Known vulnerabilities in the pinned dependencies (pip-audit on constraints.txt). Fails when one
# is found, and when the audit could not be done (PyPI's vulnerability data unreachable): then
# it says "DEPENDENCY AUDIT NOT DONE". TRIPEAKS_AUDIT_REQUIRED=0 lets that case pass, still
# saying it loudly (.ci/run decides, and prints why). See scripts/audit.py.
audit: install-test
	$(BIN)/python scripts/audit.py constraints.txt

# The whole suite on every core (pytest-xdist: one worker per core, each with its own browser,
# live servers, folders and PostgreSQL schemas; a worker that is free takes tests from a busy
# one). TEST_WORKERS=0 runs it in this one process.
TEST_WORKERS ?= auto
test: install-test
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal

bench: install-test
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/web.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache test-output
