# TriPeaks: `make run` plays, `make test` tests. Both set themselves up on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint audit bench install install-test system-deps clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -c constraints.txt -e .

install-test: $(BIN)/python system-deps
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test]'

system-deps:
	sh scripts/install-system-deps

run: install
	$(BIN)/tripeaks serve --host $(HOST) --port $(PORT)

lint: install-test
	$(BIN)/ruff check app tests bench
	$(BIN)/mypy --strict app

# Known vulnerabilities in the pinned dependencies (pip-audit on constraints.txt). Fails when one
# is found; when PyPI's vulnerability data cannot be reached it says so loudly and passes
# (TRIPEAKS_AUDIT_REQUIRED=1 makes that fail too). See scripts/audit.py.
audit: install-test
	$(BIN)/python scripts/audit.py constraints.txt

test: install-test
	$(BIN)/python -m pytest

bench: install-test
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/web.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache test-output
