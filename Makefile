# One-command set-up: each target creates the virtual environment when it is missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test check play bench clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# The tests, after the linter and the type checker: CI fails on any of them.
test: check
	$(BIN)/python -m pytest -q

# The linter and the type checker; both read their settings from pyproject.toml.
check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

play: $(STAMP)
	$(BIN)/aton

bench: $(STAMP)
	$(BIN)/python bench/playouts.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache
