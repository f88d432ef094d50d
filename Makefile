# cgraph: the two commands a newcomer needs are `make demo` and `make test`.
# Both make their own virtual environment in .venv (python3 and pip are all they need).

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The tool and its runtime dependencies (editable: the venv runs this checkout).
$(VENV)/.base: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	@touch $@

# Plus what only the tests need: pytest, hypothesis, and apache-tvm as the reference.
$(VENV)/.test: $(VENV)/.base
	$(PIP) install -e '.[test]'
	@touch $@

demo: $(VENV)/.base
	@echo "== cgraph fmt: parse, check and print a TVM upstream test module (current dialect)"
	$(BIN)/cgraph fmt samples/tvm/dynamic_capture_before.relax
	@echo "== the same module in the legacy dialect (R.Object, sinfo_args=, T.block)"
	$(BIN)/cgraph fmt samples/tvm/dynamic_capture_before.relax --dialect legacy | sed -n '/def main/,$$p'
	@echo "== cgraph check: TVM's own expected output vs. a legacy-dialect copy of it (equal)"
	$(BIN)/cgraph fmt samples/tvm/merge_alloc_funcs_expected.relax --dialect legacy -o $(VENV)/demo_legacy.relax
	$(BIN)/cgraph check $(VENV)/demo_legacy.relax samples/tvm/merge_alloc_funcs_expected.relax
	@echo "== cgraph check: the pass's input vs. its expected output (they differ; exit 1 expected)"
	@$(BIN)/cgraph check samples/tvm/merge_alloc_funcs_before.relax samples/tvm/merge_alloc_funcs_expected.relax \
	  || echo "(exit status $$?: the modules differ, as they should)"

test: $(VENV)/.test
	$(BIN)/python -m pytest -q

bench: $(VENV)/.test
	$(BIN)/python bench/bench_fmt.py

clean:
	rm -rf $(VENV) .pytest_cache build dist
