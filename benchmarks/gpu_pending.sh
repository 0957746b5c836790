#!/usr/bin/env bash
# What is built but not yet timed on a GPU, most wanted first, each step under a deadline counted
# from the start (so a short device lease still gets the first answers):
#   source gpu-preamble.sh && bash benchmarks/gpu_pending.sh [SECONDS]   (default 560)
# 1. attention in its new grid order (tile.grid_order: one head's query blocks on blockIdx.x)
#    against the old one (--heads-first), then ncu's DRAM bytes and L2 hit rate of the new order;
#    the causal rows walk their query blocks heaviest first (the default CAUSAL_HEAVY_FIRST);
# 1b. causal attention, d 64 and d 128, heaviest first against first to last
#    (--causal-light-first, the walk before the reversal), the A/B of the reversal;
# 2. the persistent tile GEMM (gemm_wgmma.PERSISTENT) against the default schedule;
# 3. the `gpu` tests, compute-sanitizer racecheck of the attention example, compile latency.
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
ATT=(python3 -m benchmarks.attention --table --seqs 4096 --variants wgmma,wgmma-tma-pipe-pp)
step attention-order 20 "${ATT[@]}"
step attention-heads-first 40 "${ATT[@]}" --heads-first
CAUSAL=(python3 -m benchmarks.attention --table --seqs 4096 --variants wgmma --causal-only)
step attention-causal-heavy-first 47 "${CAUSAL[@]}"
step attention-causal-light-first 54 "${CAUSAL[@]}" --causal-light-first
step gemm-persistent 66 python3 -m benchmarks.tile_wgmma --ab 3 --sizes 4096,8192 \
  --configs default:128x256x64,persistent:128x256x64,default:256x128x64,persistent:256x128x64
step gpu-tests 77 python3 -m pytest -m gpu -q -n 8 -p no:cacheprovider
step ncu-attention 85 ncu --clock-control none --kernel-name attention --launch-count 1 \
  --section SpeedOfLight --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum \
  python3 -m benchmarks.attention --table --untimed --seqs 4096 --configs 128:128:128 --variants wgmma
step racecheck-attention 92 compute-sanitizer --tool racecheck \
  python3 examples/python/tile_attention.py --device gpu --heads 2 --seq 200 --dim 64 --causal
step compile-latency 100 python3 benchmarks/compile_latency.py --reps 5 --no-new-process \
  --examples simt/vecadd simt/transpose tile/softmax tile/layernorm
echo "total $(( $(date +%s) - T0 )) s"
