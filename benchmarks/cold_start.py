"""Cold start: a new process, from its start to the first completed launch of a cached kernel.

    python benchmarks/cold_start.py [--reps 5] [--json OUT.json] [--label NAME]
        [--modes torch numpy phases-torch phases-numpy bindings-torch triton]

Issue 14 asks at most 0.15 s to the first launch, torch's own import aside. Each mode runs
`--reps` new processes (after one more that fills the kernel cache and is not counted) and
reports min / median / max, in milliseconds, of:
- `torch`: the child imports torch, makes three 2^20-element float32 tensors on the GPU (torch's
  CUDA context is made there) and synchronizes; then `import ferrox`, `ferrox.load(vecadd.mlir)`
  (a cache hit) and one checked `k[grid, 256](a, b, out)`, synchronized, the result checked.
  `ferrox` is that last part alone; `after_import` runs from the end of `import torch` (tensors
  included); `torch_import` and `tensors` are torch's own.
- `numpy`: no torch: from the script's first line (the interpreter is up) to the launch done,
  on NumPy arrays (copied in and back, NumPy's import included); `process` is the whole
  process's wall time, from the parent (the interpreter's start included).
- `phases-torch`, `phases-numpy`: the same path as explicit steps, each timed: `import ferrox`,
  the cache hit (`ferrox.compile`), `import cuda.bindings.driver`, `import cuda.core`, ferrox's
  runtime and checker imports, the device probe (cuInit), the context and limits, the module
  load (cubin or PTX), the first launch.
- `bindings-torch`: a floor, not ferrox: after torch's tensors, the same cubin (from ferrox's
  cache) loaded and launched through cuda.bindings alone (no cuda.core, no checks).
- `triton`: the peer, after torch's tensors: `import triton` and a cached `@triton.jit` vector
  add, launched once and synchronized (its cache filled by the uncounted run).

Each child also reports which modules of xDSL, the lowering or llvmlite it imported, and whether
the module was loaded from its cubin (no PTX JIT by the driver). The children are files in a
temporary folder (never the checkout on sys.path), so `ferrox` is the installed one: put another
install first on PYTHONPATH to measure it. Needs a GPU. A benchmark, never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
HEAVY = ("xdsl", "ferrox.lowering", "ferrox.dialects", "ferrox.passes", "ferrox.parser", "llvmlite")

_COMMON = """
import time
T0 = time.perf_counter()
import json, sys
MARKS = []
def mark(name):
    MARKS.append((name, time.perf_counter()))
def heavy():
    return sorted({m.split(".")[0] if m.startswith("xdsl") else m for m in sys.modules
                   if m.startswith(HEAVY)})
HEAVY = tuple(sys.argv[2].split(","))
PATH = sys.argv[1]
N = 1 << 20
def tensors():
    import torch
    mark("torch_import")
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.rand(N, device="cuda", generator=g)
    b = torch.rand(N, device="cuda", generator=g)
    out = torch.full((N,), float("nan"), device="cuda")
    torch.cuda.synchronize()
    mark("tensors")
    return torch, a, b, out
def report(**more):
    steps, last = {}, T0
    for name, t in MARKS:
        steps[name] = (t - last) * 1000
        last = t
    print(json.dumps({"steps": steps, "total": (last - T0) * 1000, "heavy": heavy(), **more}))
"""

CHILDREN = {
    "torch": """
torch, a, b, out = tensors()
import ferrox
module = ferrox.load(PATH)
module["vecadd"][(N + 255) // 256, 256](a, b, out)
torch.cuda.synchronize()
mark("ferrox")
assert torch.equal(out, a + b)
report(device=module.device, cubin=module._device.loaded.is_cubin)
""",
    "numpy": """
import numpy as np
import ferrox
rng = np.random.default_rng(1)
a, b = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
out = np.full(N, np.nan, dtype=np.float32)
module = ferrox.load(PATH)
module["vecadd"][(N + 255) // 256, 256](a, b, out)
mark("ferrox")
assert np.array_equal(out, a + b)
report(device=module.device, cubin=module._device.loaded.is_cubin)
""",
    "phases": """
if sys.argv[3] == "torch":
    torch, a, b, out = tensors()
else:
    import numpy as np
    mark("import numpy")
    rng = np.random.default_rng(1)
    a, b = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    out = np.full(N, np.nan, dtype=np.float32)
import ferrox.api
from ferrox.targets import cache
mark("import ferrox")
cache.toolchain_versions()
mark("key: toolchain memo")
cache.plugins_fingerprint()
mark("key: plugins")
artifact = ferrox.compile(PATH, chip="sm_90")
mark("cache hit")
import cuda.bindings.driver
mark("import cuda.bindings.driver")
import cuda.core
mark("import cuda.core")
import ferrox.loaded
from ferrox.driver.runtime import launcher
mark("import runtime, checker")
from ferrox.driver.runtime.device import device_limits, unavailable_reason
assert unavailable_reason(0) is None
mark("device probe")
limits = device_limits(0)
mark("context, limits")
module = ferrox.load(artifact)
kernel = module["vecadd"]
mark("module load")
kernel[(N + 255) // 256, 256](a, b, out)
if sys.argv[3] == "torch":
    torch.cuda.synchronize()
    mark("first launch")
    assert torch.equal(out, a + b)
else:
    mark("first launch")
    assert np.array_equal(out, a + b)
report(device=module.device, cubin=module._device.loaded.is_cubin, chip=limits.chip)
""",
    "bindings": """
torch, a, b, out = tensors()
import base64, ctypes
from cuda.bindings import driver as cu
mark("import cuda.bindings.driver")
def ok(result):
    err, *rest = result
    assert err == cu.CUresult.CUDA_SUCCESS, err
    return rest[0] if len(rest) == 1 else rest
ok(cu.cuInit(0))
dev = ok(cu.cuDeviceGet(0))
ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
ok(cu.cuCtxSetCurrent(ctx))
mark("context")
import ferrox
artifact = ferrox.compile(PATH, chip="sm_90")
mark("import ferrox, cache hit")
lib = ok(cu.cuLibraryLoadData(artifact.cubin, [], [], 0, [], [], 0))
kern = ok(cu.cuLibraryGetKernel(lib, b"vecadd"))
mark("module load")
slots = (ctypes.c_uint64 * 6)(a.data_ptr(), N, b.data_ptr(), N, out.data_ptr(), N)
params = (ctypes.c_void_p * 6)(*(ctypes.addressof(slots) + 8 * i for i in range(6)))
stream = cu.CUstream(torch.cuda.current_stream().cuda_stream)
ok(cu.cuLaunchKernel(cu.CUfunction(int(kern)), (N + 255) // 256, 1, 1, 256, 1, 1, 0, stream,
                     ctypes.addressof(params), 0))
torch.cuda.synchronize()
mark("first launch")
assert torch.equal(out, a + b)
report(device="gpu", cubin=True)
""",
    "triton": """
torch, a, b, out = tensors()
import triton
import triton.language as tl
mark("import triton")
@triton.jit
def add(x, y, z, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(z + i, tl.load(x + i, mask=i < n) + tl.load(y + i, mask=i < n), mask=i < n)
add[((N + 1023) // 1024,)](a, b, out, N, BLOCK=1024)
torch.cuda.synchronize()
mark("first launch")
assert torch.equal(out, a + b)
report(device="gpu")
""",
}

MODES = {  # mode: (child, its extra argument)
    "torch": ("torch", ""),
    "numpy": ("numpy", ""),
    "phases-torch": ("phases", "torch"),
    "phases-numpy": ("phases", "numpy"),
    "bindings-torch": ("bindings", ""),
    "triton": ("triton", ""),
}


def run_child(folder: Path, mode: str) -> dict:
    child, extra = MODES[mode]
    script = folder / f"cold_{child}.py"
    if not script.exists():
        script.write_text(_COMMON + CHILDREN[child])
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, str(script), str(VECADD), ",".join(HEAVY), extra],
        capture_output=True,
        text=True,
        cwd=folder,
    )
    wall = (time.perf_counter() - start) * 1000
    if out.returncode != 0:
        raise RuntimeError(f"{mode}: {out.stderr[-3000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["process"] = wall
    return result


def summary(runs: list[dict]) -> dict:
    """min / median / max of each measured figure over the runs."""
    figures: dict[str, list[float]] = {"process": [r["process"] for r in runs]}
    figures["total"] = [r["total"] for r in runs]
    for name in runs[0]["steps"]:
        figures[name] = [r["steps"][name] for r in runs]
    if "tensors" in runs[0]["steps"]:  # from the end of torch's import to the launch done
        figures["after_import"] = [r["total"] - r["steps"]["torch_import"] for r in runs]
    out = {
        name: {
            "min": round(min(v), 1),
            "median": round(statistics.median(v), 1),
            "max": round(max(v), 1),
        }
        for name, v in figures.items()
    }
    last = runs[-1]
    out["facts"] = {k: last[k] for k in ("heavy", "device", "cubin", "chip") if k in last}
    return out


def python_startup(reps: int) -> dict:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((time.perf_counter() - start) * 1000)
    return {"min": round(min(times), 1), "median": round(statistics.median(times), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--modes", nargs="*", default=["torch", "numpy", "phases-torch"])
    parser.add_argument("--label", default="")
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ferrox-cold-"))
    os.environ.setdefault("FERROX_CACHE_DIR", str(folder / "cache"))
    os.environ.setdefault("TRITON_CACHE_DIR", str(folder / "triton"))
    result: dict = {"label": args.label, "python": sys.version.split()[0], "reps": args.reps}
    result["python_startup_ms"] = python_startup(args.reps)
    print(f"[{args.label}] python -c pass: {result['python_startup_ms']}")
    for mode in args.modes:
        run_child(folder, mode)  # fills the kernel cache (and Triton's), writes .pyc files
        runs = [run_child(folder, mode) for _ in range(args.reps)]
        result[mode] = summary(runs)
        shown = {k: v["median"] for k, v in result[mode].items() if k != "facts"}
        print(f"[{args.label}] {mode}: median ms {shown}  {result[mode]['facts']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
