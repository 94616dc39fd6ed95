# One-command set-up: each target creates the virtual environment when it is missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test play bench clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q

play: $(STAMP)
	$(BIN)/aton

bench: $(STAMP)
	$(BIN)/python bench/playouts.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
