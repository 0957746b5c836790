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
with `torch.cuda.graph`, replayed, and the result compared with torch's.
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
    return {"CuPy RawKernel": lambda: kernel((1,), (32,), (a, m, b, m))}


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
        "t.stride()": t.stride,
        "t.is_contiguous()": t.is_contiguous,
        "t.get_device()": t.get_device,
        "t.is_cuda": lambda: t.is_cuda,
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


def driver_rows(n: int) -> dict[str, Callable[[], Callable[[], None]]]:
    """The same empty kernel launched every way the driver offers, for `--driver`: what the
    driver call itself costs, apart from the Python around it. Each row is made by its own
    maker (so a probe can say which one crashed, `driver_probe`)."""
    import struct

    from cuda.bindings import driver as cu

    module = parse_module(make_context(), EMPTY, "empty.mlir")
    verify_module(module)
    artifact = compile_module(module, chip=device_limits(0).chip)
    kernel = LoadedModule.load(artifact).kernel("empty")
    a = DeviceArray.from_numpy(np.zeros(n, np.float32))
    b = DeviceArray.from_numpy(np.zeros(n, np.float32))
    packed = kernel.pack([a, b])
    as_function = cu.CUfunction(int(kernel.core.handle))  # the CUkernel, as ours passes it
    legacy = cu.CUstream(1)
    address = packed.address
    pa, pb, size_a = a.ptr, b.ptr, a.size
    keep: list[object] = [packed, a, b]  # what the rows' raw pointers point into

    def plain() -> Callable[[], None]:
        return lambda: cu.cuLaunchKernel(as_function, 1, 1, 1, 32, 1, 1, 0, legacy, address, 0)

    def context_function() -> Callable[[], None]:
        status, function = cu.cuKernelGetFunction(kernel.core.handle)
        assert status == cu.CUresult.CUDA_SUCCESS, status
        return lambda: cu.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, legacy, address, 0)

    def null_stream() -> Callable[[], None]:
        null = cu.CUstream(0)
        return lambda: cu.cuLaunchKernel(as_function, 1, 1, 1, 32, 1, 1, 0, null, address, 0)

    def extra() -> Callable[[], None]:  # one packed struct: the four 8-byte values
        buffer = (ctypes.c_uint64 * 4)(pa, size_a, pb, size_a)
        size = ctypes.c_size_t(ctypes.sizeof(buffer))
        options = (ctypes.c_void_p * 5)(
            cu.CU_LAUNCH_PARAM_BUFFER_POINTER,
            ctypes.addressof(buffer),
            cu.CU_LAUNCH_PARAM_BUFFER_SIZE,
            ctypes.addressof(size),
            cu.CU_LAUNCH_PARAM_END,
        )
        keep.extend((buffer, size, options))
        at = ctypes.addressof(options)
        return lambda: cu.cuLaunchKernel(as_function, 1, 1, 1, 32, 1, 1, 0, legacy, 0, at)

    def written() -> Callable[[], None]:  # one buffer, the values written per call
        raw = (ctypes.c_uint64 * 4)()
        base = ctypes.addressof(raw)
        pointers = (ctypes.c_void_p * 4)(base, base + 8, base + 16, base + 24)
        keep.extend((raw, pointers))
        at = ctypes.addressof(pointers)
        pack_into = struct.Struct("<QqQq").pack_into

        def run() -> None:
            pack_into(raw, 0, pa, size_a, pb, size_a)
            cu.cuLaunchKernel(as_function, 1, 1, 1, 32, 1, 1, 0, legacy, at, 0)

        return run

    def with_ctypes() -> Callable[[], None]:
        c_launch = ctypes.CDLL("libcuda.so.1").cuLaunchKernel
        c_launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
        c_launch.restype = ctypes.c_int
        handle = int(kernel.core.handle)
        return lambda: c_launch(handle, 1, 1, 1, 32, 1, 1, 0, 1, address, None)

    def launch_ex() -> Callable[[], None]:
        config = cu.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = 1, 1, 1
        config.blockDimX, config.blockDimY, config.blockDimZ = 32, 1, 1
        config.sharedMemBytes, config.hStream, config.numAttrs = 0, legacy, 0
        keep.append(config)
        return lambda: cu.cuLaunchKernelEx(config, as_function, address, 0)

    def core() -> Callable[[], None]:
        from cuda.core import LEGACY_DEFAULT_STREAM, LaunchConfig, launch

        core_kernel, config = kernel.core.core, LaunchConfig(grid=1, block=32)
        return lambda: launch(LEGACY_DEFAULT_STREAM, config, core_kernel, pa, size_a, pb, size_a)

    def cupy_kernel() -> Callable[[], None]:
        import cupy

        raw_kernel = cupy.RawKernel(CUDA_EMPTY, "empty")
        ca, cb = cupy.zeros(n, cupy.float32), cupy.zeros(n, cupy.float32)
        m = np.int64(n)
        return lambda: raw_kernel((1,), (32,), (ca, m, cb, m))

    def packed_path() -> Callable[[], None]:
        return lambda: kernel.launch_packed((1, 1, 1), (32, 1, 1), packed)

    def api_torch() -> Callable[[], None]:
        import torch

        import ferrox

        api = ferrox.load(EMPTY, device="gpu")["empty"][1, 32]
        x, y = torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
        return lambda: api(x, y)

    def api_torch_function() -> Callable[[], None]:  # the same, the CUfunction launched
        import torch

        import ferrox

        text = EMPTY.replace("@empty", "@empty_fn")  # a kernel of its own: its own handle
        api = ferrox.load(text, device="gpu")["empty_fn"][1, 32]
        loaded = api.kernel._device.loaded.kernel("empty_fn")
        status, function = cu.cuKernelGetFunction(loaded.core.handle)
        assert status == cu.CUresult.CUDA_SUCCESS, status
        loaded._function = function  # what `LoadedKernel.function` gives the packed path
        x, y = torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
        return lambda: api(x, y)

    def api_arrays() -> Callable[[], None]:
        import ferrox

        api = ferrox.load(EMPTY, device="gpu")["empty"][1, 32]
        return lambda: api(a, b)

    def nothing() -> Callable[[], None]:
        return lambda: None

    return {
        "(a) cuLaunchKernel, void** cells, CUkernel": plain,
        "(a) ... CUfunction (cuKernelGetFunction)": context_function,
        "(a) ... stream 0 (NULL) not 1 (LEGACY)": null_stream,
        "(a) ... extra BUFFER_POINTER struct": extra,
        "(a) ... one buffer, pack_into per call": written,
        "(a) ... ctypes libcuda, no cuda.bindings": with_ctypes,
        "(b) cuLaunchKernelEx, config built once": launch_ex,
        "(c) cuda.core launch": core,
        "(d) CuPy RawKernel": cupy_kernel,
        "(e) ferrox launch_packed": packed_path,
        "(e) ferrox API checked, torch": api_torch,
        "(e) ferrox API checked, torch, CUfunction": api_torch_function,
        "(e) ferrox API checked, DeviceArrays": api_arrays,
        "(python: a lambda returning None)": nothing,
    }


def _made(makers: dict, skip: set[str], say: Callable[[str], None]) -> dict:
    """The rows of `makers` but `skip`, each made, launched 20 times and synchronised (a fault
    raises there), saying each step first (a probe's log of where it crashed)."""
    from cuda.bindings import driver as cu

    rows = {}
    for name, make in makers.items():
        if name in skip:
            continue
        say(f"make {name}")
        fn = make()
        say(f"run {name}")
        for _ in range(20):
            result = fn()
            if isinstance(result, tuple):
                assert result[0] == cu.CUresult.CUDA_SUCCESS, (name, result)
            elif isinstance(result, int):
                assert result == 0, (name, result)
        synchronize()
        say(f"ok {name}")
        rows[name] = fn
    return rows


def driver_probe(skip: set[str]) -> None:
    """`--driver-probe`: make and run every row but `skip` once, then busy, logging each step to
    stdout (flushed): the parent reads how far it came."""
    import torch

    def say(line: str) -> None:
        print(line, flush=True)

    rows = _made(driver_rows(1024), skip, say)
    for name, fn in rows.items():
        say(f"busy {name}")
        torch.cuda._sleep(100_000)
        for _ in range(20):
            fn()
        synchronize()
        say(f"ok {name}")
    say("done")


def crashing_rows(tries: int = 4) -> set[str]:
    """The rows that crash the process (found by probes in new processes, each skipping what
    the ones before found)."""
    import subprocess
    import sys

    skip: set[str] = set()
    for _ in range(tries):
        command = [sys.executable, "-X", "faulthandler", __file__, "--driver-probe"]
        done = subprocess.run(
            command + [f"--skip={name}" for name in sorted(skip)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        lines = done.stdout.splitlines()
        if done.returncode == 0 and lines and lines[-1] == "done":
            return skip
        step = next((ln for ln in reversed(lines) if not ln.startswith("ok ")), "")
        name = step.split(" ", 1)[1] if " " in step else ""
        print(f"probe: exit {done.returncode} at '{step}'; {done.stderr.strip()[-600:]}")
        if not name or name in skip:
            break
        skip.add(name)
    return skip


def driver_compare(calls: int, batches: int, gap_us: float) -> None:
    """`--driver`: every way of `driver_rows` in interleaved batches, four ways each: back to
    back or spaced (a spin of `gap_us` before each call, timed alone, so the GPU has drained
    the previous empty kernel), on an idle GPU or behind a running `torch.cuda._sleep` (the
    launches queue; whether it still ran when the batch ended is counted). µs per call: the
    median over batches of the batch mean. Rows that crash a probe process are left out."""
    import torch

    skip = crashing_rows()
    rows = _made(driver_rows(1024), skip, lambda line: None)
    clock = time.perf_counter_ns
    gap = int(gap_us * 1000)
    stream = torch.cuda.current_stream()
    # sleep cycles: longer than any batch (about 2 ms at the H200's ~1.98 GHz)
    cycles = int(float(os.environ.get("SLEEP_CYCLES", 4_000_000)))

    def back_to_back(fn: Callable[[], None]) -> float:
        start = clock()
        for _ in range(calls):
            fn()
        return (clock() - start) / calls / 1000

    def spaced(fn: Callable[[], None]) -> float:
        total = 0
        for _ in range(calls):
            until = clock() + gap
            while clock() < until:
                pass
            start = clock()
            fn()
            total += clock() - start
        return total / calls / 1000

    modes = {"b2b idle": (back_to_back, False), "spaced idle": (spaced, False),
             "b2b busy": (back_to_back, True), "spaced busy": (spaced, True)}  # fmt: skip
    means: dict[tuple[str, str], list[float]] = {(r, m): [] for r in rows for m in modes}
    still_busy = dict.fromkeys(modes, 0)
    for _ in range(batches):
        for mode, (timer, busy) in modes.items():
            for name, fn in rows.items():
                if busy:
                    torch.cuda._sleep(cycles)
                means[name, mode].append(timer(fn))
                if busy and not stream.query():
                    still_busy[mode] += 1
                synchronize()
    print(f"driver calls, empty kernel, {calls} calls x {batches} batches, gap {gap_us} us")
    print(f"{'':44}" + "".join(f"{m:>12}" for m in modes))
    table = {}
    for name in rows:
        figures = [statistics.median(means[name, m]) for m in modes]
        table[name] = dict(zip(modes, figures, strict=True))
        print(f"{name:44}" + "".join(f"{f:12.2f}" for f in figures))
    for name in sorted(skip):
        print(f"{name:44} crashed a probe: not measured")
    total = batches * len(rows)
    print("GPU still busy at a busy batch's end: "
          + ", ".join(f"{m} {still_busy[m]}/{total}" for m in modes if modes[m][1]))  # fmt: skip
    if out := os.environ.get("OUT"):
        Path(out, "driver.json").write_text(json.dumps(table, indent=2))


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
    parser.add_argument(
        "--driver",
        action="store_true",
        help="only the driver call compared every way, idle and busy GPU (see driver_compare)",
    )
    parser.add_argument("--gap", type=float, default=4.0, help="--driver: us spun between calls")
    parser.add_argument("--driver-probe", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--skip", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.driver_probe:
        driver_probe(set(args.skip))
        return
    if args.driver:
        driver_compare(args.calls, args.batches, args.gap)
        return
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
    missing = []
    for name, make in (
        ("torch", lambda: torch_rows(kernel, n)),
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

    real = launcher._cu.cuLaunchKernel
    launcher._cu.cuLaunchKernel = lambda *args: (0,)  # the driver call (and its wrapper) stubbed
    try:
        memo = {name: fn for name, fn in rows.items() if "checked" in name or "again" in name}
        stubbed = interleaved(memo, args.calls, max(args.batches // 3, 5))
    finally:
        launcher._cu.cuLaunchKernel = real
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
