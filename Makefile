# Self-contained entry points: each target builds its own virtual environment.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: tour test bench clean

$(BIN)/activate: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(BIN)/activate

tour: $(BIN)/activate
	$(BIN)/python examples/tour.py

test: $(BIN)/activate
	$(BIN)/python -m pytest

bench: $(BIN)/activate
	$(BIN)/python benchmarks/dispatch_overhead.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
