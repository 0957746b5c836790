#!/usr/bin/env bash
# What is built but not yet timed or checked on a GPU, most wanted first, each step under a
# deadline counted from the start (so a short device lease still gets the first answers):
#   source gpu-preamble.sh && bash benchmarks/gpu_pending.sh [SECONDS]   (default 220)
# (The attention defaults' steps that stood here were confirmed by the fourteenth session's GPU
# run, docs/performance.md.) 16-bit outputs (helper branch bf16-out-15: the tile GEMM's C and
# the attention example's out in bf16, as cuBLAS's and SDPA's are):
# 1. the bf16-output gpu tests (each against the same kernel's f32 output rounded, bit for bit,
#    and against cuBLAS / SDPA / NumPy);
# 2. the GEMM at 4096^3 and 8192^3, 128 x 256 and 128 x 128 tiles, f32 C against bf16 C in the
#    same rounds (`--outs f32,16`), each against cuBLAS's bf16 C;
# 3. the attention table at 1024-4096 keys, d 64 at 64 x 64 and d 128 at 128 x 128, full, with
#    and without the bf16 output (`obf16=1`), against SDPA's bf16 output, and the bf16 output
#    staged a half at a time (`pairs=0`) rather than two a word;
# 4. racecheck and memcheck of the bf16-output kernels at small ragged shapes (the attention's
#    reference computed on the CPU under --untimed, so every kernel the sanitizer sees is
#    ferrox's and torch's fills: no kernel filter, which could match nothing and report clean).
# Each step's log goes to $OUT/NAME.txt (or ./gpu-out); its tail is printed.
set -u
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"; export OUT
export FERROX_CACHE_DIR=${FERROX_CACHE_DIR:-$(mktemp -d)}
TOTAL=220  # the seconds the steps' deadlines below are marked in
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
step bf16-tests 45 python3 -m pytest -m gpu -q -n 8 -p no:cacheprovider tests/gpu/test_bf16_out_gpu.py
step gemm-bf16-out 80 python3 -m benchmarks.tile_wgmma --ab 3 --sizes 4096,8192 --elements bf16 \
  --configs default:128x256x64,default:128x128x64 --outs f32,16
step attention-bf16-out 125 python3 -m benchmarks.attention --table --full-only \
  --configs 64:64:64,128:128:128 --seqs 1024,2048,4096 \
  --variants wgmma,wgmma:obf16=1,wgmma:obf16=1:pairs=0
SAN=(compute-sanitizer --print-limit 20 --report-api-errors no)
echo "sanitizer: ${SAN[*]}"
CHECKED16=(python3 -m benchmarks.attention --table --untimed --batch 1 --heads 2 --seqs 200
  --configs 64:64:64,128:128:128 --variants wgmma:obf16=1)
GEMM16=(python3 -m benchmarks.tile_wgmma --small --outs 16)
step racecheck-attention-bf16 140 "${SAN[@]}" --tool racecheck "${CHECKED16[@]}"
step memcheck-attention-bf16 155 "${SAN[@]}" --tool memcheck "${CHECKED16[@]}"
step racecheck-gemm-bf16 190 "${SAN[@]}" --tool racecheck "${GEMM16[@]}"
step memcheck-gemm-bf16 220 "${SAN[@]}" --tool memcheck "${GEMM16[@]}"
echo "total $(( $(date +%s) - T0 )) s"
