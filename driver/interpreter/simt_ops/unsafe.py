"""`simt.unsafe` and raw pointers (dialects/simt/unsafe.py).

An unsafe region runs like any other. Raw pointer accesses are unchecked on the GPU; here an
out-of-range index traps, so the oracle never reads or writes wild.
"""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import simt
from ferrox.driver.interpreter.machine import SimtInterpreter
from ferrox.driver.interpreter.simt_ops.memory import element_index


@register_impls
class UnsafeFunctions(InterpreterFunctions):
    @impl(simt.UnsafeOp)
    def run_unsafe(self, interp: SimtInterpreter, op: simt.UnsafeOp, args: PythonValues):
        return interp.run_ssacfg_region(op.body, ())

    @impl(simt.PtrLoadOp)
    def run_ptr_load(self, interp: SimtInterpreter, op: simt.PtrLoadOp, args: PythonValues):
        buffer, i = args
        return (
            buffer.read(
                element_index(interp, op, buffer, (i,), "simt.ptr_load (unchecked on the GPU)")
            ),
        )

    @impl(simt.PtrStoreOp)
    def run_ptr_store(self, interp: SimtInterpreter, op: simt.PtrStoreOp, args: PythonValues):
        value, buffer, i = args
        buffer.write(
            element_index(interp, op, buffer, (i,), "simt.ptr_store (unchecked on the GPU)"), value
        )
        return ()
