# cgraph: the two commands a newcomer needs are `make demo` and `make test`.
# Both make their own virtual environment in .venv (python3 and pip are all they need).

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test goldens tables bench bench-gpu gpu-check corpus clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The tool and its runtime dependencies (editable: the venv runs this checkout).
$(VENV)/.base: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	@touch $@

# Plus what only the tests need: pytest, hypothesis, apache-tvm as the reference, Debian's
# chromium to render `cgraph diff --format html` and GNU patch to apply `--format unified`
# (each installed when root and missing).
$(VENV)/.test: $(VENV)/.base
	$(PIP) install -e '.[test]'
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    echo "installing chromium (Debian) for the HTML report test" && \
	    apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "note: chromium is not installed: the HTML report test fails on CI, skips elsewhere"
	@command -v patch >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    echo "installing patch (Debian) for the unified-diff test" && \
	    apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patch >/dev/null; } || \
	  echo "note: patch is not installed: the unified-diff test fails on CI, skips elsewhere"
	@touch $@

DEMO := samples/models/decode_32.relax

demo: $(VENV)/.base
	@echo "== 1. A 32-layer LLM decode step after memory planning: one kernel launch per call site"
	@echo "      ($(DEMO); see its first lines). cgraph rewrite lifts the static runs into CUDA graphs:"
	$(BIN)/cgraph rewrite $(DEMO) -o $(VENV)/decode_32.graph.relax
	@echo
	@echo "== 2. What the rewrite saves (cgraph diff --summary): host work removed per call, kernel launches captured"
	$(BIN)/cgraph diff $(DEMO) $(VENV)/decode_32.graph.relax --summary
	@echo
	@echo "== 3. One layer, binding by binding: R<n> = the graph a binding went into, S<n> = shared"
	@echo "      storage slot, '✗' = why a launch stays outside (first 24 lines)"
	@$(BIN)/cgraph diff $(DEMO) $(VENV)/decode_32.graph.relax --function decode --fold 4 | head -24
	@echo
	@echo "== 4. Proof without a GPU: both modules on the reference executor, CUDA-graph semantics"
	$(BIN)/cgraph verify $(DEMO) $(VENV)/decode_32.graph.relax
	@echo
	@echo "== 5. On a GPU"
	@if command -v nvidia-smi >/dev/null 2>&1; then $(BIN)/cgraph run $(DEMO) --device 0 --iters 100; \
	  else echo "   (no GPU here: 'cgraph run $(DEMO) --device 0' runs it eagerly and with CUDA graphs," \
	            "checks both against the reference and times them)"; fi
	@echo
	@echo "== 6. The same pass on TVM's own test case equals TVM's expected output"
	$(BIN)/cgraph rewrite samples/tvm/vm_builtin_before.relax | $(BIN)/cgraph check - samples/tvm/vm_builtin_expected.relax --prim-bodies ignore
	@echo
	@echo "cgraph is $(BIN)/cgraph ('. $(BIN)/activate' puts it on PATH); on your own model: README.md, 'On your own model'"

# One worker per core, a test file per worker (a file's tests share its fixtures and order).
test: $(VENV)/.test
	$(BIN)/python -m pytest -q -n auto --dist loadfile

# Regenerate the goldens cgraph owns (tests/test_owned_goldens.py: `cgraph gen`'s samples),
# through cgraph's own pytest plugin: only a file that differs structurally is rewritten.
# TVM's goldens and the hand-derived ones are compared with updatable=False and never written
# (docs/CLI.md, "Golden files", lists which are which). Then review with `git diff`.
goldens: $(VENV)/.test
	$(BIN)/python -m pytest -q -p no:cacheprovider --cgraph-update tests/test_owned_goldens.py

# The parser's LALR tables, rebuilt from grammar/relax.lark by Lark into
# cudagraph_cli/text/parse_tables.json (shipped: no run builds them); after any grammar change.
tables: $(VENV)/.test
	$(BIN)/python -m cudagraph_cli.text.tables

# Whole-process timings against apache-tvm 0.27; results replace their sections of
# docs/BENCHMARKS.md (machine and date included).
bench: $(VENV)/.test
	$(BIN)/python bench/bench_fmt.py --tvm --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_rewrite.py --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_verify.py --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_startup.py --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_big.py --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_real_size.py --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_real_read.py --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_symbolic.py --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_buckets_trace.py --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_pytest_startup.py --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_goldens.py --write docs/BENCHMARKS.md
	$(BIN)/python bench/bench_mutants.py --write docs/EXECUTOR.md

# On a machine with an NVIDIA GPU (and, for bench-gpu, PyTorch): the launch-overhead benchmark
# against PyTorch (its table replaces a section of docs/BENCHMARKS.md), and the GPU checks.
bench-gpu: $(VENV)/.base
	$(BIN)/python bench/bench_gpu.py --write docs/BENCHMARKS.md

gpu-check: $(VENV)/.test
	$(BIN)/python -m pytest -q -m gpu tests/test_cuda.py
	compute-sanitizer --tool memcheck --error-exitcode 1 $(BIN)/cgraph run $(DEMO) --device 0 --iters 3 --warmup 1

# samples/real: TVM's own dumps of real models right before and after its RewriteCUDAGraph
# inside relax.build (bench/corpus/build_corpus.py; no GPU needed), the MLC-LLM-style ones at
# Llama-3.2-1B, Qwen2-0.5B, Llama-3.1-8B, Phi-2 and GPT-2-medium dimensions included (about 5 to
# 15 s each). Deterministic: a second run
# rewrites identical files. TVM_TESTS: a copy of apache/tvm's
# tests/python/relax/test_transform_static_plan_block_memory.py, for the static_plan_* files
# (without it they are left as they are). Then samples/real/capture_safety: small modules calling
# external functions that break under CUDA-graph capture (bench/corpus/build_capture_safety.py).
TVM_TESTS ?=
corpus: $(VENV)/.base
	$(PIP) install -e '.[corpus]'
	$(BIN)/python bench/corpus/build_corpus.py $(if $(TVM_TESTS),--tvm-tests $(TVM_TESTS))
	$(BIN)/python bench/corpus/build_capture_safety.py

clean:
	rm -rf $(VENV) .pytest_cache build dist
