# futocp: `make test` and `make demo` do all the set-up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEMO   ?= instances/futoshiki/9x9-extreme-01.json

.PHONY: test demo lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Reinstall when pyproject.toml changes.
$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

$(VENV)/.installed-all: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[all]'
	touch $@

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

demo: $(VENV)/.installed-all
	$(BIN)/futocp show $(DEMO)
	$(BIN)/futocp crosscheck $(DEMO) --limit 2

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check futocp tests benchmarks

bench: $(VENV)/.installed-dev
	$(BIN)/python benchmarks/peers.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
