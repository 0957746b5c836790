"""A tile GEMM kernel's text for any tiles and element, and the f32 summation bound its result
is checked against: the tests of the tile GEMM's paths (mma.sync, TMA + wgmma, the portable
twin) on the interpreter, the fake GPU and the GPU share them."""

from __future__ import annotations

import numpy as np


def matmul(
    bm: int,
    bn: int,
    bk: int,
    el: str = "bf16",
    chip: str = "",
    part: bool = False,
    out: str = "f32",
):
    """A tile matmul kernel with `[bm, bk] x [bk, bn]` tiles; `part`: the loop runs over K
    tiles 1 .. ktiles - 2 only (lower bound 1, upper bound ktiles - 1); `out`: the output's
    element type (`bf16`: the f32 sums rounded once, `tile.astype`, then stored)."""
    attrs = f' attributes {{"ferrox.chip" = "{chip}"}}' if chip else ""
    t = f"!tile.tensor<{el}, [?, ?]>"
    acc = f"!tile.tile<f32, [{bm}, {bn}]>"
    lo, hi = ("%c1", "%kt1") if part else ("%c0", "%kt")
    part_t = f"!tile.partition<{out}, [{bm}, {bn}]>"
    store = f"tile.store %r, %c : {acc}, {part_t}"
    if out != "f32":  # the f32 sums rounded once, then stored
        rounded = f"!tile.tile<{out}, [{bm}, {bn}]>"
        store = f"%o = tile.astype %r : {acc} -> {rounded}\n    "
        store += f"tile.store %o, %c : {rounded}, {part_t}"
    return f"""builtin.module{attrs} {{
  tile.kernel @mm(%c: {part_t}, %a: {t}, %b: {t}) {{
    %i = tile.block_id 0
    %j = tile.block_id 1
    %k = tile.dim %a, 1 : {t}
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cbk = arith.constant {bk} : index
    %kt = arith.ceildivui %k, %cbk : index
    %kt1 = arith.subi %kt, %c1 : index
    %zero = tile.constant dense<0.0> : {acc}
    %r = scf.for %kk = {lo} to {hi} step %c1 iter_args(%sum = %zero) -> ({acc}) {{
      %x = tile.load %a[%i, %kk] : {t} -> !tile.tile<{el}, [{bm}, {bk}]>
      %y = tile.load %b[%kk, %j] : {t} -> !tile.tile<{el}, [{bk}, {bn}]>
      %next = tile.mma %x, %y, %sum : !tile.tile<{el}, [{bm}, {bk}]>, !tile.tile<{el}, [{bk}, {bn}]>, {acc}
      scf.yield %next : {acc}
    }}
    {store}
    tile.return
  }}
}}
"""  # noqa: E501  (IR lines as wide as the ops they spell)


def within_f32_sum_bound(got: np.ndarray, x: np.ndarray, y: np.ndarray) -> bool:
    """Each 16-bit product is exact in f32; k f32 additions err by at most
    k * 2^-23 * |x| @ |y| (twice the unit roundoff, for any summation order)."""
    exact = x.astype(np.float64) @ y.astype(np.float64)
    bound = x.shape[1] * 2.0**-23 * (np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64))
    return bool((np.abs(got - exact) <= bound).all())


def misaligned_operands(m: int, k: int, n: int):
    """Random bf16 operands on the (fake or real) GPU for the twin's address rule: `a` and `b`
    on the host (`Bf16Bits`), then `a` twice on the device, once 2 bytes into its storage (no
    TMA map can take that address) and once aligned, and `b` on the device."""
    from ferrox.driver.interpreter.bf16 import to_bf16
    from ferrox.driver.runtime.buffers import DeviceArray

    rng = np.random.default_rng()
    a = to_bf16(rng.uniform(-1, 1, (m, k)))
    b = to_bf16(rng.uniform(-1, 1, (k, n)))
    bits = np.asarray(a).reshape(-1)  # the bf16 bits, uint16
    storage = DeviceArray.from_numpy(np.concatenate([bits[:1], bits]), element="bf16")
    shifted = DeviceArray(storage.ptr + 2, (m, k), "bf16", owner=storage)
    aligned = DeviceArray.from_numpy(np.asarray(a), element="bf16")
    return a, b, shifted, aligned, DeviceArray.from_numpy(np.asarray(b), element="bf16")


def lowered_sm90_gemm(tiles: tuple[int, int, int] = (128, 256, 64)):
    """The `@mm` SIMT kernel that `convert-tile-to-simt` makes of `matmul(*tiles)` for sm_90a,
    under whatever lowering knobs the caller has set (the rule tests edit it)."""
    from ferrox.dialects import simt
    from ferrox.lowering.tile_to_simt import convert_tile_to_simt
    from ferrox.parser import parse_module
    from ferrox.registry import make_context

    module = parse_module(make_context(), matmul(*tiles, chip="sm_90a"), "mm.mlir")
    convert_tile_to_simt(module)
    return next(
        op for op in module.walk() if isinstance(op, simt.KernelOp) and op.sym_name.data == "mm"
    )
