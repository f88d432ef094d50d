#!/usr/bin/env bash
# One call on a lent GPU machine (the device tool's `run`, from the repository root), with the
# image's python3 (cuda-bindings, nvidia-ml-py, numpy, click, rich, PyTorch; no network, no
# TVM). Here, first:
#
#   python3 -m pip download lark --no-deps --only-binary=:all: --python-version 3.12 \
#       --implementation cp -d .whl          # once (.whl/ is git-ignored)
#   for m in samples/real/*.before.relax; do n=$(basename $m .before.relax); \
#       cgraph kernels $m --arch sm_90 -o .device/kernels/$n.cu; done   # needs TVM
#   run(command="bash bench/on_device.sh", carry=[".whl", ".device"])
#
# It runs the GPU tests, compute-sanitizer memcheck on a sample and on real models with their
# own kernels, the launch-overhead benchmark against PyTorch and the real corpus with its own
# kernels. $OUT (or ./device-out) gets docs/BENCHMARKS.md, the benchmarks' JSON and logs.tgz
# (every log: the device tool brings back at most 8 files).
set -uo pipefail
OUT=${OUT:-device-out}
LOGS=$(mktemp -d)
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
export PYTHONUNBUFFERED=1 CGRAPH_CACHE_DIR=/tmp/cgraph-kernels COLUMNS=160
KERNELS=${KERNELS:-.device/kernels}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv | tee "$LOGS/nvidia-smi.txt"
python3 -c "import cuda.bindings, pynvml, lark; print('cuda-bindings', cuda.bindings.__version__)"
status=0
python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cuda.py 2>&1 \
  | tee "$LOGS/gpu-tests.log" || status=1
python3 -m cudagraph_cli run samples/models/decode_32.relax --device 0 --iters 200 \
  2>&1 | tee "$LOGS/run-decode32.log" || status=1
compute-sanitizer --tool memcheck --error-exitcode 1 python3 -m cudagraph_cli run \
  samples/models/prefill_decode.relax --device 0 --warmup 1 --iters 3 --shape n=2,5 \
  > "$LOGS/memcheck.log" 2>&1 || status=1
tail -3 "$LOGS/memcheck.log"
if [ -d "$KERNELS" ]; then
  for m in nn_mlp nn_llama_kv; do
    compute-sanitizer --tool memcheck --error-exitcode 1 python3 -m cudagraph_cli run \
      samples/real/$m.before.relax --device 0 --kernels "$KERNELS/$m.cu" --warmup 1 --iters 3 \
      > "$LOGS/memcheck-$m.log" 2>&1 || status=1
    tail -2 "$LOGS/memcheck-$m.log"
  done
  for cu in "$KERNELS"/*.cu; do  # every model of the corpus, with its own kernels
    m=$(basename "$cu" .cu)
    python3 -m cudagraph_cli run samples/real/$m.before.relax --device 0 --kernels "$cu" \
      --warmup 1 --iters 5 > "$LOGS/corpus-$m.log" 2>&1
    rc=$?; echo "corpus $m: exit $rc"; [ $rc = 0 ] || { status=1; tail -3 "$LOGS/corpus-$m.log"; }
  done
  python3 -m cudagraph_cli run samples/real/nn_llama_kv.before.relax --device 0 \
    --kernels "$KERNELS/nn_llama_kv.cu" 2>&1 | tee "$LOGS/run-llama.log" || status=1
  python3 bench/bench_real_gpu.py --kernels-dir "$KERNELS" --json "$OUT/bench_real_gpu.json" \
    --write docs/BENCHMARKS.md 2>&1 | tee "$LOGS/bench_real_gpu.log" || status=1
else
  echo "no $KERNELS: the real corpus with its own kernels was not run"
fi
python3 bench/bench_gpu.py --json "$OUT/bench_gpu.json" --write docs/BENCHMARKS.md \
  2>&1 | tee "$LOGS/bench_gpu.log" || status=1
cp docs/BENCHMARKS.md "$OUT/BENCHMARKS.md"
tar czf "$OUT/logs.tgz" -C "$LOGS" .
exit $status
