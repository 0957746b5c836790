"""The tile f32 GEMM's lowering variants against cuBLAS fp32 (TF32 off) in one process, in rounds.

    python -m benchmarks.gemm_f32 build DIR [VARIANT ...]   # CPU: compile, ptxas -v, pickle
    python -m benchmarks.gemm_f32 time DIR [ROUNDS]          # GPU: check, then time in rounds

A variant is `BMxBNxBK` (the tile kernel of `benchmarks.gemm_tiles`) with knobs after colons: `tN` N
threads (default: the lowering's choice, `convert.default_threads`: 128 for a 128 x 128 f32 tile,
`gemm.fma_threads`); `k0` stages `x` row-major by `cp.async` (the lowering before H13), `k1` k-major
through registers (default: the lowering's rule); `bN` asks ptxas for N blocks an SM
(`nvvm.minctasm`; default: the lowering's rule); `sN` a k-major FMA loop's stages' budget in bytes
(`gemm.FMA_STAGE_BUDGET`, default 32768); `wN` 2^N thread columns a warp in the accumulator's layout
(`matrix.spaced_layout`); `f0` every copy and load of the loop checked (the lowering before
`gemm.FAST_COPIES`; default `f1`: a second loop, unchecked, where every tile is whole); `e0` the
store's round trip through an array of its own (before `gemm.SHARE_EPILOGUE`; default `e1`: it
reuses the stages); `pN` at most N stages (`gemm.MAX_STAGES`, default 4; the wait's count allows up
to 9); `r1` the k-major loop rotated (`gemm.ROTATE`: its barrier before each iteration's last k, the
next stage's first fragments read after it and carried; default `r0`); `n1` the unchecked loop
counts in i32 rather than `index`, i64 (`gemm.NARROW_COUNTER`, default `n0`); `xN` the k-major loop
stores its `x` registers into their stage after N k of the compute (`gemm.X_STORE_K`; default:
after half of them with `a1`, else after all); `a0` the k-major loop loads its `x` registers in
the iteration that stores them (`gemm.X_AHEAD`; default `a1`: an iteration before); `d0` each
copy's element index computed from its row and column each iteration (`gemm.SPLIT_ADDRESS`;
default: `d1`, its tile's first element plus a loop-invariant offset, in the k-major loops).
Before the eighth session's defaults (docs/performance.md), `128x128x16:a0:d0` is the example.
Building on the CPU machine keeps the GPU host's time for timing: the artifacts are pickled.
Each ferrox result is checked first (outputs poisoned with NaN) at 4096^3 against cuBLAS and at
a ragged 1000 x 1030 x 1050 against float64 torch. Each round times every variant and cuBLAS
once (`benchmarks.common.bench`: do_bench median, L2 flushed), so drift hits all alike; the
figures are medians over the rounds.
"""

from __future__ import annotations

import json
import pickle
import statistics
import sys
from pathlib import Path

SIZE = 4096
RAGGED = (1000, 1030, 1050)
DEFAULT = ["128x64x16:k0", "128x128x8:t256:a0:d0", "128x128x16"]
"""The example before H13, the example before the eighth session, the example now (128 threads,
2 stages: docs/performance.md)."""


def parse(spec: str) -> tuple[tuple[int, int, int], dict[str, int]]:
    shape, *knobs = spec.split(":")
    bm, bn, bk = (int(v) for v in shape.split("x"))
    return (bm, bn, bk), {kv[0]: int(kv[1:]) for kv in knobs}


def build(out: Path, specs: list[str]) -> None:
    from benchmarks.common import compile_source
    from benchmarks.gemm_tiles import kernel
    from benchmarks.ptxas_report import resources
    from ferrox.lowering.tile_to_simt import gemm, matrix

    out.mkdir(parents=True, exist_ok=True)
    saved = (
        gemm.K_MAJOR_ACCUMULATORS,
        gemm.MIN_BLOCKS,
        gemm.FMA_STAGE_BUDGET,
        matrix.WARP_TX_BITS,
        gemm.FAST_COPIES,
        gemm.SHARE_EPILOGUE,
        gemm.MAX_STAGES,
        gemm.ROTATE,
        gemm.NARROW_COUNTER,
        gemm.X_STORE_K,
        gemm.X_AHEAD,
        gemm.SPLIT_ADDRESS,
    )
    for spec in specs:
        (bm, bn, bk), knobs = parse(spec)
        if "k" in knobs:  # k0: never k-major, k1: always
            gemm.K_MAJOR_ACCUMULATORS = 0 if knobs["k"] else 1 << 30
        gemm.MIN_BLOCKS = knobs.get("b", saved[1])
        gemm.FMA_STAGE_BUDGET = knobs.get("s", saved[2])
        matrix.WARP_TX_BITS = knobs.get("w", saved[3])
        gemm.FAST_COPIES = bool(knobs.get("f", saved[4]))
        gemm.SHARE_EPILOGUE = bool(knobs.get("e", saved[5]))
        gemm.MAX_STAGES = knobs.get("p", saved[6])
        gemm.ROTATE = bool(knobs.get("r", saved[7]))
        gemm.NARROW_COUNTER = bool(knobs.get("n", saved[8]))
        gemm.X_STORE_K = knobs.get("x", saved[9])
        gemm.X_AHEAD = bool(knobs.get("a", saved[10]))
        gemm.SPLIT_ADDRESS = bool(knobs["d"]) if "d" in knobs else saved[11]
        try:
            text = kernel("f32", bm, bn, bk)
            # always a thread count: `compile_source` without one is `ferrox.compile` (whose
            # cache keys the knobs since 97fad72, lowering/knobs.py)
            art = compile_source(text, threads=knobs.get("t") or _threads(text))
        finally:
            (
                gemm.K_MAJOR_ACCUMULATORS,
                gemm.MIN_BLOCKS,
                gemm.FMA_STAGE_BUDGET,
                matrix.WARP_TX_BITS,
                gemm.FAST_COPIES,
                gemm.SHARE_EPILOGUE,
                gemm.MAX_STAGES,
                gemm.ROTATE,
                gemm.NARROW_COUNTER,
                gemm.X_STORE_K,
                gemm.X_AHEAD,
                gemm.SPLIT_ADDRESS,
            ) = saved
        contract = art["mm"].contract
        info = dict(resources(art.ptx)["mm"])
        info["shared_bytes"] = contract.shared_bytes + contract.static_shared_bytes
        info["minnctapersm"] = ".minnctapersm" in art.ptx
        print(spec, info, flush=True)
        name = spec.replace(":", "_")
        (out / f"{name}.pkl").write_bytes(pickle.dumps((spec, info, art)))


def _threads(text: str) -> int:
    """The lowering's thread count for the tile kernel in `text` (`convert.default_threads`)."""
    from ferrox.dialects import tile
    from ferrox.lowering.tile_to_simt.convert import default_threads
    from ferrox.parser import parse_module
    from ferrox.registry import make_context

    module = parse_module(make_context(), text, "kernel.mlir")
    (kernel,) = [op for op in module.ops if isinstance(op, tile.KernelOp)]
    return default_threads(kernel)


def _load(out: Path) -> list[tuple[str, dict, object]]:
    return [pickle.loads(p.read_bytes()) for p in sorted(out.glob("*.pkl"))]


def _error(c, ref) -> float:
    return ((c.double() - ref).abs().max() / ref.abs().max()).item()


def check(art, m: int, n: int, k: int, seed: int) -> float:
    """Relative max error of the variant's C = A @ B against float64 torch."""
    import torch

    from benchmarks.common import launcher

    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.rand(m, k, device="cuda", generator=g) - 0.5
    b = torch.rand(k, n, device="cuda", generator=g) - 0.5
    c = torch.full((m, n), float("nan"), device="cuda")
    launcher(art, "mm", [c, a, b])()
    torch.cuda.synchronize()
    return _error(c, a.double() @ b.double())


def time_all(out: Path, rounds: int) -> None:
    import torch

    from benchmarks.common import bench, launcher

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    variants = _load(out)
    m = n = k = SIZE
    torch.manual_seed(0)
    a = torch.rand(m, k, device="cuda") - 0.5
    b = torch.rand(k, n, device="cuda") - 0.5
    ref = a @ b
    flops = 2 * m * n * k
    runs = {}
    results: dict[str, dict] = {}
    for spec, info, art in variants:
        c = torch.full((m, n), float("nan"), device="cuda")
        go = launcher(art, "mm", [c, a, b])
        go()
        torch.cuda.synchronize()
        err = ((c - ref).abs().max() / ref.abs().max()).item()
        ragged = check(art, *RAGGED, seed=7)
        ok = err < 1e-4 and ragged < 1e-5
        results[spec] = {**info, "rel_err_vs_cublas": err, "rel_err_ragged": ragged, "ok": ok}
        print(spec, "check", err, ragged, flush=True)
        if ok:
            runs[spec] = go
    times: dict[str, list[float]] = {s: [] for s in ["cublas", *runs]}
    for _ in range(rounds):
        times["cublas"].append(bench(lambda: a @ b))
        for spec, go in runs.items():
            times[spec].append(bench(go))
    peer = statistics.median(times["cublas"])
    rows = {"cublas": {"tflops": flops / peer / 1e9, "ms": times["cublas"]}}
    for spec in runs:
        ms = statistics.median(times[spec])
        results[spec].update(tflops=flops / ms / 1e9, ratio=peer / ms, ms=times[spec])
    rows.update(results)
    print(f"cuBLAS fp32 {flops / peer / 1e9:.2f} TFLOP/s")
    for spec, r in results.items():
        if "tflops" in r:
            print(
                f"{spec:28s} {r['tflops']:6.2f} TFLOP/s  {r['ratio']:.3f}  regs {r['registers']}"
                f" spill {r['spill_stores']}  shared {r['shared_bytes']}"
            )
    data = {"device": torch.cuda.get_device_name(), "size": SIZE, "rounds": rounds, "rows": rows}
    from benchmarks.common import write_result

    write_result("gemm_f32", data)


def main(argv: list[str]) -> None:
    what, out = argv[0], Path(argv[1])
    if what == "build":
        build(out, argv[2:] or DEFAULT)
    elif what == "time":
        time_all(out, int(argv[2]) if len(argv) > 2 else 5)
    else:
        raise SystemExit(json.dumps({"usage": __doc__}))


if __name__ == "__main__":
    main(sys.argv[1:])
