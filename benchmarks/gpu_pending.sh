#!/usr/bin/env bash
# What is built but not yet timed or checked on a GPU, most wanted first, each step under a
# deadline counted from the start (so a short device lease still gets the first answers):
#   source gpu-preamble.sh && bash benchmarks/gpu_pending.sh [SECONDS]   (default 560)
# 1. the `gpu` tests at the attention default of the twelfth session's end (TMA stages, pipelined,
#    no turns: its racecheck and memcheck were run, its gpu tests were not);
# 2. compute-sanitizer on that default for the cases not yet run (racecheck d 64 causal, d 128
#    full; memcheck without host API codes; synccheck d 128);
# 3. racecheck with the warpgroups' turns (`PINGPONG`, off by default since its hazards), then
#    with `EVEN_WAITS` too (warpgroup 1's lone sync after the loop: orders nothing, evens the
#    count of waits; 0 hazards confirms them racecheck's count, docs/performance.md "Racecheck and
#    the warpgroups' turns");
# 4. the attention table at 1024-8192 keys, other tile shapes at 1024 and 2048 keys; the tile
#    GEMM at 4096, more rounds; the launch, the cold start and compile latency (today's
#    baselines for issue 14).
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
ROOT=$PWD
EX=("$ROOT/examples/python/tile_attention.py" --device gpu --heads 2 --seq 200)
knobbed() {  # knobbed "PINGPONG=True" args...: the example with attention_tma knobs set
  local set=$1; shift
  (cd /tmp && python3 -c "import runpy, sys; import ferrox.lowering.tile_to_simt.attention_tma \
as t; [setattr(t, k, v == 'True') for k, v in (kv.split('=') for kv in '$set'.split(';'))]; \
sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')" \
    "$@")
}
step gpu-tests 22 python3 -m pytest -m gpu -q -n 8 -p no:cacheprovider
step racecheck-attention-d64-causal 28 compute-sanitizer --tool racecheck python3 "${EX[@]}" \
  --dim 64 --causal
step racecheck-attention-d128 34 compute-sanitizer --tool racecheck python3 "${EX[@]}" --dim 128
step memcheck-attention 40 compute-sanitizer --tool memcheck --report-api-errors no \
  python3 "${EX[@]}" --dim 64 --causal
step synccheck-attention 45 compute-sanitizer --tool synccheck python3 "${EX[@]}" --dim 128
step racecheck-turns 51 compute-sanitizer --tool racecheck --print-limit 20 \
  bash -c "$(declare -f knobbed); knobbed 'PINGPONG=True' ${EX[*]} --dim 64"
step racecheck-turns-even 57 compute-sanitizer --tool racecheck --print-limit 20 \
  bash -c "$(declare -f knobbed); knobbed 'PINGPONG=True;EVEN_WAITS=True' ${EX[*]} --dim 64"
ATT=(python3 -m benchmarks.attention --table)
step attention-sizes 66 "${ATT[@]}" --seqs 1024,2048,4096,8192 --variants wgmma
step attention-short-configs 80 "${ATT[@]}" --seqs 1024,2048 --variants wgmma \
  --configs 64:64:64,64:128:128,128:128:64,128:64:64
step gemm-default 85 python3 -m benchmarks.tile_wgmma --ab 5 --sizes 4096 \
  --configs default:128x256x64
step launch 91 python3 benchmarks/launch.py --batches 100
step cold-start 95 python3 benchmarks/cold_start.py --reps 5 --modes torch triton
step compile-latency 100 python3 benchmarks/compile_latency.py --reps 5 --no-new-process \
  --examples simt/vecadd simt/transpose tile/softmax tile/layernorm
echo "total $(( $(date +%s) - T0 )) s"
