# ruff: noqa: E501 (the kernel signature in SCAN is one line, as the parser prints it)
"""The CPU interpreter's speed: wall time of one launch (median of `--reps`), results checked.

    python benchmarks/interpreter.py            # the figures of docs/performance.md
    python benchmarks/interpreter.py --quick    # smaller sizes
    python benchmarks/interpreter.py --examples [--limit 300] [--only NAME ...]
                                                # every example at its GPU size

- vecadd at 2^24 (examples/simt/vecadd.mlir): no barrier, the grid runs in wide groups;
- block_reduce at 10^6 (examples/simt/block_reduce.mlir): shared memory, a barrier per tree
  step, one float atomic per block;
- block scan at 10^6 (`SCAN` below): a 256-thread Hillis-Steele inclusive scan in shared memory,
  two barriers per step, every access race-checked;
- tile row_sum (examples/tile/row_sum.mlir kernel) through its convert-tile-to-simt lowering.

`--examples` runs every example (SIMT and tile, MLIR host programs and Python scripts) on the
interpreter at its GPU size, each in a process of its own (so that one's memory is its own and a
slow one can be stopped at `--limit` seconds), and prints a Markdown table: the wall time of the
whole run (parse, compile, data, the example's own checks against NumPy), the time inside the
interpreter's launches, the peak memory, and whether its checks passed. GPU sizes are those
tests/gpu/test_examples_gpu.py runs the MLIR examples at; a Python example takes its MLIR twin's;
an example with no recorded GPU size runs at its own default and says so.

No timing is asserted anywhere; the figures go to docs/performance.md ("CPU interpreter").
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import runpy
import statistics
import subprocess
import sys
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


# -- every example at its GPU size --------------------------------------------------------------
N = (1 << 24) + 3  # tests/gpu/test_examples_gpu.py's N: not a multiple of any block
SIMT_GPU = {
    "vecadd": {"n": N},
    "vecadd_vec4": {"n": N},
    "vecadd_unchecked": {"n": N},
    "saxpy": {"n": N, "alpha": 2.5},
    "neighbour": {"n": N},
    "transpose": {"rows": 4099, "cols": 2051},
    "sgemm_naive": {"m": 1030, "n": 1050, "k": 1000},
    "sgemm_tiled": {"m": 1030, "n": 1050, "k": 1000},
    "sgemm_micro": {"m": 1030, "n": 1050, "k": 1000},  # as the other SGEMMs (none recorded)
    "warp_reduce": {"n": N + 2},
    "block_reduce": {"n": N + 4},
    "histogram": {"n": 1 << 24, "nbins": 256},
    "gcd": {"n": N},
    "alu": {"n": N},
    "piecewise": {"n": N},
}
TILE_GPU = {
    "vector_add": {"n": 1 << 24, "ragged_n": (1 << 24) + 3001},
    "saxpy": {"n": (1 << 24) + 5},
    "row_sum": {"m": 8197, "n": 4099},
    "softmax": {"m": 65539, "n": 1000},
    "layernorm": {"m": 65539, "n": 1000},
    "transpose": {"m": 4103, "n": 2053},
    "matmul_f32": {"m": 1030, "n": 1050, "k": 1000},
    "matmul_bf16": {"m": 1030, "n": 1050, "k": 1000},
}
PYTHON_GPU = {  # each script's arguments: its MLIR twin's GPU size
    "simt_vecadd": ["--n", str(N)],
    "vecadd_api": ["--n", str(N)],
    "simt_saxpy": ["--n", str(N)],
    "simt_stencil": ["--n", str(N)],
    "simt_warp_reduce": ["--n", str(N + 2)],
    "simt_block_reduce": ["--n", str(N + 4)],
    "simt_histogram": ["--n", str(1 << 24), "--bins", "256"],
    "host_two_streams": ["--n", str(N)],
    "tile_vector_add": ["--n", str((1 << 24) + 3001)],
    "tile_softmax": ["--m", "65539", "--n", "1000"],
    "tile_layernorm": ["--m", "65539", "--n", "1000"],
    "tile_matmul_f32": ["--m", "1030", "--n", "1050", "--k", "1000"],
    "tile_matmul_bf16": ["--m", "1030", "--n", "1050", "--k", "1000"],
}
NEEDS = {"torch_custom_op": "torch"}  # what a script needs beyond ferrox and NumPy


def examples() -> list[tuple[str, str, list[str] | dict | None]]:
    """(kind, name, GPU size or None) of every example, in a stable order."""
    found: list[tuple[str, str, list[str] | dict | None]] = []
    for kind, table in (("simt", SIMT_GPU), ("tile", TILE_GPU)):
        for path in sorted((ROOT / "examples" / kind).glob("*.mlir")):
            found.append((kind, path.stem, table.get(path.stem)))
    for path in sorted((ROOT / "examples" / "python").glob("*.py")):
        found.append(("python", path.stem, PYTHON_GPU.get(path.stem)))
    return found


class Launches:
    """The time spent inside the interpreter's launch entry points (wrapped in place: the host
    runner and ferrox.load import them when they launch)."""

    def __init__(self) -> None:
        import ferrox.driver.interpreter as package
        from ferrox.driver.interpreter import tile_lowered

        self.seconds = 0.0
        self.count = 0
        self._wrap(package, "run_simt_kernel")
        self._wrap(tile_lowered, "run_lowered_tile_kernel")

    def _wrap(self, module, name: str) -> None:
        inner = getattr(module, name)

        def timed_launch(*args, **kwargs):
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.count += 1

        setattr(module, name, timed_launch)


def run_one(kind: str, name: str) -> dict:
    """One example at its GPU size, in this process: a JSON-able row."""
    size = examples_by_name()[(kind, name)]
    launches = Launches()
    start = time.perf_counter()
    with step_budget(10**13), np.errstate(all="ignore"):
        if kind == "python":
            script = ROOT / "examples" / "python" / f"{name}.py"
            argv = PYTHON_GPU.get(name, [])
            sys.argv = [str(script), "--device", "cpu", *argv]
            try:
                runpy.run_path(str(script), run_name="__main__")
                ok = True
            except SystemExit as e:
                ok = e.code in (0, None)
        else:
            from ferrox.run_api import run_program

            result = run_program(
                ROOT / "examples" / kind / f"{name}.mlir",
                device="cpu",
                params=dict(size or {}),
                out=None,
            )
            ok = bool(result.checks) and result.ok
    return {
        "seconds": time.perf_counter() - start,
        "launch_seconds": launches.seconds,
        "launches": launches.count,
        "ok": ok,
    }


def examples_by_name() -> dict:
    return {(kind, name): size for kind, name, size in examples()}


def shown_size(kind: str, size) -> str:
    if size is None:
        return "its default (no GPU size recorded)"
    if kind == "python":
        return " ".join(size)
    return ", ".join(f"{k} = {v}" for k, v in size.items())


def run_examples(limit: int, only: list[str]) -> None:
    """Each example in a child process; a Markdown table row per example as it finishes."""
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} CPUs; "
        f"load average {os.getloadavg()[0]:.1f}; limit {limit} s per example"
    )
    print("| example | size | wall s | in launches s | peak MiB | result |")
    print("|---|---|---|---|---|---|")
    for kind, name, size in examples():
        if only and name not in only and f"{kind}/{name}" not in only:
            continue
        label = f"{kind}/{name}"
        if name in NEEDS:
            print(f"| {label} | - | - | - | - | not run: needs {NEEDS[name]} |", flush=True)
            continue
        child = subprocess.Popen(
            [sys.executable, __file__, "--one", kind, name],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            out, err = child.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            print(
                f"| {label} | {shown_size(kind, size)} | > {limit} | - | - | stopped at the "
                "limit |",
                flush=True,
            )
            continue
        lines = [line for line in out.splitlines() if line.startswith("{")]
        if child.returncode != 0 or not lines:
            why = (err.strip().splitlines() or ["no output"])[-1][:160]
            print(f"| {label} | {shown_size(kind, size)} | - | - | - | failed: {why} |", flush=True)
            continue
        row = json.loads(lines[-1])
        verdict = "checks pass" if row["ok"] else "CHECKS FAILED"
        print(
            f"| {label} | {shown_size(kind, size)} | {row['seconds']:.1f} | "
            f"{row['launch_seconds']:.1f} ({row['launches']}) | {row['peak']:.0f} | {verdict} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--examples", action="store_true", help="every example at its GPU size")
    parser.add_argument("--limit", type=int, default=300, help="seconds per example")
    parser.add_argument("--only", nargs="*", default=[], help="examples by name or kind/name")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "NAME"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        row = run_one(*args.one)
        row["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(row), flush=True)
        return
    if args.examples:
        run_examples(args.limit, args.only)
        return
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
