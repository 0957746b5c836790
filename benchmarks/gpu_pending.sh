#!/usr/bin/env bash
# What is built but not yet timed or checked on a GPU, most wanted first, each step under a
# deadline counted from the start (so a short device lease still gets the first answers):
#   source gpu-preamble.sh && bash benchmarks/gpu_pending.sh [SECONDS]   (default 560)
# 1. attention's new default on sm_90 (TMA stages, pipelined, turns: `wgmma`) against the
#    measured variant with the ninth session's cuts (`wgmma-tma-pipe-pp`) and the old default
#    (`wgmma:tma=0:pipe=0:pp=0`);
#    the causal rows walk their query blocks heaviest first (CAUSAL_HEAVY_FIRST, the default);
#    against them the light-first walk (--causal-light-first), the reversal's A/B;
# 2. ncu of the new default at 1024 keys (where it is furthest from SDPA); the `gpu` tests;
#    compute-sanitizer memcheck, racecheck and synccheck of the attention example (its default
#    path) at head dims 64 and 128, causal and full;
# 3. the tile GEMM at its default schedule, more rounds; compile latency.
# Each step's log goes to $OUT/NAME.txt (or ./gpu-out); its tail is printed.
set -u
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"; export OUT
export FERROX_CACHE_DIR=${FERROX_CACHE_DIR:-$(mktemp -d)}
BUDGET=${1:-560}
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
ATT=(python3 -m benchmarks.attention --table)
step attention-default 20 "${ATT[@]}" --seqs 4096 --variants wgmma,wgmma-tma-pipe-pp
step gpu-tests 40 python3 -m pytest -m gpu -q -n 8 -p no:cacheprovider
EX=(python3 examples/python/tile_attention.py --device gpu --heads 2 --seq 200)
step racecheck-attention-d128 47 compute-sanitizer --tool racecheck "${EX[@]}" --dim 128 --causal
step memcheck-attention 53 compute-sanitizer --tool memcheck "${EX[@]}" --dim 128 --causal
step racecheck-attention-d64 58 compute-sanitizer --tool racecheck "${EX[@]}" --dim 64
step synccheck-attention 62 compute-sanitizer --tool synccheck "${EX[@]}" --dim 64 --causal
step attention-causal-light-first 70 "${ATT[@]}" --seqs 4096 --variants wgmma --causal-only \
  --causal-light-first
step attention-sizes 82 "${ATT[@]}" --seqs 1024,2048,8192 --variants wgmma
step ncu-attention-1024 90 ncu --clock-control none --kernel-name attention --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
  python3 -m benchmarks.attention --table --untimed --seqs 1024 --configs 128:128:128
step gemm-default 100 python3 -m benchmarks.tile_wgmma --ab 3 --sizes 4096 \
  --configs default:128x256x64
echo "total $(( $(date +%s) - T0 )) s"
