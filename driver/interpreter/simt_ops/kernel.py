"""`simt.call` and `simt.return` (dialects/simt/kernel.py): a device function runs its body in
the calling thread, as the lowering's `func.call` does."""

from __future__ import annotations

from xdsl.interpreter import (
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)

from ferrox.dialects import simt
from ferrox.driver.interpreter.machine import SimtInterpreter


def _callee(op: simt.CallOp) -> simt.FuncOp | None:
    callee = op.callee_op()
    return callee if isinstance(callee, simt.FuncOp) else None


@register_impls
class KernelFunctions(InterpreterFunctions):
    @impl(simt.CallOp)
    def run_call(self, interp: SimtInterpreter, op: simt.CallOp, args: PythonValues):
        callee = interp.static(op, _callee)
        if callee is None:
            raise interp.trap(op, f"'{op.callee}' does not name a 'simt.func'")
        return interp.call_region(callee.body, args)

    @impl_terminator(simt.ReturnOp)
    def run_return(self, interp: SimtInterpreter, op: simt.ReturnOp, args: PythonValues):
        return ReturnedValues(args), ()
