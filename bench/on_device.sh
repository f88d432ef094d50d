#!/usr/bin/env bash
# One call on a lent GPU machine (the device tool's `run`, from the repository root), with the
# image's python3 (cuda-bindings, nvidia-ml-py, numpy, click, rich, PyTorch; no network):
#
#   python3 -m pip download lark --no-deps --only-binary=:all: --python-version 3.12 \
#       --implementation cp -d .whl          # here, once (.whl/ is git-ignored)
#   run(command="bash bench/on_device.sh", carry=[".whl"])
#
# It runs the GPU tests, compute-sanitizer memcheck on a sample run, and the benchmark
# against PyTorch; logs and the benchmark's JSON go to $OUT (or ./device-out).
set -uo pipefail
OUT=${OUT:-device-out}
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
export PYTHONUNBUFFERED=1 CGRAPH_CACHE_DIR=/tmp/cgraph-kernels
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv | tee "$OUT/nvidia-smi.txt"
python3 -c "import cuda.bindings, pynvml, lark; print('cuda-bindings', cuda.bindings.__version__)"
status=0
python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cuda.py 2>&1 | tee "$OUT/gpu-tests.log" \
  || status=1
python3 -m cudagraph_cli run samples/models/decode_32.relax --device 0 --iters 200 \
  2>&1 | tee "$OUT/run-decode32.log" || status=1
compute-sanitizer --tool memcheck --error-exitcode 1 python3 -m cudagraph_cli run \
  samples/models/prefill_decode.relax --device 0 --warmup 1 --iters 3 --shape n=2,5 \
  > "$OUT/memcheck.log" 2>&1 || status=1
tail -3 "$OUT/memcheck.log"
python3 bench/bench_gpu.py --json "$OUT/bench_gpu.json" --write docs/BENCHMARKS.md \
  2>&1 | tee "$OUT/bench_gpu.log" || status=1
cp docs/BENCHMARKS.md "$OUT/BENCHMARKS.md"
exit $status
