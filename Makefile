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

# Plus what only the tests need: pytest, hypothesis, apache-tvm as the reference, and
# Debian's chromium to render `cgraph diff --format html` (installed when root and missing).
$(VENV)/.test: $(VENV)/.base
	$(PIP) install -e '.[test]'
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    echo "installing chromium (Debian) for the HTML report test" && \
	    apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "note: chromium is not installed: the HTML report test fails on CI, skips elsewhere"
	@touch $@

demo: $(VENV)/.base
	@echo "== cgraph rewrite: lift the static kernel launches of a TVM test module into CUDA graphs"
	@echo "   (samples/tvm/vm_builtin_before.relax; --explain says why the rest stays outside)"
	$(BIN)/cgraph rewrite samples/tvm/vm_builtin_before.relax --explain -o $(VENV)/demo_rewritten.relax
	@sed -n '/def cuda_graph_alloc/,$$p' $(VENV)/demo_rewritten.relax
	@echo "== cgraph check: the rewrite equals TVM's own expected output (PrimFunc text aside)"
	$(BIN)/cgraph check $(VENV)/demo_rewritten.relax samples/tvm/vm_builtin_expected.relax --prim-bodies ignore
	@echo "== cgraph diff: what went into graphs, what did not and why, and the numbers"
	$(BIN)/cgraph diff samples/tvm/vm_builtin_before.relax
	@echo "== cgraph verify: the rewrite computes what the original computes (CUDA-graph semantics, no GPU)"
	$(BIN)/cgraph verify samples/tvm/vm_builtin_before.relax $(VENV)/demo_rewritten.relax
	@echo "== the same rewrite in the legacy dialect (R.Object, sinfo_args=, T.block)"
	$(BIN)/cgraph rewrite samples/tvm/vm_builtin_before.relax --dialect legacy | sed -n '/def main(/,$$p'
	@echo "== cgraph check finds the first difference: the pass's input vs. its output (exit 1 expected)"
	@$(BIN)/cgraph check samples/tvm/merge_alloc_funcs_before.relax samples/tvm/merge_alloc_funcs_expected.relax \
	  || echo "(exit status $$?: the modules differ, as they should)"

test: $(VENV)/.test
	$(BIN)/python -m pytest -q

bench: $(VENV)/.test
	$(BIN)/python bench/bench_fmt.py --tvm
	$(BIN)/python bench/bench_rewrite.py
	$(BIN)/python bench/bench_verify.py

clean:
	rm -rf $(VENV) .pytest_cache build dist
