"""A new kernel's compile beside NVRTC, the compiler under CuPy's `RawKernel`, on a machine
with no GPU: the same kernels as `compile_peers.py`, each compiled in one process by each in
turn.

    python benchmarks/compile_nvrtc.py [--reps 15] [--kernels vecadd transpose]

`compile_peers.py` times a new kernel from its source to its first launch, beside CuPy, Triton
and numba-cuda, and needs a GPU. This times the compile alone, where no GPU is lent: ferrox's
`ferrox.compile(text, chip="sm_90", cache=False)`, with its cubin (ptxas), against NVRTC
compiling the same kernel's CUDA C for sm_90 to PTX, and to a cubin. CuPy compiles through
NVRTC to one or the other, then loads the module (the driver's JIT of PTX), which is not
timed here. Each rep's kernel has a name of its own, so nothing is served from a cache.
Reports min and median ms and NVRTC's minimum over ferrox's (above 1, ferrox is faster).

Needs NVRTC: `pip install nvidia-cuda-nvrtc` (CUDA 13), found by cuda.bindings; CuPy's host
has its own. ptxas, as ferrox's compile needs it for the cubin. A benchmark, never a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

if __package__:  # `python -m benchmarks.compile_nvrtc`, or imported (its test)
    from benchmarks.compile_peers import CUDA, KERNELS, ferrox_kernel_text
else:  # `python benchmarks/compile_nvrtc.py`: this folder is first on the path
    from compile_peers import CUDA, KERNELS, ferrox_kernel_text


def nvrtc_compile(source: str, name: str, cubin: bool) -> bytes:
    """`source` compiled by NVRTC for sm_90 (`-arch=sm_90`, NVRTC's cubin; `compute_90`, its
    PTX), as bytes. Through cuda.bindings: cuda.core's `Program` asks the driver for its
    version first, and a machine without a GPU has no driver."""
    from cuda.bindings import nvrtc

    def ok(result):
        err, *rest = result
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"NVRTC: {err}")
        return rest[0] if len(rest) == 1 else rest

    program = ok(nvrtc.nvrtcCreateProgram(source.encode(), f"{name}.cu".encode(), 0, [], []))
    try:
        arch = b"--gpu-architecture=sm_90" if cubin else b"--gpu-architecture=compute_90"
        ok(nvrtc.nvrtcCompileProgram(program, 1, [arch]))
        size = ok((nvrtc.nvrtcGetCUBINSize if cubin else nvrtc.nvrtcGetPTXSize)(program))
        out = b" " * size
        ok((nvrtc.nvrtcGetCUBIN if cubin else nvrtc.nvrtcGetPTX)(program, out))
        return out
    finally:
        ok(nvrtc.nvrtcDestroyProgram(program))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--kernels", nargs="+", choices=KERNELS, default=list(KERNELS))
    args = parser.parse_args()
    from cuda.bindings import nvrtc

    import ferrox

    run_id = f"p{os.getpid()}"
    tools = {
        "ferrox (cubin)": lambda k, rep: ferrox.compile(
            ferrox_kernel_text(k, rep), chip="sm_90", cache=False
        ),
        "NVRTC (PTX)": lambda k, rep: nvrtc_compile(CUDA[k].format(rep=rep), k, cubin=False),
        "NVRTC (cubin)": lambda k, rep: nvrtc_compile(CUDA[k].format(rep=rep), k, cubin=True),
    }
    for kernel in args.kernels:  # untimed: imports, LLVM's worker, NVRTC's library
        for compile_one in tools.values():
            compile_one(kernel, f"{run_id}_w")
    times: dict[tuple[str, str], list[float]] = {}
    order = list(tools)
    for rep in range(args.reps):
        turn = order[rep % len(order) :] + order[: rep % len(order)]
        for kernel in args.kernels:
            for name in turn:
                start = time.perf_counter()
                tools[name](kernel, f"{run_id}_r{rep}")
                times.setdefault((kernel, name), []).append(1e3 * (time.perf_counter() - start))
    major, minor = nvrtc.nvrtcVersion()[1:]
    print(
        f"NVRTC {major}.{minor}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, "
        f"reps {args.reps}"
    )
    print(f"{'kernel':10} {'compiler':15} {'min ms':>8} {'median':>8} {'/ ferrox':>9}")
    for kernel in args.kernels:
        base = min(times[(kernel, order[0])])
        for name in order:
            t = times[(kernel, name)]
            shown = "" if name == order[0] else f"{min(t) / base:.2f}"
            print(f"{kernel:10} {name:15} {min(t):8.1f} {statistics.median(t):8.1f} {shown:>9}")


if __name__ == "__main__":
    main()
