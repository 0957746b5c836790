"""Host time of a checked relaunch, every path, with no GPU: ns per call from the user's call
to the driver's `cuLaunchKernelEx`, which is a no-op here.

    python benchmarks/launch_host.py [--calls 2000] [--batches 30] [--only torch]
    python benchmarks/launch_host.py --against OTHER_CHECKOUT [--rounds 3]   # before/after

The device is the fake GPU (`tests/support/fake_gpu.py`: the runtime's seams) with the real
launch path restored below the seams: the memo's prepared launch reaches the driver call
`launcher._launch_ex` (a C function that returns 0, called through ctypes as the driver's is:
`no_op_driver`) and a first launch `cuda.bindings`' `cuLaunchKernel` (a Python stub).
Arguments are stand-ins (`tests/support/fake_arrays.py`): torch tensors whose reads are Python
methods and attributes (about what torch's C reads cost, 50-150 ns each), CuPy arrays with a
CUDA array interface, and ferrox's own DeviceArrays. Every call is the checked API's, checks
included; the kernels compile for real (the kernel cache).

Rows take turns batch by batch; each batch times `calls` calls; the figures are the minimum and
the median over batches of ns per call. `--against` runs this file in new processes, this
checkout and the other in turn (`compile_latency._TreeFinder`), `--rounds` times each, and
prints both trees' minima. A benchmark, never a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setup(tree: Path) -> dict[str, Callable[[], None]]:
    """The fake GPU and arrays installed, the driver stubbed; the rows, each called once."""
    sys.path[:0] = [str(tree / "tests" / "support"), str(ROOT / "tests" / "support")]
    import fake_arrays
    import fake_gpu
    import numpy as np
    import pytest

    import ferrox
    from ferrox.driver.runtime import launcher
    from ferrox.driver.runtime.buffers import DeviceArray
    from ferrox.driver.runtime.streams import LEGACY

    patch = pytest.MonkeyPatch()
    fake_gpu.install(patch, Path(tempfile.mkdtemp()))
    torch, _ = fake_arrays.install(patch)
    # below the seams, the real launch: the driver's entry points are the only stubs
    patch.setattr(launcher, "_launch_packed", launcher._native_launch_packed)
    patch.setattr(launcher, "_launch_ex", no_op_driver(launcher))
    patch.setattr(launcher._cu, "cuLaunchKernel", lambda *args: (0,))
    patch.setattr(launcher, "_launch", lambda *args: None)  # cuda.core's launch (no memo)

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from launch_host_kernels import py_copy, py_tile_copy

    n, grid = 1024, 32
    addresses = iter(range(0x7E0000000000, 0x7F0000000000, 0x100000))
    tensors = [fake_arrays.Tensor(next(addresses), (n,)) for _ in range(18)]
    x, y, z = tensors[:3]
    others = [tuple(tensors[i : i + 2]) for i in range(2, 18, 2)]  # 8 pairs in turn
    cupies = [fake_arrays.ndarray(next(addresses), (n,)) for _ in range(2)]
    arrays = [DeviceArray.from_numpy(np.zeros(n, np.float32)) for _ in range(2)]
    loaded = ferrox.load(py_copy.ir(), device="gpu")["py_copy"]
    launch = loaded[grid, 32]
    vecadd = ferrox.load(ROOT / "examples" / "simt" / "vecadd.mlir", device="gpu")["vecadd"]
    vec_launch = vecadd[4, 256]
    decorated = py_copy.on("gpu")
    tile_decorated = py_tile_copy.on("gpu")
    tile_loaded = ferrox.load(py_tile_copy.ir(), device="gpu")["py_tile_copy"]
    turn = [0]

    def other_tensors() -> None:
        turn[0] = (turn[0] + 1) & 7
        launch(*others[turn[0]])

    launch(x, y)
    prepared = getattr(launch, "_last", (None, None, None))[2]
    rows: dict[str, Callable[[], None]] = {
        "a Python call of a no-op (reference)": lambda: None,
        "load k[g, b] made once, torch (x, y)": lambda: launch(x, y),
        "load k[g, b](x, y) written per call, torch": lambda: loaded[grid, 32](x, y),
        "load k[g, b], torch, other tensors in turn": other_tensors,
        "load k[g, b], torch, stream=torch's current": lambda: launch(x, y, stream=0),
        "load vecadd (a, b, out), torch: 2 pairs": lambda: vec_launch(x, y, z),
        "load k[g, b], DeviceArrays": lambda: launch(*arrays),
        "load k[g, b], CuPy arrays": lambda: launch(*cupies),
        "load k.unsafe_launch, torch": lambda: loaded.unsafe_launch(grid, 32, x, y),
        "@simt.kernel k[g, b](x, y), torch": lambda: decorated[grid, 32](x, y),
        "@tile.kernel k(y, x), torch": lambda: tile_decorated(y, x),
        "load tile kernel k(y, x), torch": lambda: tile_loaded(y, x),
    }
    if prepared is not None and hasattr(prepared, "_launch"):
        rows["the memo's prepared driver call alone"] = lambda: prepared._launch(LEGACY)
    import ctypes

    config = launcher._LaunchConfig((1, 1, 1), (32, 1, 1), 0, 1, None, 0)
    pointers = (ctypes.pointer(config), ctypes.c_void_p(None), ctypes.c_void_p(None), None)
    driver = launcher._launch_ex
    rows["the no-op driver call alone (ctypes, 4 pointers)"] = lambda: driver(*pointers)
    for fn in rows.values():
        fn()
        fn()
    assert torch.current == 0
    return rows


def no_op_driver(launcher) -> Callable[..., int]:
    """The driver's `cuLaunchKernelEx` as the prepared launch calls it (a ctypes function of
    four pointers that releases the GIL) but on a C function that does nothing and returns 0:
    libm's `fegetround` (FE_TONEAREST is 0 on x86-64), where there is one; else Python's."""
    import ctypes
    import ctypes.util

    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m"))
        address = ctypes.cast(libm.fegetround, ctypes.c_void_p).value
        call = launcher._LAUNCH_EX(address)
        config = launcher._LaunchConfig((1, 1, 1), (32, 1, 1), 0, 1, None, 0)
        if call(ctypes.pointer(config), ctypes.c_void_p(None), ctypes.c_void_p(None), None) == 0:
            return call
    except (OSError, AttributeError, TypeError):
        pass
    return lambda *pointers: 0


def timed(rows: dict[str, Callable[[], None]], calls: int, batches: int) -> dict[str, list]:
    """ns per call of each row: [min, median] over `batches` batches of `calls` calls, the rows
    taking turns batch by batch."""
    per: dict[str, list[float]] = {name: [] for name in rows}
    clock = time.perf_counter_ns
    for _ in range(batches):
        for name, fn in rows.items():
            start = clock()
            for _ in range(calls):
                fn()
            per[name].append((clock() - start) / calls)
    return {name: [min(v), statistics.median(v)] for name, v in per.items()}


def against(other: Path, rounds: int, calls: int, batches: int) -> None:
    """This checkout and `other` in turn, each in new processes; both trees' minima."""
    found: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for _ in range(rounds):
        for label, tree in (("before", other), ("after", ROOT)):
            command = [sys.executable, __file__, "--json", "--calls", str(calls)]
            command += ["--batches", str(batches), "--tree", str(tree)]
            out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            for name, (low, mid) in json.loads(out.splitlines()[-1]).items():
                best = found[label].setdefault(name, [low, mid])
                found[label][name] = [min(best[0], low), min(best[1], mid)]
    print(f"{'ns per call (min / best median)':48} {'before':>15} {'after':>15} {'change':>8}")
    for name, (low, mid) in found["after"].items():
        b_low, b_mid = found["before"].get(name, [float("nan")] * 2)
        print(f"{name:48} {b_low:7.0f}/{b_mid:7.0f} {low:7.0f}/{mid:7.0f} {low - b_low:+8.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=30)
    parser.add_argument("--only", help="rows whose name contains this")
    parser.add_argument("--tree", help="import ferrox from this checkout")
    parser.add_argument("--against", help="before/after against this checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="one JSON line of the figures")
    args = parser.parse_args()
    if args.against:
        against(Path(args.against).resolve(), args.rounds, args.calls, args.batches)
        return
    tree = Path(args.tree).resolve() if args.tree else ROOT
    if args.tree:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import compile_latency

        compile_latency.use_tree(str(tree))
    rows = setup(tree)
    if args.only:
        rows = {k: v for k, v in rows.items() if args.only in k}
    results = timed(rows, args.calls, args.batches)
    if args.json:
        print(json.dumps(results))
        return
    print("checked relaunch, host only (driver call a no-op), ns per call: min / median")
    for name, (low, mid) in results.items():
        print(f"{name:48} {low:8.0f} {mid:8.0f}")


if __name__ == "__main__":
    main()
