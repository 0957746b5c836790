"""The interpreter's `simt.mma_sync` (tile_support.py): a warp collective. Each lane hands its
fragment registers to the warp (the scheduler's `exchange`) and computes its own four results of
`A @ B + C` from all 32 lanes' fragments, laid out as PTX's m16n8k16 fragments."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import Float16Type
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import simt


def _half(word: int, i: int, f16: bool) -> float:
    """Element `i % 2` of an i32 register holding two 16-bit floats, low half first."""
    bits = ((word & 0xFFFFFFFF) >> (16 * (i % 2))) & 0xFFFF
    if f16:
        return float(np.array([bits], np.uint16).view(np.float16)[0])
    return float(np.array([bits << 16], np.uint32).view(np.float32)[0])


def mma_fragments(lanes, f16: bool):
    """A (16 x 16), B (16 x 8) and C (16 x 8) from the 32 lanes' registers (PTX's fragments)."""
    a, b, c = np.zeros((16, 16)), np.zeros((16, 8)), np.zeros((16, 8))
    for lane, regs in enumerate(lanes):
        g, q = lane >> 2, lane & 3
        for i in range(8):
            a[g + 8 * (i >> 1 & 1), 2 * q + (i & 1) + 8 * (i >> 2)] = _half(regs[i // 2], i, f16)
        for i in range(4):
            b[2 * q + (i & 1) + 8 * (i >> 1), g] = _half(regs[4 + i // 2], i, f16)
        for i in range(4):
            c[g + 8 * (i >> 1), 2 * q + (i & 1)] = regs[6 + i]
    return a, b, c


@register_impls
class MmaSyncFunctions(InterpreterFunctions):
    @impl(simt.MmaSyncOp)
    def run_mma_sync(self, interp, op: simt.MmaSyncOp, args: PythonValues):
        sync = interp.thread.sync
        if sync is None:
            raise interp.trap(op, "'simt.mma_sync' reached in a launch run without a scheduler")
        lanes = sync.exchange(interp.thread, op, tuple(args))
        if any(regs is None for regs in lanes):
            raise interp.trap(op, "'simt.mma_sync' needs all 32 lanes of the warp")
        a, b, c = mma_fragments(lanes, isinstance(op.element, Float16Type))
        d = (a @ b + c).astype(
            np.float32
        )  # exact products, rounded once: an order the GPU may take
        g, q = (interp.thread.linear & 31) >> 2, interp.thread.linear & 3
        return tuple(d[g + 8 * (i >> 1), 2 * q + (i & 1)] for i in range(4))
