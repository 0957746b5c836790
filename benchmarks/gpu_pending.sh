#!/usr/bin/env bash
# What is built but not yet timed or checked on a GPU, most wanted first, each step under a
# deadline counted from the start (so a short device lease still gets the first answers):
#   source gpu-preamble.sh && bash benchmarks/gpu_pending.sh [SECONDS]   (default 300)
# Every step below but `compile_peers.py` ran on an H200 in the seventeenth session (a slow host:
# `python -c pass` 51-80 ms; docs/performance.md, "Seventeenth session's H200 runs"). Most wanted
# now: `benchmarks/compile_peers.py`, written that session and never run on a GPU (no device was
# lent after it): a new kernel from source to its first launch, ferrox beside CuPy, Triton and
# numba-cuda in one process, which says whether ferrox compiles faster than CuPy on the host at
# hand, whatever that host's speed. Check first that every peer compiled (a peer that fails is
# printed as left out) and that every output matched torch's. The steps:
# 1. every gpu test;
# 1b. a new kernel against the peers (`compile_peers.py`; issue 14's title asks a compile faster
#    than CuPy's);
# 2. the attention with a bf16 output, causal too, at 1024 and 2048 keys (d 64 64 x 64, d 128
#    128 x 128), against SDPA's bf16 output;
# 3. the cold start (`cold_start.py`, torch mode: issue 14 target 2);
# 4. the launch table (issue 14 target 3);
# 5. compile latency back to back in one process (the compile-16 section: an idle gap before
#    each compile costs 2.5-3.5 ms of SIMT transpose's).
# Each step's log goes to $OUT/NAME.txt (or ./gpu-out); its tail is printed.
set -u
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"; export OUT
export FERROX_CACHE_DIR=${FERROX_CACHE_DIR:-$(mktemp -d)}
TOTAL=300  # the seconds the steps' deadlines below are marked in
BUDGET=${1:-$TOTAL}
T0=$(date +%s)
step() {  # step NAME SECOND-OF-TOTAL-BY-ITS-END command... (scaled to BUDGET)
  local name=$1 until=$(( BUDGET * $2 / TOTAL )); shift 2
  local left=$(( until - ($(date +%s) - T0) ))
  if (( left < 15 )); then echo "== $name skipped (no time left)"; return; fi
  echo "== $name ($(date -u +%T), ${left} s)"
  timeout "$left" "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  tail -c 1500 "$OUT/$name.txt"; echo "-- exit $rc"
}
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 --version; } \
  | tee "$OUT/device.txt"
step gpu-tests 70 python3 -m pytest -m gpu -q -n 8 -p no:cacheprovider tests
step compile-peers 110 python3 benchmarks/compile_peers.py --reps 9 --json "$OUT/compile_peers.json"
step attention-bf16-out 150 python3 -m benchmarks.attention --table \
  --configs 64:64:64,128:128:128 --seqs 1024,2048 --variants wgmma,wgmma:obf16=1
step cold-start 170 python3 benchmarks/cold_start.py --reps 5 --modes torch
step launch 215 python3 benchmarks/launch.py --batches 200
step compile-latency 300 python3 benchmarks/compile_latency.py --reps 9 --no-new-process \
  --examples simt/transpose simt/vecadd tile/softmax tile/layernorm tile/attention
echo "total $(( $(date +%s) - T0 )) s"
