#!/usr/bin/env bash
# What is built but not yet timed or checked on a GPU, most wanted first, each step under a
# deadline counted from the start (so a short device lease still gets the first answers):
#   source gpu-preamble.sh && bash benchmarks/gpu_pending.sh [SECONDS]   (default 560)
# 1. the short-sequence attention switches (helper branch attn-short-13: q by TMA `tmaq`, the
#    reciprocal epilogue `recip`, the staging in slabs `slabs`, BM 64 tiles): their gpu tests
#    and racecheck; the launch's gpu tests and its before/after (helper branch launch-14;
#    .lead/base: a copy of main before it, `git archive 78cca6b`, carried);
# 2. the attention table at 1024 and 2048 keys over tile shapes and switches, then at 4096 keys
#    for the default shapes with and without the switches (a default candidate must not lose
#    at long sequences).
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
step gpu-tests-new 12 python3 -m pytest -m gpu -q -n 8 -p no:cacheprovider \
  tests/gpu/test_attention_short_gpu.py tests/gpu/test_attention_wgmma_gpu.py \
  tests/gpu/test_launch_relaunch_gpu.py tests/gpu/test_launch_graph_gpu.py \
  tests/gpu/test_runtime_gpu.py tests/gpu/test_bad_launch_gpu.py
step racecheck-short 22 compute-sanitizer --tool racecheck --print-limit 20 python3 -m \
  benchmarks.attention --table --untimed --batch 1 --heads 2 --seqs 200 \
  --configs 64:64:64,64:128:64,128:64:32,128:128:128 --variants wgmma:tmaq=1:recip=1:slabs=2
[ -d .lead/base ] && step launch-ab 34 python3 benchmarks/launch_ab.py .lead/base --rounds 2 \
  --batches 40
ATT=(python3 -m benchmarks.attention --table)
step attention-short 85 "${ATT[@]}" --seqs 1024,2048 \
  --configs 64:128:64,64:64:64,64:64:32,128:128:128,128:64:64,128:64:32 \
  --variants wgmma,wgmma:tmaq=1:recip=1,wgmma:tmaq=1:recip=1:slabs=2
step attention-long 100 "${ATT[@]}" --seqs 4096 --configs 64:128:64,128:128:128 \
  --variants wgmma,wgmma:recip=1,wgmma:tmaq=1:recip=1
echo "total $(( $(date +%s) - T0 )) s"
