# ruff: noqa: E501 (the kernel signature in SCAN is one line, as the parser prints it)
"""The CPU interpreter's speed: wall time of one launch (median of `--reps`), results checked.

    python benchmarks/interpreter.py            # the figures of docs/performance.md
    python benchmarks/interpreter.py --quick    # smaller sizes

- vecadd at 2^24 (examples/simt/vecadd.mlir): no barrier, the grid runs in wide groups;
- block_reduce at 10^6 (examples/simt/block_reduce.mlir): shared memory, a barrier per tree
  step, one float atomic per block;
- block scan at 10^6 (`SCAN` below): a 256-thread Hillis-Steele inclusive scan in shared memory,
  two barriers per step, every access race-checked;
- tile row_sum (examples/tile/row_sum.mlir kernel) through its convert-tile-to-simt lowering.

No timing is asserted anywhere; the figures go to docs/performance.md ("CPU interpreter").
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from ferrox.driver.interpreter import run_simt_kernel, step_budget
from ferrox.driver.interpreter.tile_lowered import run_lowered_tile_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.verify import verify_module

ROOT = Path(__file__).resolve().parents[1]

SCAN = """builtin.module {
  simt.kernel @scan(%in: !simt.slice<i32>, %out: !simt.disjoint_slice<i32, 1d>) contract<domain = 1, block = [256]> {
    %tile = simt.shared_alloc : !simt.shared<i32, [256]>
    %zero = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %tid = simt.thread_id x
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %n = simt.len %in : !simt.slice<i32>
    %inb = arith.cmpi ult, %i, %n : index
    %v = scf.if %inb -> (i32) {
      %x = simt.load %in[%i] : !simt.slice<i32>
      scf.yield %x : i32
    } else {
      scf.yield %zero : i32
    }
    simt.unsafe {
      simt.shared_store %v, %tile[%tid] : !simt.shared<i32, [256]>
      simt.yield
    }
    simt.sync_threads
    scf.for %step = %c0 to %c8 step %c1 {
      %d = arith.shli %c1, %step : index
      %has = arith.cmpi uge, %tid, %d : index
      %mine = simt.unsafe -> i32 {
        %m = simt.shared_load %tile[%tid] : !simt.shared<i32, [256]>
        simt.yield %m : i32
      }
      %sum = scf.if %has -> (i32) {
        %j = arith.subi %tid, %d : index
        %o = simt.unsafe -> i32 {
          %p = simt.shared_load %tile[%j] : !simt.shared<i32, [256]>
          simt.yield %p : i32
        }
        %s = arith.addi %mine, %o : i32
        scf.yield %s : i32
      } else {
        scf.yield %mine : i32
      }
      simt.sync_threads
      simt.unsafe {
        simt.shared_store %sum, %tile[%tid] : !simt.shared<i32, [256]>
        simt.yield
      }
      simt.sync_threads
    }
    %r = simt.unsafe -> i32 {
      %t = simt.shared_load %tile[%tid] : !simt.shared<i32, [256]>
      simt.yield %t : i32
    }
    simt.get_mut %out[%w] : !simt.disjoint_slice<i32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: i32):
      simt.yield %r : i32
    }
    simt.return
  }
}
"""


def _module(text: str, name: str):
    module = parse_module(make_context(), text, name)
    verify_module(module)
    return module


def _example(path: str):
    return _module((ROOT / path).read_text(), path)


def timed(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def vecadd(n: int, reps: int) -> dict:
    module = _example("examples/simt/vecadd.mlir")
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    seconds = timed(
        lambda: run_simt_kernel(module, "vecadd", (-(-n // 256), 1, 1), (256, 1, 1), [a, b, out]),
        reps,
    )
    assert np.array_equal(out, a + b)
    return {"kernel": "vecadd", "n": n, "seconds": seconds}


def block_reduce(n: int, reps: int) -> dict:
    module = _example("examples/simt/block_reduce.mlir")
    x = np.random.default_rng(2).uniform(0, 1, n).astype(np.float32)
    total = np.zeros(1, np.float32)

    def run() -> None:
        total[0] = 0
        run_simt_kernel(module, "block_reduce", (-(-n // 256), 1, 1), (256, 1, 1), [x, total])

    seconds = timed(run, reps)
    assert abs(float(total[0]) - float(x.sum(dtype=np.float64))) <= 1e-4 * n
    return {"kernel": "block_reduce", "n": n, "seconds": seconds}


def block_scan(n: int, reps: int) -> dict:
    module = _module(SCAN, "scan.mlir")
    x = np.random.default_rng(3).integers(-1000, 1000, n).astype(np.int32)
    out = np.full(n, -7, np.int32)
    blocks = -(-n // 256)
    seconds = timed(
        lambda: run_simt_kernel(module, "scan", (blocks, 1, 1), (256, 1, 1), [x, out]), reps
    )
    padded = np.zeros(blocks * 256, np.int64)
    padded[:n] = x
    want = np.cumsum(padded.reshape(blocks, 256), axis=1).reshape(-1)[:n]
    assert np.array_equal(out, want.astype(np.int32))
    return {"kernel": "block_scan", "n": n, "seconds": seconds}


def row_sum(m: int, n: int, reps: int) -> dict:
    module = _example("examples/tile/row_sum.mlir")
    x = np.random.default_rng(4).standard_normal((m, n), dtype=np.float32)
    out = np.full(m, np.nan, np.float32)
    seconds = timed(lambda: run_lowered_tile_kernel(module, "row_sum", [out, x]), reps)
    np.testing.assert_allclose(out, x.sum(axis=1, dtype=np.float64), rtol=1e-4, atol=1e-3)
    return {"kernel": "tile row_sum (lowered)", "n": f"{m}x{n}", "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    big = 1 << 20 if args.quick else 1 << 24
    mid = 10**5 if args.quick else 10**6
    print(f"{os.cpu_count()} CPUs; median of {args.reps}")
    with step_budget(10**12), np.errstate(all="ignore"):
        for row in (
            vecadd(big, args.reps),
            block_reduce(mid, args.reps),
            block_scan(mid, args.reps),
            row_sum(1000, 1000, args.reps),
        ):
            print(f"{row['kernel']:<24} n = {row['n']:<10} {row['seconds']:.2f} s")


if __name__ == "__main__":
    main()
