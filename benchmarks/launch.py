"""Launch overhead: host time per call of an empty kernel with 4 PTX parameters, every way.

    python benchmarks/launch.py [--calls 100] [--batches 300]
    python benchmarks/launch.py --dispatch    # the checked relaunch's own Python, no GPU

Each row launches the same kind of kernel (two slices: pointer, length, pointer, length; an
empty body) on the legacy default stream: ferrox's packed fast path (`launch_packed`),
ferrox's `launch` with values (DeviceArrays; torch tensors on torch's current stream, read
from the tensor; torch tensors launched on another stream, viewed through cuda.core's
StridedMemoryView so the streams are ordered), cuda.core's `launch` directly (Python ints),
cuda.bindings' cuLaunchKernel with pre-packed parameters, CuPy's RawKernel, a small
`torch.add`, and Triton when it is installed.
The checked API rows: the same arguments each call (a relaunch from the memo of launches the
checker passed, the aliasing rule run again on the addresses), other tensors of the same
shapes each call (512 pairs in turn), DeviceArrays, torch's current stream given explicitly
(a relaunch too) and another stream (checked in full every call), and the memo entry's
prepared driver call alone (what a relaunch does once its checks passed); a
`@ferrox.simt.kernel` called again beside the same kernel's IR through `ferrox.load`. Then the
memo's rows again with the driver call stubbed (what the host's Python and torch's reads
cost), and what each torch read costs. Last, checked launches are captured in a CUDA graph
with `torch.cuda.graph`, replayed, and the result compared with torch's. The bare ctypes
`cuLaunchKernelEx` row is timed again after what a torch relaunch reads, and after a spin as
long (`spaced_rows`): whether host work between driver calls makes the call dearer. CuPy arrays
go through the checked API too (their relaunch). `benchmarks/launch_host.py` times the host
part of every path with no GPU.
Only the launch calls are timed (they return before the kernel runs); the rows take turns
batch by batch and the device is synchronised between batches. The figure is the median over
batches of the mean per call, in microseconds, with its ratio to cuda.core's `launch`. A
benchmark, never a test.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ferrox import simt, tile
from ferrox.driver.runtime.buffers import DeviceArray
from ferrox.driver.runtime.device import device_limits, synchronize
from ferrox.driver.runtime.launcher import LoadedModule
from ferrox.driver.runtime.streams import LEGACY, Stream
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.simt import DisjointSlice, Slice, f32
from ferrox.targets.compile import compile_module
from ferrox.tile import Partition as TilePartition
from ferrox.tile import Tensor as TileTensor
from ferrox.verify import verify_module

EMPTY = """
builtin.module {
  simt.kernel @empty(%a: !simt.slice<f32>, %b: !simt.slice<f32>)
      contract<domain = 1, block = [32]> {
    simt.return
  }
}
"""

CUDA_EMPTY = 'extern "C" __global__ void empty(float* a, long long n, float* b, long long m) {}'


def ferrox_rows(n: int) -> tuple[dict[str, Callable[[], None]], object]:
    module = parse_module(make_context(), EMPTY, "empty.mlir")
    verify_module(module)
    artifact = compile_module(module, chip=device_limits(0).chip)
    kernel = LoadedModule.load(artifact).kernel("empty")
    a = DeviceArray.from_numpy(np.zeros(n, np.float32))
    b = DeviceArray.from_numpy(np.zeros(n, np.float32))
    packed = kernel.pack([a, b])
    grid, block = (1, 1, 1), (32, 1, 1)
    rows = {
        "ferrox launch_packed (fast path)": lambda: kernel.launch_packed(grid, block, packed),
        "ferrox launch, DeviceArrays": lambda: kernel.launch(grid, block, [a, b]),
    }
    return rows, (artifact, kernel, a, b)


def cuda_core_row(artifact, a, b) -> dict[str, Callable[[], None]]:
    from cuda.core import LEGACY_DEFAULT_STREAM, LaunchConfig, ObjectCode, launch

    kernel = ObjectCode.from_ptx(artifact.ptx.encode()).get_kernel("empty")
    config = LaunchConfig(grid=1, block=32)
    pa, pb, n = a.ptr, b.ptr, a.size
    return {
        "cuda.core launch (ints packed per call)": lambda: launch(
            LEGACY_DEFAULT_STREAM, config, kernel, pa, n, pb, n
        )
    }


def cuda_bindings_row(kernel, a, b) -> dict[str, Callable[[], None]]:
    from cuda.bindings import driver as cu

    values = [ctypes.c_uint64(a.ptr), ctypes.c_int64(a.size)]
    values += [ctypes.c_uint64(b.ptr), ctypes.c_int64(b.size)]
    array = (ctypes.c_void_p * 4)(*[ctypes.addressof(v) for v in values])
    address = ctypes.addressof(array)
    function = cu.CUfunction(int(kernel.core.handle))  # a CUkernel launches as a CUfunction
    stream = cu.CUstream(1)

    def run() -> None:
        cu.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, address, 0)

    run.keep = (values, array)  # type: ignore[attr-defined]  # what `address` points into
    (status,) = cu.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, address, 0)
    if status != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"the cuda.bindings row's launch failed: {status!r}")
    return {"cuda.bindings cuLaunchKernel (pre-packed)": run}


def ctypes_ex_row(kernel, a, b) -> dict[str, Callable[[], None]]:
    """The driver's `cuLaunchKernelEx` through ctypes with a config and four pointers made once
    (what the memo's prepared launch calls), no Python around it: beside the cuda.bindings row,
    what each way of calling the driver costs."""
    from ferrox.driver.runtime import launcher

    launch_ex = launcher._driver_launch_ex()
    if not launch_ex:
        return {}
    packed = kernel.pack([a, b])
    config = launcher._LaunchConfig((1, 1, 1), (32, 1, 1), 0, LEGACY, None, 0)
    pointers = (
        ctypes.pointer(config),
        ctypes.c_void_p(int(kernel.core.handle)),
        ctypes.c_void_p(packed.address),
        None,
    )

    def run() -> None:
        launch_ex(*pointers)

    run.keep = packed  # type: ignore[attr-defined]  # what the pointers point into
    status = launch_ex(*pointers)
    if status:
        raise RuntimeError(f"the ctypes cuLaunchKernelEx row's launch failed: {status}")
    return {"ctypes cuLaunchKernelEx (pre-built config)": run}


def spaced_rows(kernel, a, b, n: int) -> dict[str, Callable[[], None]]:
    """The bare ctypes `cuLaunchKernelEx` row again, each call after what a checked torch
    relaunch reads (two tensors' five reads and torch's current stream), and after a spin of
    about as long, with those two alone: whether the driver call costs more once host work
    separates the calls (the checked relaunch's whole time has been 2 µs above its stubbed
    host part plus the bare call), and whether torch's reads in particular make it so."""
    import torch

    bare = ctypes_ex_row(kernel, a, b)
    if not bare:
        return {}
    (launch,) = bare.values()
    x, y = torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
    stream = torch._C._cuda_getCurrentRawStream

    def reads() -> None:
        for t in (x, y):
            t.dtype, t.shape, t.is_contiguous(), t.device, t.data_ptr()
        stream(0)

    def spin(ns: int = 1200) -> None:
        end = time.perf_counter_ns() + ns
        while time.perf_counter_ns() < end:
            pass

    def after_reads() -> None:
        reads()
        launch()

    def after_spin() -> None:
        spin()
        launch()

    return {
        "a relaunch's torch reads alone (2 tensors, stream)": reads,
        "ctypes cuLaunchKernelEx after those reads": after_reads,
        "a 1.2 us spin alone": spin,
        "ctypes cuLaunchKernelEx after a 1.2 us spin": after_spin,
    }


def torch_rows(kernel, n: int) -> dict[str, Callable[[], None]]:
    import torch

    x, y = torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
    small = torch.zeros(4, device="cuda")
    out = torch.empty(4, device="cuda")
    grid, block = (1, 1, 1), (32, 1, 1)
    side = Stream()
    return {
        "ferrox launch, torch tensors (current stream)": lambda: kernel.launch(grid, block, [x, y]),
        "ferrox launch, torch tensors (other stream: DLPack)": lambda: kernel.launch(
            grid, block, [x, y], stream=side
        ),
        "torch.add (4 elements, out=)": lambda: torch.add(small, small, out=out),
    }


def api_rows(n: int) -> dict[str, Callable[[], None]]:
    """The checked Python API: the launch checker (contract, coverage, aliasing) on every call,
    then the launch; and its raw `unsafe_launch`."""
    import torch

    import ferrox

    kernel = ferrox.load(EMPTY, device="gpu")["empty"]
    x, y = torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
    a = DeviceArray.from_numpy(np.zeros(n, np.float32))
    b = DeviceArray.from_numpy(np.zeros(n, np.float32))
    checked = kernel[1, 32]
    current, other = torch.cuda.current_stream(), torch.cuda.Stream()
    fresh = [(torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")) for _ in range(512)]
    turn = [0]

    checked(x, y)  # kept in the memo: its prepared driver call is timed alone as well
    prepared = checked._last[2]._launch  # type: ignore[attr-defined]

    def other_tensors() -> None:  # 512 pairs in turn: more than any memo of exact addresses
        turn[0] = (turn[0] + 1) & 511
        checked(*fresh[turn[0]])

    return {
        # the same arguments again: the checker's verdict comes from the memo of passed launches
        "ferrox API k[grid, block](torch), checked": lambda: checked(x, y),
        "ferrox API, checked, other tensors each call": other_tensors,
        "ferrox API k[grid, block](DeviceArrays), checked": lambda: checked(a, b),
        # torch's current stream given explicitly: a relaunch; another stream: checked in full
        # each call (its DLPack export orders it after torch's work)
        "ferrox API (torch, stream=torch's current), checked": lambda: checked(
            x, y, stream=current
        ),
        "ferrox API (torch, stream=another), full check": lambda: checked(x, y, stream=other),
        "ferrox API k.unsafe_launch(torch)": lambda: kernel.unsafe_launch(1, 32, x, y),
        # what a relaunch does after its checks: the context check, the stream's handle object
        # and cuda.bindings' cuLaunchKernel of the memo's packed parameters (no torch read)
        "ferrox memo's prepared launch alone (driver call)": lambda: prepared(LEGACY),
    }


def graph_capture(reps: int = 100) -> list[str]:
    """Checked launches captured in a CUDA graph (`torch.cuda.graph`) and replayed: the
    result is compared with torch's, and a replay of `reps` captured launches is timed."""
    import torch

    import ferrox

    root = Path(__file__).resolve().parent.parent
    k = ferrox.load(root / "examples" / "simt" / "vecadd.mlir", device="gpu")["vecadd"]
    n = 1 << 20
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.full((n,), float("nan"), device="cuda")
    launch = k[n // 256, 256]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up off the capture: module loaded, launch checked
        launch(x, y, out)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(reps):
            launch(x, y, out)
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    same = bool(torch.equal(out, x + y))
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(20):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000 / reps)
    return [
        f"CUDA graph: {reps} checked vecadd launches (2^20 f32) captured with torch.cuda.graph; "
        f"replayed result equals x + y: {same}; {statistics.median(times):.2f} us per captured "
        "launch on the GPU (median of 20 replays)"
    ]


def profile(fn: Callable[[], None], calls: int = 3000) -> None:
    """Where one row's host time goes: cProfile over `calls` launches, the top functions."""
    import cProfile
    import pstats

    fn()
    synchronize()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn()
    profiler.disable()
    synchronize()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(18)


def cupy_row(n: int) -> dict[str, Callable[[], None]]:
    import cupy

    kernel = cupy.RawKernel(CUDA_EMPTY, "empty")
    a, b = cupy.zeros(n, cupy.float32), cupy.zeros(n, cupy.float32)
    m = np.int64(n)
    kernel((1,), (32,), (a, m, b, m))
    import ferrox

    checked = ferrox.load(EMPTY, device="gpu")["empty"][1, 32]
    checked(a, b)
    return {
        "CuPy RawKernel": lambda: kernel((1,), (32,), (a, m, b, m)),
        # CuPy arrays on CuPy's null stream: relaunched from the memo, read through their CAI
        "ferrox API k[grid, block](CuPy arrays), checked": lambda: checked(a, b),
    }


def triton_row(n: int) -> dict[str, Callable[[], None]]:
    import torch
    import triton

    @triton.jit
    def empty(a, n, b, m):
        pass

    x, y = torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
    empty[(1,)](x, n, y, n)
    return {"Triton (empty @triton.jit)": lambda: empty[(1,)](x, n, y, n)}


@simt.kernel(block=32, requires=["len(a) >= len(out)"])
def py_copy(a: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = a[i]


@tile.kernel
def py_tile_copy(z: TilePartition[f32, 256], x: TileTensor[f32, None]):
    tile.store(tile.load_like(x, z), z)


def frontend_rows(n: int) -> dict[str, Callable[[], None]]:
    """A `@ferrox.simt.kernel` called directly a second time with the same argument types
    (issue 11: no dearer than a launch), beside the same kernel's IR loaded by `ferrox.load`."""
    import torch

    import ferrox

    x, y = torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
    grid = n // 32
    direct = py_copy.on("gpu")
    loaded = ferrox.load(py_copy.ir(), device="gpu")["py_copy"][grid, 32]
    return {
        "ferrox.simt @kernel k[grid, block](torch), again": lambda: direct[grid, 32](x, y),
        "the same kernel's IR, ferrox.load, checked": lambda: loaded(x, y),
    }


def dispatch_overhead(calls: int, batches: int) -> dict[str, float]:
    """The Python of each checked relaunch, with no GPU: the runtime's seams faked
    (`tests/support/fake_gpu.py`) and the driver call (`launcher._launch_packed`) a no-op, so
    what is timed is the dispatch, the signature, the memo look-up, the aliasing rule on the
    call's addresses and the packing, on DeviceArrays. The GPU rows include the same plus the
    launch (and torch's own attribute reads)."""
    import sys
    import tempfile

    import pytest

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))
    import fake_gpu

    import ferrox
    from ferrox.driver.runtime import launcher

    patch = pytest.MonkeyPatch()
    fake_gpu.install(patch, Path(tempfile.mkdtemp()))
    patch.setattr(launcher, "_launch_packed", lambda *args: None)
    n = 1024
    x, y = (DeviceArray.from_numpy(np.zeros(n, np.float32)) for _ in range(2))
    others = [[DeviceArray.from_numpy(np.zeros(n, np.float32)) for _ in range(2)] for _ in "ab"]
    grid = n // 32
    direct = py_copy.on("gpu")
    loaded = ferrox.load(py_copy.ir(), device="gpu")["py_copy"][grid, 32]
    kernel = ferrox.load(py_copy.ir(), device="gpu")["py_copy"]
    tile_direct = py_tile_copy.on("gpu")
    tile_loaded = ferrox.load(py_tile_copy.ir(), device="gpu")["py_tile_copy"]
    turn = [0]

    def other_arrays() -> None:
        turn[0] ^= 1
        loaded(*others[turn[0]])

    rows = {
        "@simt.kernel k[grid, block](x, y), again": lambda: direct[grid, 32](x, y),
        "ferrox.load kernel's launch(x, y)": lambda: loaded(x, y),
        "ferrox.load k[grid, block](x, y) written per call": lambda: kernel[grid, 32](x, y),
        "ferrox.load launch, other arrays in turn": other_arrays,
        "@tile.kernel k(y, x), again": lambda: tile_direct(y, x),
        "ferrox.load tile kernel's k(y, x)": lambda: tile_loaded(y, x),
    }
    results = {name: float("inf") for name in rows}
    for fn in rows.values():
        fn()
    for _ in range(batches):  # interleaved, best of: the host is shared and noisy
        for name, fn in rows.items():
            start = time.perf_counter_ns()
            for _ in range(calls):
                fn()
            results[name] = min(results[name], (time.perf_counter_ns() - start) / calls / 1000)
    return results  # the fake device stays installed: the process ends after this


def interleaved(rows: dict[str, Callable[[], None]], calls: int, batches: int) -> dict:
    """Host µs per call of every row: the mean over `calls` launches, median over `batches`,
    the rows taking turns batch by batch (so a drift of the machine's speed during the run
    reaches every row alike); the device is synchronised after each batch."""
    for fn in rows.values():
        for _ in range(3):
            fn()
    synchronize()
    means: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(batches):
        for name, fn in rows.items():
            start = time.perf_counter_ns()
            for _ in range(calls):
                fn()
            means[name].append((time.perf_counter_ns() - start) / calls / 1000)
            synchronize()
    return {name: statistics.median(m) for name, m in means.items()}


def torch_reads(calls: int = 20000) -> dict[str, float]:
    """What each read of a CUDA tensor (and of torch's current stream) costs, in ns: the
    parts of a relaunch's signature that torch itself spends."""
    import torch

    t = torch.zeros(1024, device="cuda")
    get_stream = torch._C._cuda_getCurrentRawStream
    reads: dict[str, Callable[[], object]] = {
        "t.data_ptr()": t.data_ptr,
        "t.dtype": lambda: t.dtype,
        "t.shape": lambda: t.shape,
        "len(t)": lambda: len(t),
        "t.dim()": t.dim,
        "t.ndim": lambda: t.ndim,
        "t.numel()": t.numel,
        "t.stride()": t.stride,
        "t.is_contiguous()": t.is_contiguous,
        "t.get_device()": t.get_device,
        "t.is_cuda": lambda: t.is_cuda,
        "t.device": lambda: t.device,
        "torch._C._cuda_getCurrentRawStream(0)": lambda: get_stream(0),
        "torch.cuda.current_stream()": torch.cuda.current_stream,
        "(a Python lambda returning None)": lambda: None,
    }
    out = {}
    for name, read in reads.items():
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter_ns()
            for _ in range(calls):
                read()
            best = min(best, (time.perf_counter_ns() - start) / calls)
        out[name] = best
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--batches", type=int, default=300)
    parser.add_argument("--profile", action="append", default=[], help="cProfile rows by name")
    parser.add_argument(
        "--dispatch",
        action="store_true",
        help="only the Python dispatch of a decorated kernel's repeated call (CPU, no GPU)",
    )
    args = parser.parse_args()
    if args.dispatch:
        found = dispatch_overhead(args.calls, args.batches)
        print("checked relaunch, fake GPU, cuLaunchKernel stubbed: Python only (best of batches)")
        for name, us in found.items():
            base = found[
                "ferrox.load tile kernel's k(y, x)"
                if "tile" in name
                else "ferrox.load kernel's launch(x, y)"
            ]
            print(f"{name:50} {us:8.3f} us  ({us - base:+.3f} against ferrox.load)")
        return
    n = 1024
    rows, (artifact, kernel, a, b) = ferrox_rows(n)
    rows |= cuda_core_row(artifact, a, b)
    rows |= cuda_bindings_row(kernel, a, b)
    rows |= ctypes_ex_row(kernel, a, b)
    missing = []
    for name, make in (
        ("torch", lambda: torch_rows(kernel, n)),
        ("spaced driver calls", lambda: spaced_rows(kernel, a, b, n)),
        ("ferrox API", lambda: api_rows(n)),
        ("ferrox.simt", lambda: frontend_rows(n)),
        ("cupy", lambda: cupy_row(n)),
        ("triton", lambda: triton_row(n)),
    ):
        try:
            rows |= make()
        except Exception as exc:  # an optional library that is absent or cannot run here
            missing.append(f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
    results = interleaved(rows, args.calls, args.batches)
    base = results["cuda.core launch (ints packed per call)"]
    cupy = results.get("CuPy RawKernel", float("nan"))
    print(f"launch overhead on {device_limits(0).name}, empty kernel, 4 PTX parameters")
    print(f"{'':52} {'us/call':>8} {'/cuda.core':>10} {'/CuPy':>6}")
    for name, us in results.items():
        print(f"{name[:52]:52} {us:8.2f} {us / base:9.2f}x {us / cupy:5.2f}x")
    from ferrox.driver.runtime import launcher

    real, real_ex = launcher._cu.cuLaunchKernel, launcher._launch_ex
    launcher._cu.cuLaunchKernel = lambda *args: (0,)  # the driver calls (and wrappers) stubbed
    launcher._launch_ex = lambda *args: 0
    try:
        memo = {name: fn for name, fn in rows.items() if "checked" in name or "again" in name}
        stubbed = interleaved(memo, args.calls, max(args.batches // 3, 5))
    finally:
        launcher._cu.cuLaunchKernel, launcher._launch_ex = real, real_ex
    print("\nthe same relaunches with cuLaunchKernel stubbed (host Python and torch reads only)")
    for name, us in stubbed.items():
        print(f"{name:46} {us:8.2f}  (the launch itself: {results[name] - us:.2f})")
    results |= {f"{name} [launch stubbed]": us for name, us in stubbed.items()}
    if "torch" not in " ".join(missing):
        print("\ntorch's reads, ns each (best of 5 x 20000)")
        for name, ns in torch_reads().items():
            print(f"{name:46} {ns:8.0f}")
            results[f"torch read: {name} (ns)"] = ns
    decorated = results.get("ferrox.simt @kernel k[grid, block](torch), again")
    if decorated is not None:
        same = results["the same kernel's IR, ferrox.load, checked"]
        print(f"the decorated call's own dispatch: {decorated - same:+.2f} us over ferrox.load")
    for line in missing:
        print(f"not measured: {line}")
    try:
        for line in graph_capture():
            print(line)
    except Exception as exc:
        print(f"CUDA graph capture failed: {type(exc).__name__}: {exc}")
    for name in args.profile:
        for row, fn in rows.items():
            if name in row:
                print(f"\n== profile: {row}")
                profile(fn)
    if out := os.environ.get("OUT"):
        Path(out, "launch.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
