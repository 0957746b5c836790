#!/usr/bin/env bash
# A shorter GPU session than gpu_session.sh, for a change to the tensor-core GEMM and the
# launch path (2026-12-05: the tile GEMM's portable twin, the bf16 example on wgmma tiles):
#   source gpu-preamble.sh && bash benchmarks/gpu_focus.sh [kernels|latency|table|extra]
# (default: kernels and latency; `table`: the GPU tests, the whole kernel table written into a
# copy of docs/performance.md in $OUT, its roofline plot, then the tile wgmma benchmark)
# The `gpu` tests, the bf16 examples on the GPU, compute-sanitizer on the wgmma kernel and its
# twin, the tile wgmma benchmark, the GEMM rows of the kernel table, launch and compile latency.
# Logs and JSON go to $OUT (or ./gpu-out).
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"; export OUT
export FERROX_CACHE_DIR=${FERROX_CACHE_DIR:-$(mktemp -d)}
step() { echo "== $* ($(date -u +%H:%M:%S))"; "$@"; echo "-- exit $?"; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 --version
} | tee "$OUT/device.txt"
PART=${1:-all}
if [[ $PART == extra ]]; then
  # The f32 GEMM variants pickled on the CPU machine (`python -m benchmarks.gemm_f32 build DIR`,
  # each DIR named in $F32_DIRS), compute-sanitizer on examples run on the GPU, then latency.
  {
    for dir in ${F32_DIRS:-}; do step python3 -m benchmarks.gemm_f32 time "$dir" 3; done
    for ex in tile/matmul_f32 tile/layernorm tile/softmax tile/attention simt/histogram; do
      for tool in memcheck racecheck; do
        step compute-sanitizer --tool $tool --report-api-errors no ferrox run "examples/$ex.mlir" --device gpu
      done
    done
  } 2>&1 | tee "$OUT/extra.txt"
  PART=latency
fi
if [[ $PART == table ]]; then
  {
    step python3 -m pytest -m gpu -n 8 -q -p no:cacheprovider
    cp docs/performance.md "$OUT/performance.md"
    step python3 -m benchmarks --out "$OUT" --docs "$OUT/performance.md"
    step python3 -m benchmarks.roofline "$OUT/results.json" "$OUT/roofline.png"
    step python3 -m benchmarks.tile_wgmma
  } 2>&1 | tee "$OUT/table.txt"
  exit 0
fi
if [[ $PART != latency ]]; then
  {
    step python3 -m pytest -m gpu -n 8 -q -p no:cacheprovider
    step ferrox run examples/tile/matmul_bf16.mlir --device gpu
    step python3 examples/python/tile_matmul_bf16.py --device gpu
    step python3 examples/python/tile_matmul_bf16.py --device gpu --m 1000 --n 1048 --k 1000
    step compute-sanitizer --tool memcheck --report-api-errors no python3 -m benchmarks.tile_wgmma --small
    step compute-sanitizer --tool racecheck --report-api-errors no python3 -m benchmarks.tile_wgmma --small
    step python3 -m benchmarks.tile_wgmma
    step python3 -m benchmarks --only gemm --out "$OUT"
  } 2>&1 | tee "$OUT/kernels.txt"
fi
if [[ $PART != kernels ]]; then
  {
    step python3 benchmarks/launch.py --batches 40
    step python3 benchmarks/compile_latency.py --reps 3 --json "$OUT/compile_latency.json"
  } 2>&1 | tee "$OUT/latency.txt"
fi
