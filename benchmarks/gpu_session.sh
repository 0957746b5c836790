#!/usr/bin/env bash
# All of a session's GPU work in one command, on the lent H200 (see ../shared/gpu/README.md):
#   source gpu-preamble.sh && bash benchmarks/gpu_session.sh [pytest-args...]
# First the README's test command (the whole suite, `gpu` tests included, one worker per core),
# then every benchmark.
# Logs go to $OUT (or ./gpu-out): device.txt, pytest.txt, bench.txt and each benchmark's JSON.
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"; export OUT
export FERROX_CACHE_DIR=${FERROX_CACHE_DIR:-$(mktemp -d)}
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 --version
  ferrox doctor 2>&1
} | tee "$OUT/device.txt"
start=$(date +%s)
python3 -m pytest -n auto -q -rs -p no:cacheprovider --durations=15 "$@" 2>&1 | tee "$OUT/pytest.txt"
echo "suite wall time: $(( $(date +%s) - start )) s" | tee -a "$OUT/pytest.txt"
{
  python3 benchmarks/launch.py --batches 200 --profile "torch tensors (current" --profile checked
  echo "== benchmarks/compile_latency.py"
  python3 benchmarks/compile_latency.py --reps 5 --json "$OUT/compile_latency.json"
  echo "== python3 -m benchmarks"
  python3 -m benchmarks --out "$OUT"
} 2>&1 | tee "$OUT/bench.txt"
