# futocp: `make test` and `make demo` do all the set-up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# make demo: a newcomer's first minute (under 15 s once installed). The puzzle,
# its solution, then every available complete backend on it, a row as each
# finishes, each with a time limit. DEMO_BACKENDS=all adds the incomplete ones
# (anneal, genetic), which may run into the time limit (exit code 1).
DEMO   ?= instances/futoshiki/6x6-extreme-01.json
DEMO_BACKENDS ?= complete
DEMO_TIME_LIMIT ?= 2

# The exact versions every test run installs (see the README, "Dependencies").
# `make test VENV=.venv-latest CONSTRAINTS=` tries the newest versions the
# ranges of pyproject.toml allow, in a venv of their own.
CONSTRAINTS ?= constraints.txt
PIP_C  := $(if $(CONSTRAINTS),-c $(CONSTRAINTS))

.PHONY: test test-slow demo lint typecheck bench wheel-check clean constraints

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Reinstall when the build changes (pyproject.toml, setup.py: the optional C core
# of listcolor, compiled by the install when a C compiler is present).
CORE := setup.py futocp/backends/_listcolor_core.c futocp/backends/_listcolor_core_wide.c \
	futocp/_filter_core.c futocp/_bits.h futocp/_inputs.h
$(VENV)/.installed-dev: pyproject.toml $(CORE) $(CONSTRAINTS) | $(BIN)/python
	$(BIN)/python -m pip install -q $(PIP_C) -e '.[dev]'
	touch $@

$(VENV)/.installed-all: pyproject.toml $(CORE) $(CONSTRAINTS) | $(BIN)/python
	$(BIN)/python -m pip install -q $(PIP_C) -e '.[all]'
	touch $@

TEST_WORKERS ?= 2  # pytest-xdist processes for `make test` (the machine's cores; 0: in this process)

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

test-slow: $(VENV)/.installed-dev  # the tests `make test` leaves out (marked slow)
	$(BIN)/python -m pytest -m slow

demo: $(VENV)/.installed-all
	@echo '$$ futocp show $(DEMO) --solution'
	@$(BIN)/futocp show $(DEMO) --solution
	@echo
	@echo '$$ futocp crosscheck $(DEMO) \'
	@echo '      --backends $(DEMO_BACKENDS) --limit 2 --time-limit $(DEMO_TIME_LIMIT)'
	@$(BIN)/futocp crosscheck $(DEMO) --backends $(DEMO_BACKENDS) --limit 2 --time-limit $(DEMO_TIME_LIMIT)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check futocp tests benchmarks scripts

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

bench: $(VENV)/.installed-dev
	$(BIN)/python benchmarks/peers.py

# constraints.txt from the dev venv as it is (run after the suite passes with
# new versions, and commit it on its own).
constraints: | $(BIN)/python
	$(BIN)/python -m pip freeze --exclude-editable --exclude futocp | grep -v "^#" | LC_ALL=C sort -f > constraints.txt

# The wheel carries everything: build it, install it in a fresh venv outside the
# checkout, solve from another directory, list the families (also from a
# `pip install --target` install). Needs no dev venv.
wheel-check:
	PYTHON=$(PYTHON) $(if $(CONSTRAINTS),PIP_CONSTRAINT=$(abspath $(CONSTRAINTS))) bash scripts/check_wheel.sh

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
