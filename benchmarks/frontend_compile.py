"""Python frontend cost: compiling a Python kernel against compiling its MLIR twin (issue 11).

    python benchmarks/frontend_compile.py [--reps 5] [--json OUT.json]

For each kernel of examples/python that has an MLIR example twin, in a warm process (imports
done, LLVM's worker started, the kernel compiled once), the median of `--reps` fresh compiles,
never from the cache:
- `python`: the frontend builds the module from the function's AST, then
  `ferrox.compile(module, cache=False)`;
- `text`: the same kernel's IR as text (`kernel.ir()`, what the frontend printed), parsed and
  compiled by `ferrox.compile(text, cache=False)`: the twin with the same ops;
- `file`: the MLIR example file, `ferrox.compile(path, cache=False)` (it holds the host program
  too, so it verifies more than the kernel alone).
The ratios `python / text` and `python / file` are the figures; the issue asks for at most 1.2.
`build` is the frontend's own share (AST to verified module). CPU only; a benchmark, never a
test.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ferrox

ROOT = Path(__file__).resolve().parent.parent

# (examples/python file, kernel name, examples/*.mlir twin)
PAIRS = [
    ("simt_vecadd.py", "vecadd", "simt/vecadd.mlir"),
    ("simt_saxpy.py", "saxpy", "simt/saxpy.mlir"),
    ("simt_stencil.py", "neighbour", "simt/neighbour.mlir"),
    ("simt_block_reduce.py", "block_reduce", "simt/block_reduce.mlir"),
    ("simt_warp_reduce.py", "warp_reduce", "simt/warp_reduce.mlir"),
    ("simt_histogram.py", "histogram", "simt/histogram.mlir"),
    ("simt_sgemm.py", "sgemm_tiled", "simt/sgemm_tiled.mlir"),
    ("simt_sgemm_micro.py", "sgemm_micro", "simt/sgemm_micro.mlir"),
    ("tile_vector_add.py", "vector_add", "tile/vector_add.mlir"),
    ("tile_softmax.py", "softmax", "tile/softmax.mlir"),
    ("tile_layernorm.py", "layernorm", "tile/layernorm.mlir"),
    ("tile_matmul_f32.py", "matmul", "tile/matmul_f32.mlir"),
]


def _load(file: str) -> Any:
    path = ROOT / "examples" / "python" / file
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _median_ms(fn: Callable[[], Any], reps: int) -> float:
    fn()  # warm: the first compile of a kind loads what later ones reuse
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def measure(file: str, name: str, twin: str, chip: str, reps: int) -> dict[str, Any]:
    kernel = getattr(_load(file), name)
    text = kernel.ir()
    path = ROOT / "examples" / twin
    row: dict[str, Any] = {"kernel": f"{file}:{name}", "twin": twin}
    row["build"] = _median_ms(kernel.module, reps)
    row["python"] = _median_ms(lambda: ferrox.compile(kernel.module(), chip, cache=False), reps)
    row["text"] = _median_ms(lambda: ferrox.compile(text, chip, cache=False), reps)
    row["file"] = _median_ms(lambda: ferrox.compile(path, chip, cache=False), reps)
    row["python/text"] = row["python"] / row["text"]
    row["python/file"] = row["python"] / row["file"]
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = []
    print(
        f"{'kernel':34} {'build':>7} {'python':>8} {'text':>8} {'file':>8} "
        f"{'py/text':>8} {'py/file':>8}   (ms, median of {args.reps})"
    )
    for file, name, twin in PAIRS:
        row = measure(file, name, twin, args.chip, args.reps)
        rows.append(row)
        print(
            f"{row['kernel']:34} {row['build']:7.1f} {row['python']:8.1f} {row['text']:8.1f} "
            f"{row['file']:8.1f} {row['python/text']:8.2f} {row['python/file']:8.2f}",
            flush=True,
        )
    worst = max(r["python/text"] for r in rows)
    print(f"worst python/text ratio: {worst:.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
