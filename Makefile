# Self-contained entry points: each target builds its own virtual environment.
PYTHON ?= python3
VENV ?= .venv
NO_TORCH_VENV ?= $(VENV)/no-torch
BIN := $(VENV)/bin

.PHONY: tour test test-lite typecheck stubs bench bench-table dask-digits clean

# $(VENV): the package with the test, parity and dask extras (parity is torch, CPU build; dask is dask[array] and
# distributed, for tensorlib.dask) for every target but test-lite; $(NO_TORCH_VENV): the test extra only (the
# tests of tensorlib.dask skip there). The stamp is written after a successful install, so a failed install or
# a change to pyproject.toml reinstalls.
$(VENV)/.installed: EXTRAS := test,parity,dask
$(NO_TORCH_VENV)/.installed: EXTRAS := test
$(VENV)/.installed $(NO_TORCH_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(@D)
	$(@D)/bin/python -m pip install --quiet --upgrade pip
	$(@D)/bin/python -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $@

tour: $(VENV)/.installed
	$(BIN)/python examples/tour.py

# every test, the comparisons with torch included
test: $(VENV)/.installed
	$(BIN)/python -m pytest

# the suite without torch (the comparisons with torch skip), on the pure-Python paths: the optional C extensions
# (tensorlib._accel, dispatch._speedups) are switched off, so that this target and `test` run the same tests on both
# implementations
test-lite: $(NO_TORCH_VENV)/.installed
	TENSORLIB_PURE_PYTHON=1 DISPATCH_PURE_PYTHON=1 $(NO_TORCH_VENV)/bin/python -m pytest

typecheck: $(VENV)/.installed
	$(BIN)/python -m mypy
	$(BIN)/python -m tensorlib._stubs --check

stubs: $(VENV)/.installed
	$(BIN)/python -m tensorlib._stubs

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/dispatch_overhead.py

# every performance figure in one run; rewrites benchmarks/RESULTS.md and the README's Performance table
bench-table: $(VENV)/.installed
	$(BIN)/python benchmarks/run_all.py --write

# batch inference and data-parallel training of a tensorlib model on Dask workers (1, then 2), with throughputs
dask-digits: $(VENV)/.installed
	$(BIN)/python examples/dask_digits.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
