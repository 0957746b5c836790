"""`simt.call` and `simt.return` (dialects/simt/kernel.py): a device function runs its body for
the calling lanes, in a fresh frame, as the lowering's `func.call` does."""

from __future__ import annotations

from ferrox.dialects import simt
from ferrox.driver.interpreter.engine import region_return
from ferrox.driver.interpreter.ops import Unsupported, lowers

lowers(simt.ReturnOp)(lambda op: region_return(op))


@lowers(simt.CallOp)
def _call(op: simt.CallOp):
    callee = op.callee_op()
    if not isinstance(callee, simt.FuncOp):
        raise Unsupported(op, f"'{op.callee}' does not name a 'simt.func'")

    def run(ex, args, mask):
        saved = ex.env
        ex.env = {}
        try:
            return ex.run_region(callee.body, args, mask)
        finally:
            ex.env = saved

    return run
