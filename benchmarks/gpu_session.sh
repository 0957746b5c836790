#!/usr/bin/env bash
# All of a session's GPU work in one command, on the lent H200 (see ../shared/gpu/README.md):
#   source gpu-preamble.sh && bash benchmarks/gpu_session.sh [pytest-args...]
# Logs and JSON results go to $OUT (or ./gpu-out).
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"; export OUT
export FERROX_CACHE_DIR=${FERROX_CACHE_DIR:-$(mktemp -d)}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } | tee "$OUT/device.txt"
ferrox doctor 2>&1 | tee "$OUT/doctor.txt"
python3 -m pytest -m gpu -q -rs -p no:cacheprovider "$@" 2>&1 | tee "$OUT/pytest-gpu.txt"
for b in benchmarks/vecadd.py benchmarks/tile.py; do
  [ -f "$b" ] && python3 "$b" 2>&1 | tee "$OUT/$(basename "$b" .py).txt"
done
