"""`simt.unsafe` and raw pointers (dialects/simt/unsafe.py). An unsafe region runs like any
other.

Raw pointer accesses are unchecked on the GPU; here an out-of-range index traps, so the oracle
never reads or writes wild, and every access is race-checked like shared memory's: two threads
of a block between the same barriers, or two blocks, touching an element where one writes.
"""

from __future__ import annotations

from ferrox.dialects import simt
from ferrox.driver.interpreter.ops import lowers
from ferrox.driver.interpreter.simt_ops.shared import load, store


@lowers(simt.PtrLoadOp)
def _ptr_load(op):
    what = "simt.ptr_load (unchecked on the GPU)"
    return lambda ex, args, mask: (load(ex, op, args[0], [args[1]], mask, what),)


@lowers(simt.PtrStoreOp)
def _ptr_store(op):
    what = "simt.ptr_store (unchecked on the GPU)"

    def run(ex, args, mask):
        store(ex, op, args[1], args[0], [args[2]], mask, what)
        return ()

    return run


@lowers(simt.UnsafeOp)
def _unsafe(op: simt.UnsafeOp):
    return lambda ex, args, mask: ex.run_region(op.body, (), mask)
