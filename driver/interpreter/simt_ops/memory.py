"""Global slices (dialects/simt/memory.py): `simt.load`, `simt.len`, and `simt.get_mut` with its
`simt.yield`.

A witness is in bounds when its coordinates lie in its space and its raw index is below the
slice's length, and only then does a `get_mut` region run; an out-of-range `simt.load` traps. A
second thread writing an element of a disjoint slice is a race the launch caused (its grid does
not fit the witness's space), reported as such. `element_index` is the bounds check every
indexed access here shares (shared arrays, raw pointers, atomics).
"""

from __future__ import annotations

from xdsl.interpreter import (
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Operation

from ferrox.dialects import simt
from ferrox.driver.interpreter.errors import KernelRace
from ferrox.driver.interpreter.machine import SimtInterpreter
from ferrox.driver.interpreter.memory import Buffer
from ferrox.driver.interpreter.values import INDEX_WIDTH, unsigned


def element_index(
    interp: SimtInterpreter, op: Operation, buffer: Buffer, indices, what: str
) -> int:
    """The flat index of `indices` in `buffer`, each checked against its dimension (a trap if
    out)."""
    if len(indices) == 1:
        i = indices[0]
        if 0 <= i < buffer.length:
            return i
        raise interp.trap(
            op,
            f"{what} out of range: index {unsigned(i, INDEX_WIDTH)} of {buffer.name} "
            f"(length {buffer.length})",
        )
    flat = 0
    for i, d in zip(indices, buffer.shape):
        if not 0 <= i < d:
            shown = [unsigned(j, INDEX_WIDTH) for j in indices]
            raise interp.trap(
                op,
                f"{what} out of range: index {shown} of {buffer.name} (shape {list(buffer.shape)})",
            )
        flat = flat * d + i
    return flat


@register_impls
class MemoryFunctions(InterpreterFunctions):
    @impl(simt.LoadOp)
    def run_load(self, interp: SimtInterpreter, op: simt.LoadOp, args: PythonValues):
        buffer, i = args
        if 0 <= i < buffer.length:
            return (buffer.read(i),)
        return (buffer.read(element_index(interp, op, buffer, (i,), "simt.load")),)

    @impl(simt.LenOp)
    def run_len(self, interp: SimtInterpreter, op: simt.LenOp, args: PythonValues):
        return (args[0].length,)

    @impl(simt.GetMutOp)
    def run_get_mut(self, interp: SimtInterpreter, op: simt.GetMutOp, args: PythonValues):
        buffer, witness = args
        i = witness.raw
        if not (witness.valid and i < buffer.length):
            return ()  # Rust's `None`: the region does not run
        me = interp.global_thread()
        owner = buffer.owner
        if owner[i] != me:
            if owner[i] >= 0:
                raise interp.trap(
                    op,
                    f"element {i} of {buffer.name} is written by two threads (global thread "
                    f"{int(owner[i])} before this one): the launch does not fit the witness's "
                    "index space",
                    KernelRace,
                )
            owner[i] = me
        (new,) = interp.run_ssacfg_region(op.body, (buffer.read(i),))
        buffer.write(i, new)
        return ()

    @impl_terminator(simt.YieldOp)
    def run_yield(self, interp: SimtInterpreter, op: simt.YieldOp, args: PythonValues):
        return ReturnedValues(args), ()
