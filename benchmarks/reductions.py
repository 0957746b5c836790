"""Reductions and softmax against torch, Triton and CuPy in the same process.

- whole-array sum of 2^28 f32: the SIMT examples `block_reduce.mlir` (one element per thread, a
  shared-memory tree) and `block_reduce_gridstride.mlir` (a fixed grid striding over the array,
  16-byte loads, warp shuffles, one atomic per block), and a tile kernel (`TILE_SUM`) that
  accumulates [4096] tiles over a grid stride and reduces once, launched twice (the blocks'
  partial sums, then their sum);
- row sum of 16384 x 4096: the example `row_sum.mlir` as written ([16, 128] tiles reduced every
  step) and `ROW_SUM` ([R, C] tiles accumulated, reduced once);
- row softmax at 16384 x 4096 and 65536 x 1024: `examples/tile/softmax.mlir` with a [1, C] tile,
  as written and with one reciprocal per row then multiplies (`softmax_source(recip=True)`).
Variants lower the same kernel with another thread count per tile block (the pass's `threads`
option) to show what the lowering's own choice costs (for these reduction kernels, one thread per
two chunks of the largest tile, up to 512: `lowering/tile_to_simt/config.py`). Bytes count one
read of the input (and one write of an output as large as it).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.common import compile_source, launcher
from benchmarks.suite import measure

ROOT = Path(__file__).resolve().parent.parent
SIMT = ROOT / "examples" / "simt"
TILE = ROOT / "examples" / "tile"
SMS = 132

TILE_SUM = """
builtin.module {
  tile.kernel @sum_partials(%out: !tile.partition<f32, [1]>, %x: !tile.tensor<f32, [?]>) {
    %b = tile.block_id 0
    %nb = tile.num_blocks 0
    %n = tile.dim %x, 0 : !tile.tensor<f32, [?]>
    %width = arith.constant 4096 : index
    %tiles = arith.ceildivui %n, %width : index
    %zero = tile.constant dense<0.0> : !tile.tile<f32, [4096]>
    %acc = scf.for %j = %b to %tiles step %nb iter_args(%a = %zero) -> (!tile.tile<f32, [4096]>) {
      %t = tile.load %x[%j] : !tile.tensor<f32, [?]> -> !tile.tile<f32, [4096]>
      %next = tile.add %a, %t : !tile.tile<f32, [4096]>
      scf.yield %next : !tile.tile<f32, [4096]>
    }
    %s = tile.reduce_sum %acc axis = 0 keepdims : !tile.tile<f32, [4096]> -> !tile.tile<f32, [1]>
    tile.store %s, %out : !tile.tile<f32, [1]>, !tile.partition<f32, [1]>
    tile.return
  }
}
"""
"""A whole-tensor sum on the tile track: block b adds tiles b, b + G, ... elementwise into a
[4096] accumulator, reduces it once and stores its partial sum; the same kernel then sums the
G partials with one block."""


def tile_sum_source(width: int) -> str:
    return TILE_SUM.replace("[4096]", f"[{width}]").replace(
        "constant 4096 :", f"constant {width} :"
    )


ROW_SUM = """
builtin.module {
  tile.kernel @row_sum(%out: !tile.partition<f32, [R]>, %x: !tile.tensor<f32, [?, ?]>) {
    %i = tile.block_id 0
    %n = tile.dim %x, 1 : !tile.tensor<f32, [?, ?]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %width = arith.constant C : index
    %tiles = arith.ceildivui %n, %width : index
    %zero = tile.constant dense<0.0> : !tile.tile<f32, [R, C]>
    %acc = scf.for %j = %c0 to %tiles step %c1 iter_args(%a = %zero) -> (!tile.tile<f32, [R, C]>) {
      %t = tile.load %x[%i, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [R, C]>
      %next = tile.add %a, %t : !tile.tile<f32, [R, C]>
      scf.yield %next : !tile.tile<f32, [R, C]>
    }
    %s = tile.reduce_sum %acc axis = 1 : !tile.tile<f32, [R, C]> -> !tile.tile<f32, [R]>
    tile.store %s, %out : !tile.tile<f32, [R]>, !tile.partition<f32, [R]>
    tile.return
  }
}
"""


def row_sum_source(rows: int, cols: int) -> str:
    return (
        ROW_SUM.replace("[R, C]", f"[{rows}, {cols}]")
        .replace("[R]", f"[{rows}]")
        .replace("constant C :", f"constant {cols} :")
    )


def kernel_only(path: Path) -> str:
    """An example file without its host program."""
    text = path.read_text()
    return text.split("func.func @main", 1)[0].rstrip() + "\n}\n"


RECIP_DIV = "    %r = tile.div %e, %sumb : !tile.tile<f32, [4, 1024]>\n"
RECIP_MUL = """    %one = tile.constant dense<1.0> : !tile.tile<f32, [4, 1]>
    %inv = tile.div %one, %sum : !tile.tile<f32, [4, 1]>
    %invb = tile.broadcast %inv : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
    %r = tile.mul %e, %invb : !tile.tile<f32, [4, 1024]>
"""


EXP = "    %e = tile.exp %shifted : !tile.tile<f32, [4, 1024]>\n"
EXP2 = """    %log2e = tile.constant dense<1.44269502> : !tile.tile<f32, [4, 1024]>
    %scaled = tile.mul %shifted, %log2e : !tile.tile<f32, [4, 1024]>
    %e = tile.exp2 %scaled : !tile.tile<f32, [4, 1024]>
"""


def softmax_source(rows: int, cols: int, recip: bool = False, exp2: bool = False) -> str:
    """`examples/tile/softmax.mlir`'s kernel with a [rows, cols] tile. `recip`: one division per
    row and a multiply per element, `e * (1 / sum)` (within 1.5 ulp of `e / sum`: two
    roundings); a correctly rounded division per element costs several instructions. `exp2`:
    `exp2((x - max) * log2(e))`, one `ex2.approx` an element where `tile.exp` adds a correction
    for its error bound (docs/lowering-math.md); the relative error grows with |x - max| by
    |x - max| * 2^-24 from the rounded product, on elements that are then below e^-16 of the
    row's largest when it matters. Both are the trades Triton's softmax (`tl.exp`, `/` as
    `div.full`) makes."""
    text = kernel_only(TILE / "softmax.mlir")
    if recip:
        assert RECIP_DIV in text
        text = text.replace(RECIP_DIV, RECIP_MUL)
    if exp2:
        assert EXP in text
        text = text.replace(EXP, EXP2)
    return text.replace("[4, 1024]", f"[{rows}, {cols}]").replace("[4, 1]", f"[{rows}, 1]")


# -- peers ----------------------------------------------------------------------------------------


def _triton_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def block_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        tl.atomic_add(out_ptr, tl.sum(x, axis=0))

    @triton.jit
    def row_sum(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
        tl.store(out_ptr + row, tl.sum(x, axis=0))

    @triton.jit
    def softmax(out_ptr, x_ptr, cols, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        y = e / tl.sum(e, axis=0)
        tl.store(out_ptr + row * cols + offs, y, mask=offs < cols)

    return block_sum, row_sum, softmax


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


# -- rows -----------------------------------------------------------------------------------------


def sum_rows(variants: bool) -> list[dict]:
    import torch

    n = 1 << 28
    x = torch.rand(n, device="cuda")
    total = torch.zeros(1, device="cuda")
    expect = x.double().sum().item()
    peers: dict = {"torch": lambda: lambda: torch.sum(x)}
    if _has("triton"):
        block_sum = _triton_kernels()[0]

        def triton_sum():
            out = torch.zeros(1, device="cuda")

            def run():
                out.zero_()
                block_sum[(n // 16384,)](x, out, n, BLOCK=16384, num_warps=16)

            return run

        peers["triton"] = triton_sum
    if _has("cupy"):

        def cupy_sum():
            import cupy

            cx = cupy.asarray(x)
            return lambda: cupy.sum(cx)

        peers["cupy"] = cupy_sum

    def rel_err() -> float:
        return abs(total.item() - expect) / expect

    rows = []
    common = dict(group="sum", shape="2^28 f32", unit="TB/s", bytes_moved=4 * n, flops=n)

    def simt(path: Path, name: str, grid: int, note: str, tolerance: float = 1e-5) -> dict:
        artifact = compile_source(path)
        go = launcher(artifact, name, [x, total], grid=grid)

        def run() -> None:
            total.zero_()
            go()

        def make():
            run()
            torch.cuda.synchronize()
            return run

        return measure(
            f"sum, SIMT {path.stem} (grid {grid})",
            track="simt",
            ferrox=make,
            peers=peers,
            check=rel_err,
            tolerance=tolerance,
            artifact=artifact,
            kernel=name,
            note=note,
            **common,
        )

    # One f32 atomic add a block: 2^20 partials of about 128 into a total near 1.3e8, each add
    # rounded to the total's ulp (16) in an order that changes from run to run, so the relative
    # error is about sqrt(2^20) * 4.6 / 1.3e8 = 3.5e-5 (1.6e-6 and 1.9e-5 in two runs of
    # 2026-12-04): 1e-5 failed a correct kernel. The grid-stride kernel's 1056 adds stay at 1e-5.
    rows.append(
        simt(SIMT / "block_reduce.mlir", "block_reduce", n // 256, "one element a thread", 1e-4)
    )
    for k in (4, 8, 16) if variants else (8,):
        rows.append(
            simt(
                SIMT / "block_reduce_gridstride.mlir",
                "block_reduce_gridstride",
                SMS * k,
                f"{k} blocks per SM",
            )
        )

    configs = [(4096, 4, 0), (2048, 16, 0), (1024, 8, 0), (1024, 16, 0)]
    if variants:
        configs += [(2048, 8, 0), (1024, 32, 0), (4096, 2, 1024), (8192, 2, 1024)]
    for width, per_sm, threads in configs:
        artifact = compile_source(tile_sum_source(width), threads)
        g = SMS * per_sm
        partials = torch.empty(g, device="cuda")
        first = launcher(artifact, "sum_partials", [partials, x])
        second = launcher(artifact, "sum_partials", [total, partials])

        def run(first=first, second=second) -> None:
            first()
            second()

        def make(run=run, partials=partials):
            partials.fill_(float("nan"))
            total.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            return run

        rows.append(
            measure(
                f"sum, tile TILE_SUM [{width}] (grid {g}, then 1)"
                + (f", {threads} threads" if threads else ""),
                track="tile",
                ferrox=make,
                peers=peers,
                check=rel_err,
                tolerance=1e-5,
                artifact=artifact,
                kernel="sum_partials",
                note=f"[{width}] tiles accumulated, reduced once; two launches",
                **common,
            )
        )
    return rows


def row_sum_rows(variants: bool) -> list[dict]:
    import torch

    m, cols = 16384, 4096
    x = torch.rand(m, cols, device="cuda")
    out = torch.empty(m, device="cuda")
    ref = x.double().sum(dim=1)
    peers: dict = {"torch": lambda: lambda: torch.sum(x, dim=1)}
    if _has("triton"):
        kernel = _triton_kernels()[1]

        def triton_rows(warps: int):
            def make():
                o = torch.empty(m, device="cuda")
                return lambda: kernel[(m,)](x, o, cols, BLOCK=cols, num_warps=warps)

            return make

        peers["triton"] = triton_rows(8)
        peers["triton-16w"] = triton_rows(16)

    def err() -> float:
        return ((out.double() - ref).abs() / ref.abs()).max().item()

    def tile(source: str, name: str, label: str, threads: int = 0, note: str = "") -> dict:
        artifact = compile_source(source, threads)

        def make():
            go = launcher(artifact, name, [out, x])
            out.fill_(float("nan"))
            go()
            torch.cuda.synchronize()
            return go

        return measure(
            label + (f", {threads} threads" if threads else ""),
            group="row_sum",
            track="tile",
            shape=f"{m}x{cols}",
            unit="TB/s",
            bytes_moved=4 * m * cols + 4 * m,
            flops=m * cols,
            ferrox=make,
            peers=peers,
            check=err,
            tolerance=1e-5,
            artifact=artifact,
            kernel=name,
            note=note,
        )

    rows = [
        tile(
            kernel_only(TILE / "row_sum.mlir"),
            "row_sum",
            "row sum, tile row_sum.mlir",
            note="[16, 128] tiles, reduced every step",
        )
    ]
    shapes = [(1, 4096, 0), (1, 2048, 0), (1, 1024, 0), (2, 1024, 0)]
    if variants:
        shapes += [(2, 2048, 0), (4, 1024, 0), (4, 512, 0), (1, 2048, 512), (1, 4096, 512)]
        shapes += [(8, 512, 512), (1, 1024, 256), (2, 512, 0)]
    for r, c, threads in shapes:
        rows.append(
            tile(
                row_sum_source(r, c),
                "row_sum",
                f"row sum, tile ROW_SUM [{r}, {c}]",
                threads,
                "tiles accumulated, reduced once",
            )
        )
    return rows


def softmax_rows(variants: bool) -> list[dict]:
    import torch

    rows = []
    for m, cols in ((16384, 4096), (65536, 1024)):
        x = torch.randn(m, cols, device="cuda")
        out = torch.empty_like(x)
        ref = torch.softmax(x.double(), dim=1)
        peers: dict = {"torch": lambda x=x: lambda: torch.softmax(x, dim=1)}
        if _has("triton"):
            kernel = _triton_kernels()[2]

            def triton_softmax(warps: int, x=x, m=m, cols=cols, kernel=kernel):
                def make():
                    o = torch.empty_like(x)
                    return lambda: kernel[(m,)](o, x, cols, BLOCK=cols, num_warps=warps)

                return make

            for w in (4, 8, 16):
                peers[f"triton-{w}w"] = triton_softmax(w)

        def err(out=out, ref=ref) -> float:
            return (out.double() - ref).abs().max().item()

        # (rows a tile, one reciprocal a row, exp2, threads: 0 is the lowering's choice)
        configs = [(1, False, False, 0), (1, True, False, 0), (1, True, True, 0)]
        if cols == 1024:
            configs += [(2, True, True, 0), (4, True, True, 0)]
        if variants and cols == 4096:  # the lowering's choice: 512 threads
            configs += [(1, True, False, 256), (1, True, True, 256), (1, True, True, 1024)]
        if variants and cols == 1024:  # the lowering's choice: 128 threads for [1, 1024]
            configs += [(1, True, False, 256), (1, True, True, 256), (1, True, True, 64)]
            configs += [(2, True, True, 128), (4, True, True, 256)]
        for rows_per_tile, recip, exp2, threads in configs:
            source = softmax_source(rows_per_tile, cols, recip, exp2)
            artifact = compile_source(source, threads)

            def make(artifact=artifact, out=out, x=x):
                go = launcher(artifact, "softmax", [out, x])
                out.fill_(float("nan"))
                go()
                torch.cuda.synchronize()
                return go

            how = ", ".join(n for n, on in (("reciprocal", recip), ("exp2", exp2)) if on)
            label = "softmax, tile softmax" + (f" ({how})" if how else "")
            label += f" [{rows_per_tile}, {cols}]"
            rows.append(
                measure(
                    label + (f", {threads} threads" if threads else ""),
                    group="softmax",
                    track="tile",
                    shape=f"{m}x{cols}",
                    unit="TB/s",
                    bytes_moved=8 * m * cols,
                    flops=5 * m * cols,
                    ferrox=make,
                    peers=peers,
                    check=err,
                    tolerance=1e-6,
                    artifact=artifact,
                    kernel="softmax",
                    note=how,
                )
            )
    return rows


def rows(variants: bool = False) -> list[dict]:
    return sum_rows(variants) + row_sum_rows(variants) + softmax_rows(variants)


__all__ = ["ROW_SUM", "TILE_SUM", "rows", "row_sum_source", "softmax_source"]
