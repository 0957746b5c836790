"""A new kernel against the peers, side by side in one process: from its source text to its
first launch completed, for ferrox, CuPy, Triton and numba-cuda.

    python benchmarks/compile_peers.py [--reps 9] [--kernels vecadd transpose] [--json OUT]

Issue 14 asks ferrox to compile a new kernel faster than CuPy. Its 25 ms target came from
peer figures taken once on an earlier host (CuPy 28 ms, numba-cuda 48, Triton 67); the hosts
lent since differ by up to 1.9x in plain Python speed, so this measures the peers beside
ferrox, in turn, on the host at hand, and reports ratios.

Each tool gets the same job for each kernel: `vecadd` (out = a + b, 2^20 float32) and
`transpose` (a 1000 x 777 float32 matrix through a 32 x 33 shared tile; Triton's version is
its own block transpose, as a Triton user writes it). Timed: from the source text to the
first launch completed (`torch.cuda.synchronize()`), so each tool's compile, its module load
(the driver's JIT of PTX where a tool hands it PTX) and its first launch are in, and nothing
is left for later. ferrox: `ferrox.compile(text, chip, cache=False)` of the example's kernel
alone (without its host program), `ferrox.load`, one checked launch on torch tensors. CuPy: a
`RawKernel` of CUDA C, launched. Triton: a `@triton.jit` function from a new file, launched.
numba-cuda: a `@cuda.jit` function from new source, launched.

No cache of any tool can serve a rep: each rep's kernel or function has a name of its own (the
process's id and the rep's number; for CuPy a comment in the source), ferrox compiles with
`cache=False` (and its runtime's table of loaded modules sees a new image), and CuPy and
Triton write to empty cache folders of this run. Each tool compiles each kernel once first,
untimed (imports, contexts, worker processes); then the tools take turns within each rep, and
each time is printed as it is taken. Every launch's output is poisoned with NaN first and
compared with torch's result after the launch (outside the timing). Reports min and median
ms, and each peer's minimum over ferrox's (above 1, ferrox is faster). Needs a GPU and torch;
a peer that fails to import or compile, then or in a rep, is reported and left out. A
benchmark, never a test.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N = 1 << 20
ROWS, COLS = 1000, 777
KERNELS = ("vecadd", "transpose")
SHAPES = {"vecadd": (N,), "transpose": (ROWS, COLS)}


def ferrox_kernel_text(name: str, rep: str) -> str:
    """The example's kernel alone (between its `doc:begin` and `doc:end` marks), in a module,
    renamed `@{name}_{rep}`: a comment would not do, as the parser drops it, and the same
    artifact would be loaded from the runtime's table of loaded modules after the first rep."""
    text = (ROOT / "examples" / "simt" / f"{name}.mlir").read_text()
    body = text.split(f"// doc:begin {name}\n", 1)[1].split("// doc:end", 1)[0]
    body = body.replace(f"simt.kernel @{name}(", f"simt.kernel @{name}_{rep}(", 1)
    return f"builtin.module {{\n{body}}}\n"


CUDA = {
    "vecadd": """// rep {rep}
extern "C" __global__ void vecadd(const float* a, const float* b, float* out, long long n) {{
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}}
""",
    "transpose": """// rep {rep}
extern "C" __global__ void transpose(const float* in, float* out, long long rows,
                                     long long cols) {{
  __shared__ float tile[32][33];
  long long in_row = (long long)blockIdx.x * 32 + threadIdx.y;
  long long in_col = (long long)blockIdx.y * 32 + threadIdx.x;
  tile[threadIdx.y][threadIdx.x] =
      (in_row < rows && in_col < cols) ? in[in_row * cols + in_col] : 0.0f;
  __syncthreads();
  long long out_row = (long long)blockIdx.y * 32 + threadIdx.y;
  long long out_col = (long long)blockIdx.x * 32 + threadIdx.x;
  if (out_row < cols && out_col < rows)
    out[out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y];
}}
""",
}

TRITON = {
    "vecadd": """import triton
import triton.language as tl

@triton.jit
def vecadd_{rep}(a, b, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(out + i, tl.load(a + i, mask=m) + tl.load(b + i, mask=m), mask=m)

kernel = vecadd_{rep}
""",
    "transpose": """import triton
import triton.language as tl

@triton.jit
def transpose_{rep}(x, y, rows, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)[:, None]
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)[None, :]
    m = (r < rows) & (c < cols)
    tl.store(y + c * rows + r, tl.load(x + r * cols + c, mask=m), mask=m)

kernel = transpose_{rep}
""",
}

NUMBA = {
    "vecadd": """
def vecadd_{rep}(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]
""",
    "transpose": """
def transpose_{rep}(x, y, rows, cols):
    tile = cuda.shared.array((32, 33), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    in_row = cuda.blockIdx.x * 32 + ty
    in_col = cuda.blockIdx.y * 32 + tx
    tile[ty, tx] = x[in_row * cols + in_col] if in_row < rows and in_col < cols else float32(0)
    cuda.syncthreads()
    out_row = cuda.blockIdx.y * 32 + ty
    out_col = cuda.blockIdx.x * 32 + tx
    if out_row < cols and out_col < rows:
        y[out_row * rows + out_col] = tile[tx, ty]
""",
}


class Data:
    """The inputs, the outputs each launch writes (poisoned before it) and torch's results."""

    def __init__(self, torch):
        g = torch.Generator(device="cuda").manual_seed(7)
        self.a = torch.rand(N, device="cuda", generator=g)
        self.b = torch.rand(N, device="cuda", generator=g)
        self.x = torch.rand(ROWS * COLS, device="cuda", generator=g)
        self.inputs = {"vecadd": (self.a, self.b), "transpose": (self.x,)}
        self.outs = {k: torch.empty(math.prod(s), device="cuda") for k, s in SHAPES.items()}
        self.want = {"vecadd": self.a + self.b, "transpose": self.x.view(ROWS, COLS).t().flatten()}

    def output(self, kernel: str):
        out = self.outs[kernel]
        out.fill_(float("nan"))
        return out

    def check(self, torch, kernel: str) -> bool:
        return bool(torch.equal(self.outs[kernel], self.want[kernel]))


def launch_config(kernel: str, shape: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(grid, block) of the CUDA-style kernels over `shape`: vecadd's (n,), one thread an
    element in blocks of 256; transpose's (rows, cols), a 32 x 32 block a tile of the output."""
    if kernel == "vecadd":
        return (-(-shape[0] // 256),), (256,)
    rows, cols = shape
    return (-(-rows // 32), -(-cols // 32)), (32, 32)


def launch_ferrox(k, kernel: str, inputs: tuple, out, shape: tuple[int, ...]) -> None:
    """One checked launch of the loaded example kernel `k` over `shape`, with its sizes after
    the arrays where it takes them (transpose's rows and cols)."""
    grid, block = launch_config(kernel, shape)
    k[grid, block](*inputs, out, *(shape if kernel == "transpose" else ()))


def ferrox_tool(torch, data: Data, scratch: Path) -> Callable[[str, str], None]:
    import ferrox
    from ferrox.driver.runtime.device import device_limits

    chip = device_limits(0).chip

    def run(kernel: str, rep: str) -> None:
        artifact = ferrox.compile(ferrox_kernel_text(kernel, rep), chip=chip, cache=False)
        k = ferrox.load(artifact)[f"{kernel}_{rep}"]
        launch_ferrox(k, kernel, data.inputs[kernel], data.output(kernel), SHAPES[kernel])

    return run


def cupy_tool(torch, data: Data, scratch: Path) -> Callable[[str, str], None]:
    import cupy

    # CuPy's views of the same memory, and each kernel's sizes as the CUDA C takes them
    inputs = {k: tuple(cupy.asarray(t) for t in ts) for k, ts in data.inputs.items()}
    outs = {k: cupy.asarray(t) for k, t in data.outs.items()}
    sizes = {"vecadd": (cupy.int64(N),), "transpose": (cupy.int64(ROWS), cupy.int64(COLS))}

    def run(kernel: str, rep: str) -> None:
        k = cupy.RawKernel(CUDA[kernel].format(rep=rep), kernel)
        data.output(kernel)
        grid, block = launch_config(kernel, SHAPES[kernel])
        k(grid, block, (*inputs[kernel], outs[kernel], *sizes[kernel]))

    return run


def triton_tool(torch, data: Data, scratch: Path) -> Callable[[str, str], None]:
    import triton  # noqa: F401  (its import is not the compile's)

    def run(kernel: str, rep: str) -> None:
        path = scratch / f"triton_{kernel}_{rep}.py"
        path.write_text(TRITON[kernel].format(rep=rep))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out = data.output(kernel)
        if kernel == "vecadd":
            module.kernel[(N // 1024,)](data.a, data.b, out, N, BLOCK=1024)
        else:  # a program a 32 x 32 tile, as the CUDA-style kernels' blocks
            grid, _ = launch_config(kernel, SHAPES[kernel])
            module.kernel[grid](data.x, out, ROWS, COLS, BLOCK=32)

    return run


def numba_tool(torch, data: Data, scratch: Path) -> Callable[[str, str], None]:
    import numpy as np

    if not hasattr(np, "row_stack"):  # numba-cuda 0.30 with NumPy 2.5 (shared/gpu/README.md)
        np.row_stack = np.vstack
    from numba import cuda, float32

    inputs = {k: tuple(cuda.as_cuda_array(t) for t in ts) for k, ts in data.inputs.items()}
    outs = {k: cuda.as_cuda_array(t) for k, t in data.outs.items()}
    sizes = {"vecadd": (), "transpose": (ROWS, COLS)}  # (numba's vecadd reads out.size)

    def run(kernel: str, rep: str) -> None:
        scope: dict = {"cuda": cuda, "float32": float32}
        exec(NUMBA[kernel].format(rep=rep), scope)
        k = cuda.jit(scope[f"{kernel}_{rep}"])
        data.output(kernel)
        grid, block = launch_config(kernel, SHAPES[kernel])
        k[grid, block](*inputs[kernel], outs[kernel], *sizes[kernel])

    return run


def _left_out(name: str, e: Exception) -> None:
    """Say why a tool is left out: its error's first line (ferrox's whole traceback)."""
    first = (str(e).splitlines() or [""])[0][:200]
    print(f"{name}: left out ({type(e).__name__}: {first})", flush=True)
    if name == "ferrox":
        traceback.print_exc()


TOOLS = {"ferrox": ferrox_tool, "CuPy": cupy_tool, "Triton": triton_tool, "numba-cuda": numba_tool}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--kernels", nargs="+", choices=KERNELS, default=list(KERNELS))
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()
    # This run's own empty cache folders, and names no earlier run used (the process's id):
    # neither CuPy's nor Triton's disk cache can hold a rep's kernel.
    scratch = Path(tempfile.mkdtemp(prefix="compile-peers-"))
    os.environ["CUPY_CACHE_DIR"] = str(scratch / "cupy")
    os.environ["TRITON_CACHE_DIR"] = str(scratch / "triton")
    run_id = f"p{os.getpid()}"
    import torch

    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, reps {args.reps}")
    data = Data(torch)
    tools: dict[str, Callable[[str, str], None]] = {}
    wrong: list[str] = []
    for name, make in TOOLS.items():
        try:
            run = make(torch, data, scratch)
            for kernel in args.kernels:  # untimed: imports, contexts, workers
                run(kernel, f"{run_id}_w{len(tools)}")
                torch.cuda.synchronize()
                if not data.check(torch, kernel):
                    wrong.append(f"{name} {kernel} (warm-up)")
            tools[name] = run
        except Exception as e:  # a peer missing or broken on this host: said, left out
            _left_out(name, e)
    if "ferrox" not in tools:
        sys.exit("ferrox itself failed; nothing to compare")
    times: dict[tuple[str, str], list[float]] = {}
    order = list(tools)
    for rep in range(args.reps):
        turn = [n for n in order[rep % len(order) :] + order[: rep % len(order)] if n in tools]
        for kernel in args.kernels:
            for name in turn:
                if name not in tools:  # (failed in this rep's other kernel)
                    continue
                torch.cuda.synchronize()
                start = time.perf_counter()
                try:
                    tools[name](kernel, f"{run_id}_r{rep}")
                    torch.cuda.synchronize()
                except Exception as e:  # dropped from here on, saying why
                    _left_out(name, e)
                    del tools[name]
                    if name == "ferrox":
                        sys.exit("ferrox itself failed; nothing to compare")
                    continue
                took = 1e3 * (time.perf_counter() - start)
                times.setdefault((kernel, name), []).append(took)
                print(f"rep {rep} {kernel:10} {name:11} {took:8.1f} ms", flush=True)
                if not data.check(torch, kernel):
                    wrong.append(f"{name} {kernel} rep {rep}")
    print(f"{'kernel':10} {'tool':11} {'min ms':>8} {'median':>8} {'peer/ferrox':>12}")
    rows = []
    for kernel in args.kernels:
        base = min(times[(kernel, "ferrox")])
        for name in order:
            t = times.get((kernel, name))
            if not t:
                continue
            ratio = min(t) / base
            row = {"kernel": kernel, "tool": name, "min_ms": min(t)}
            rows.append(row | {"median_ms": statistics.median(t), "ratio_to_ferrox": ratio})
            shown = "" if name == "ferrox" else f"{ratio:.2f}"
            print(f"{kernel:10} {name:11} {min(t):8.1f} {statistics.median(t):8.1f} {shown:>12}")
    print("every output equal to torch's:", "yes" if not wrong else f"NO: {', '.join(wrong)}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "wrong": wrong}, indent=2))


if __name__ == "__main__":
    main()
