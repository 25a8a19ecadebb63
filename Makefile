# Two entry points a newcomer needs: `make demo` and `make test`. Both build .venv from python3.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
DEMO_DIR ?= trainledger-demo

ROWS ?= 10000000

.PHONY: demo test lint bench bench-import bench-engine bench-spark clean

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

# issue 7's engine benchmark at its size: the bill stage on 10M bill rows x 1M attempts against a hand-written
# DuckDB SQL and pandas (ratios, agreement to the cent), then the whole attribute at 1M (bench/bench_engine.py)
bench-engine: $(VENV)/.bench-deps
	TRAINLEDGER_BENCH_ROWS=$(or $(ENGINE_ROWS),10000000) $(BIN)/python -m bench.bench_engine

$(VENV)/.bench-spark-deps: $(BIN)/trainledger
	$(BIN)/python -m pip install --quiet -e '.[bench,spark]'
	@touch $@

# issue 7's Spark line: the bill stage's split on Spark local mode at SPARK_ROWS (default 1M) bill rows against
# the same on DuckDB and the hand-written SQL (agreement to the cent), wall, CPU and peak RSS of the process
# tree, JVM included (bench/bench_spark.py; needs Java 17)
bench-spark: $(VENV)/.bench-spark-deps
	TRAINLEDGER_BENCH_SPARK_ROWS=$(or $(SPARK_ROWS),1000000) $(BIN)/python -m bench.bench_spark

clean:
	rm -rf $(VENV) $(DEMO_DIR) .pytest_cache .hypothesis
