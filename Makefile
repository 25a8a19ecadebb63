# Two entry points a newcomer needs: `make demo` and `make test`. Both build .venv from python3.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
DEMO_DIR ?= trainledger-demo

ROWS ?= 10000000

.PHONY: demo test lint bench bench-import clean

$(BIN)/trainledger: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.test-deps: $(BIN)/trainledger
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

demo: $(BIN)/trainledger
	$(BIN)/trainledger demo --dir $(DEMO_DIR)

test: $(VENV)/.test-deps
	$(BIN)/python -m pytest -q

lint: $(VENV)/.test-deps
	$(BIN)/ruff check src tests bench

$(VENV)/.bench-deps: $(BIN)/trainledger
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	@touch $@

bench: $(VENV)/.bench-deps
	$(BIN)/python -m bench

# import focus of a generated ROWS-row FOCUS CSV against DuckDB's CSV -> Parquet of it, peak RSS
bench-import: $(VENV)/.bench-deps
	$(BIN)/python -m bench.bench_import $(ROWS)

clean:
	rm -rf $(VENV) $(DEMO_DIR) .pytest_cache .hypothesis
