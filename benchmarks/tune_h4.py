"""Issue 13 items 3 and 4 tuning (helper H4): row softmax variants against Triton and SGEMM
micro-tile variants against cuBLAS, timed in rounds that interleave every variant with its peer.

    python -m benchmarks.tune_h4 build DIR   # compile every variant (any machine with ptxas)
    python -m benchmarks.tune_h4 time DIR    # on the GPU: check, then time in rounds

Building apart from timing keeps the GPU's time for timing: `build` writes one artifact JSON a
variant (PTX and cubin) and a manifest. Softmax variants: the lowering's default thread count and
forced ones, streaming cache policies (`ld.global.nc.L1::no_allocate` or `L1::evict_first`,
`st.global.cs`) on the whole-tile chunks (switched on here by patching the two chunk patterns
of `lowering/simt_to_nvvm/tile_support.py` in this process; the lowering itself has none: they
were slower), rows per tile. SGEMM variants: `benchmarks/sgemm_micro_tune.py` (the example now
uses its "y permuted" layout).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, Float32Type, IntegerType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from ferrox.dialects.simt import UncheckedLoadChunkOp, UncheckedStoreChunkOp

# -- streaming cache policies, tried on the whole-tile chunks and not kept (slower on the H200:
# docs/performance.md, "Softmax and SGEMM (H4)"). LLVM 22's NVPTX backend ignores `!nontemporal`,
# so they are exact PTX.


def _ptx_register(t: Attribute) -> tuple[str, str] | None:
    """(PTX type, inline-asm constraint) of a 32-bit element; None for any other."""
    if isinstance(t, Float32Type):
        return "f32", "f"
    if isinstance(t, IntegerType) and t.width.data == 32:
        return "b32", "r"
    return None


def streams(t: Attribute, w: int) -> bool:
    """Whether a chunk of `w` elements of memory type `t` has a streaming form (32-bit elements,
    one, two or four a chunk: one PTX vector access)."""
    return _ptx_register(t) is not None and w in (1, 2, 4)


def _vec(w: int) -> str:
    return f".v{w}" if w > 1 else ""


def streaming_load(e, address: SSAValue, t: Attribute, w: int, prefix: str) -> list[SSAValue]:
    """`w` elements of memory type `t` from `address` (a global pointer aligned to the chunk), read
    with the PTX `prefix`. No side effects and no memory clobber: the memory is read-only for the
    launch, so LLVM may move or merge the read as it would an invariant load."""
    ptx, reg = _ptx_register(t) or ("", "")
    outs = ", ".join(f"${j}" for j in range(w))
    outs = f"{{{outs}}}" if w > 1 else outs
    asm = f"{prefix}{_vec(w)}.{ptx} {outs}, [${w}];"
    constraints = ",".join([f"={reg}"] * w + ["l"])
    if w == 1:
        return [e(llvm.InlineAsmOp(asm, constraints, [address], [t]))]
    struct = llvm.LLVMStructType.from_type_list([t] * w)
    result = e(llvm.InlineAsmOp(asm, constraints, [address], [struct]))
    return [e(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [j]), result, t)) for j in range(w)]


def streaming_store(e, address: SSAValue, values: Sequence[SSAValue], prefix: str) -> None:
    """`values` (32-bit, one PTX vector) to `address` with the PTX `prefix`; a side effect and a
    memory clobber keep it where the plain store was."""
    w = len(values)
    ptx, reg = _ptx_register(values[0].type) or ("", "")
    ins = ", ".join(f"${j + 1}" for j in range(w))
    ins = f"{{{ins}}}" if w > 1 else ins
    asm = f"{prefix}{_vec(w)}.{ptx} [$0], {ins};"
    constraints = ",".join(["l"] + [reg] * w + ["~{memory}"])
    e.emit(llvm.InlineAsmOp(asm, constraints, [address, *values], None, has_side_effects=True))


def _patch(load: str, store: str) -> None:
    """Make the unchecked chunk patterns use `load` / `store` (PTX prefixes; "" for the plain
    access) in this process."""
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import i32

    from ferrox.dialects.llvm import ExtractElementOp, FreezeOp, PoisonOp
    from ferrox.lowering.simt_to_nvvm import tile_support
    from ferrox.lowering.simt_to_nvvm.support import SimtEmitter
    from ferrox.lowering.simt_to_nvvm.types import memory_type

    @op_type_rewrite_pattern
    def load_rw(self, op: UncheckedLoadChunkOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        w = len(op.res)
        element = op.res[0].type
        address, vector, align = tile_support._vector_at(e, op.slice, op.index, element, w)
        if load and streams(memory_type(element), w):
            results = streaming_load(e, address, memory_type(element), w, load)
        elif w == 1:
            results = [tile_support._invariant_load(e, address, memory_type(element), align)]
        else:
            vec = e(FreezeOp(tile_support._invariant_load(e, address, vector, align)))
            results = [e(ExtractElementOp(vec, e.const(j, i32))) for j in range(w)]
        rewriter.replace(op, [], results)

    @op_type_rewrite_pattern
    def store_rw(self, op: UncheckedStoreChunkOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        w = len(op.values)
        element = op.values[0].type
        address, vector, align = tile_support._vector_at(e, op.slice, op.index, element, w)
        if store and streams(memory_type(element), w):
            streaming_store(e, address, list(op.values), store)
        elif w == 1:
            e.emit(llvm.StoreOp(op.values[0], address, alignment=align))
        else:
            vec = e(PoisonOp(vector))
            for j, v in enumerate(op.values):
                vec = e(llvm.InsertElementOp(vec, v, e.const(j, i32)))
            e.emit(llvm.StoreOp(vec, address, alignment=align))
        rewriter.erase(op)

    tile_support.UncheckedLoadChunkToLoad.match_and_rewrite = load_rw  # type: ignore[method-assign]
    tile_support.UncheckedStoreChunkToStore.match_and_rewrite = store_rw  # type: ignore[method-assign]


NC = "ld.global.nc"
NA = "ld.global.nc.L1::no_allocate"
EF = "ld.global.nc.L1::evict_first"
CS = "st.global.cs"

# name: (m, cols, rows a tile, source kind, threads (0: the lowering's), load hint, store hint)
SOFTMAX = [
    ("4096 default", 16384, 4096, 1, "exp2", 0, "", ""),
    ("4096 forced 512", 16384, 4096, 1, "exp2", 512, "", ""),
    ("4096 forced 256", 16384, 4096, 1, "exp2", 256, "", ""),
    ("4096 ld no_allocate", 16384, 4096, 1, "exp2", 0, NA, ""),
    ("4096 st.cs", 16384, 4096, 1, "exp2", 0, "", CS),
    ("4096 ld no_allocate + st.cs", 16384, 4096, 1, "exp2", 0, NA, CS),
    ("4096 ld evict_first + st.cs", 16384, 4096, 1, "exp2", 0, EF, CS),
    ("4096 [2,4096] default", 16384, 4096, 2, "exp2", 0, "", ""),
    ("4096 as written", 16384, 4096, 1, "plain", 0, "", ""),
    ("1024 default", 65536, 1024, 1, "exp2", 0, "", ""),
    ("1024 forced 64", 65536, 1024, 1, "exp2", 64, "", ""),
    ("1024 ld no_allocate + st.cs", 65536, 1024, 1, "exp2", 0, NA, CS),
    ("1024 st.cs", 65536, 1024, 1, "exp2", 0, "", CS),
    ("1024 [2,1024] default", 65536, 1024, 2, "exp2", 0, "", ""),
    ("1024 [4,1024] default", 65536, 1024, 4, "exp2", 0, "", ""),
]


CONFIRM_SOFTMAX = ("4096 default", "1024 default")
CONFIRM_SGEMM = ("y permuted, k loop unrolled 2", "y permuted, k loop unrolled 4")


def build(out: Path, confirm: bool = False) -> None:
    """Every variant's artifact and the manifest; `confirm`: only the lowering's default softmax,
    the SGEMM example, its Python twin and `CONFIRM_SGEMM`."""
    import ferrox
    from benchmarks.common import compile_source
    from benchmarks.reductions import softmax_source
    from benchmarks.sgemm_micro_tune import VARIANTS, make

    out.mkdir(parents=True, exist_ok=True)
    manifest: dict = {"softmax": [], "sgemm": []}
    for i, (name, m, cols, rows, kind, threads, ld, st) in enumerate(SOFTMAX):
        if confirm and name not in CONFIRM_SOFTMAX:
            continue
        _patch(ld, st)
        src = softmax_source(rows, cols, recip=kind != "plain", exp2=kind != "plain")
        import ferrox.api

        art = compile_source(src, threads) if threads else ferrox.compile(src, cache=False)
        file = f"softmax{i}.json"
        (out / file).write_text(art.to_json())
        tile = art["softmax"].tile
        manifest["softmax"].append(
            dict(name=name, m=m, cols=cols, file=file, threads=tile.threads if tile else None)
        )
        print(name, "threads", tile.threads if tile else None, flush=True)
    _patch("", "")
    root = Path(__file__).resolve().parent.parent
    from benchmarks.reductions import kernel_only

    srcs = {"example sgemm_micro.mlir": kernel_only(root / "examples/simt/sgemm_micro.mlir")}
    if confirm:
        import runpy

        twin = runpy.run_path(str(root / "examples/python/simt_sgemm_micro.py"), run_name="twin")
        srcs["Python twin simt_sgemm_micro.py"] = twin["sgemm_micro"].ir()
    srcs.update(
        {
            name: make(*opts).ir()
            for name, opts in VARIANTS.items()
            if not confirm or name in CONFIRM_SGEMM
        }
    )
    for i, (name, src) in enumerate(srcs.items()):
        art = ferrox.compile(src, cache=False)
        file = f"sgemm{i}.json"
        (out / file).write_text(art.to_json())
        manifest["sgemm"].append(dict(name=name, file=file))
        print(name, flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))


def _bench(fn) -> float:
    from triton.testing import do_bench

    return float(do_bench(fn, warmup=20, rep=60, return_mode="median"))


def time_all(src: Path, rounds: int, budget_s: float) -> dict:
    import torch

    from benchmarks.common import launcher
    from benchmarks.reductions import _triton_kernels
    from ferrox.artifact import ModuleArtifact

    t0 = time.time()
    manifest = json.loads((src / "manifest.json").read_text())
    results: dict = {}
    # -- softmax: check each variant, then rounds of (every variant, Triton) per shape
    tri = _triton_kernels()[2]
    for m, cols, warps in ((16384, 4096, 16), (65536, 1024, 4)):
        x = torch.randn(m, cols, device="cuda")
        out = torch.empty_like(x)
        ref = torch.softmax(x.double(), dim=1)
        o2 = torch.empty_like(x)
        fns = {
            f"triton-{warps}w": lambda m=m, o2=o2, x=x, cols=cols, warps=warps: tri[(m,)](
                o2, x, cols, BLOCK=cols, num_warps=warps
            ),
            f"torch-{cols}": lambda x=x: torch.softmax(x, dim=1),
        }
        for v in manifest["softmax"]:
            if v["cols"] != cols:
                continue
            art = ModuleArtifact.from_json((src / v["file"]).read_text())
            go = launcher(art, "softmax", [out, x])
            out.fill_(float("nan"))
            go()
            torch.cuda.synchronize()
            err = (out.double() - ref).abs().max().item()
            results[v["name"]] = {"threads": v["threads"], "err": err, "ms": []}
            print(f"check {v['name']}: threads {v['threads']} max err {err:.2e}", flush=True)
            if err <= 1e-6:
                fns[v["name"]] = go
        fns[f"triton-{warps}w"]()
        for name in fns:
            results.setdefault(name, {"ms": []})
        for _ in range(rounds):
            for name, fn in fns.items():
                results[name]["ms"].append(_bench(fn))
            if time.time() - t0 > budget_s * 0.55:
                break
        gb = 8 * m * cols / 1e9
        base = statistics.median(results[f"triton-{warps}w"]["ms"])
        for name in fns:
            ms = results[name]["ms"]
            med = statistics.median(ms)
            results[name]["tbs"] = [gb / t for t in ms]
            print(
                f"{name:34s} {gb / med:.3f} TB/s  ratio to triton {base / med:.4f}  rounds "
                + " ".join(f"{gb / t:.3f}" for t in ms),
                flush=True,
            )
    # -- SGEMM 4096^3 against cuBLAS fp32
    torch.backends.cuda.matmul.allow_tf32 = False
    n = 4096
    a = torch.rand(n, n, device="cuda") - 0.5
    b = torch.rand(n, n, device="cuda") - 0.5
    c = torch.empty(n, n, device="cuda")
    ref = a @ b
    fns = {"cuBLAS": lambda: a @ b}
    for v in manifest["sgemm"]:
        art = ModuleArtifact.from_json((src / v["file"]).read_text())
        go = launcher(art, "sgemm_micro", [a, b, c, n, n, n], grid=(n // 128, n // 128))
        c.fill_(float("nan"))
        go()
        torch.cuda.synchronize()
        err = ((c - ref).abs().max() / ref.abs().max()).item()
        results[v["name"]] = {"err": err, "ms": []}
        print(f"check {v['name']}: rel err {err:.2e}", flush=True)
        if err <= 1e-5:
            fns[v["name"]] = go
    for name in fns:
        results.setdefault(name, {"ms": []})
    for _ in range(rounds):
        for name, fn in fns.items():
            results[name]["ms"].append(_bench(fn))
        if time.time() - t0 > budget_s:
            break
    fl = 2 * n**3 / 1e9  # per ms: TFLOP/s
    base = statistics.median(results["cuBLAS"]["ms"])
    for name in fns:
        ms = results[name]["ms"]
        med = statistics.median(ms)
        print(
            f"{name:34s} {fl / med:.2f} TFLOP/s  ratio to cuBLAS {base / med:.4f}  rounds "
            + " ".join(f"{fl / t:.2f}" for t in ms),
            flush=True,
        )
    return results


def main(argv: list[str]) -> int:
    cmd, where = argv[0], Path(argv[1])
    if cmd == "build":
        build(where, confirm=argv[2:] == ["confirm"])
    else:
        import os

        res = time_all(where, int(argv[2]) if len(argv) > 2 else 5, 95.0)
        Path(os.environ.get("OUT", "."), "tune_h4.json").write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
