"""Shared arrays (dialects/simt/shared.py): one array per `simt.shared_alloc` per block.

The GPU does not check a shared index; here an out-of-range one traps (each index against its
own dimension), so the oracle never reads wild.
"""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import simt
from ferrox.driver.interpreter.machine import SimtInterpreter
from ferrox.driver.interpreter.memory import shared_buffer
from ferrox.driver.interpreter.simt_ops.memory import element_index


def _name(value) -> str:
    return f"%{value.name_hint}" if value.name_hint else "the slice"


@register_impls
class SharedFunctions(InterpreterFunctions):
    @impl(simt.SharedAllocOp)
    def run_shared_alloc(self, interp: SimtInterpreter, op: simt.SharedAllocOp, args: PythonValues):
        shared = interp.block.shared
        buffer = shared.get(op)
        if buffer is None:
            t = op.result.type
            buffer = shared[op] = shared_buffer(t.element_type, t.get_shape(), _name(op.result))
        return (buffer,)

    @impl(simt.SharedLoadOp)
    def run_shared_load(self, interp: SimtInterpreter, op: simt.SharedLoadOp, args: PythonValues):
        buffer = args[0]
        return (buffer.read(element_index(interp, op, buffer, args[1:], "simt.shared_load")),)

    @impl(simt.SharedStoreOp)
    def run_shared_store(self, interp: SimtInterpreter, op: simt.SharedStoreOp, args: PythonValues):
        value, buffer = args[0], args[1]
        buffer.write(element_index(interp, op, buffer, args[2:], "simt.shared_store"), value)
        return ()
