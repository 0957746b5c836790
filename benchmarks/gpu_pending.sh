#!/usr/bin/env bash
# What is built but not yet timed or checked on a GPU, most wanted first, each step under a
# deadline counted from the start (so a short device lease still gets the first answers):
#   source gpu-preamble.sh && bash benchmarks/gpu_pending.sh [SECONDS]   (default 350)
# The fused attention's new defaults (helper branch attn-default-15: q by TMA, `TMA_Q`; the
# reciprocal epilogue, the example's `RECIPROCAL`; the output staged in 2 slabs,
# `attention_wgmma.OUTPUT_SLABS`; the benchmark's tile by head dim and length, d 64 at 64 x 64
# up to 2048 keys):
# 1. the attention gpu tests (every default against all three off, the wgmma path, the examples);
# 2. compute-sanitizer racecheck and memcheck of the default kernel, ferrox's kernel only (the
#    reference is computed on the CPU with --untimed, and the kernel filter, where this
#    compute-sanitizer takes it, leaves out torch's kernels too);
# 3. the table at 1024-8192 keys, d 64 at 64 x 64 and 128 x 64, d 128 at 128 x 128, full and
#    causal, the defaults against all three off (`tmaq=0:recip=0:oslabs=1`): is 64 x 64 still
#    the faster d 64 tile past 2048 keys, and do the defaults lose anywhere?
# Each step's log goes to $OUT/NAME.txt (or ./gpu-out); its tail is printed.
set -u
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"; export OUT
export FERROX_CACHE_DIR=${FERROX_CACHE_DIR:-$(mktemp -d)}
BUDGET=${1:-350}
T0=$(date +%s)
step() {  # step NAME SHARE-OF-BUDGET-BY-ITS-END(%) command...
  local name=$1 until=$(( BUDGET * $2 / 100 )); shift 2
  local left=$(( until - ($(date +%s) - T0) ))
  if (( left < 15 )); then echo "== $name skipped (no time left)"; return; fi
  echo "== $name ($(date -u +%T), ${left} s)"
  timeout "$left" "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  tail -c 1500 "$OUT/$name.txt"; echo "-- exit $rc"
}
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 --version; } \
  | tee "$OUT/device.txt"
step gpu-tests 20 python3 -m pytest -m gpu -q -n 8 -p no:cacheprovider -k attention \
  tests/gpu/test_attention_short_gpu.py tests/gpu/test_attention_wgmma_gpu.py \
  tests/gpu/test_examples_gpu.py
# The reference is computed on the CPU under --untimed, so every kernel the sanitizer sees is
# ferrox's (and torch's fills): no kernel filter, which could match nothing and report clean.
SAN=(compute-sanitizer --print-limit 20 --report-api-errors no)
echo "sanitizer: ${SAN[*]}"
CHECKED=(python3 -m benchmarks.attention --table --untimed --batch 1 --heads 2 --seqs 200,1000
  --configs 64:64:64,64:128:64,128:128:128 --variants wgmma)
step racecheck 38 "${SAN[@]}" --tool racecheck "${CHECKED[@]}"
step memcheck 52 "${SAN[@]}" --tool memcheck "${CHECKED[@]}"
ATT=(python3 -m benchmarks.attention --table --configs 64:64:64,64:128:64,128:128:128,128:128:64
  --variants wgmma,wgmma:tmaq=0:recip=0:oslabs=1)
step table-short 74 "${ATT[@]}" --seqs 1024,2048
step table-long 100 "${ATT[@]}" --seqs 4096,8192
echo "total $(( $(date +%s) - T0 )) s"
