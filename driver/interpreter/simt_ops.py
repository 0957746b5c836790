"""The `simt` dialect's per-thread ops: calls and regions, ids, witnesses, global slices, shared
arrays and raw pointers. Barriers and warp collectives are in `collective_ops`, atomics in
`atomic_ops`.

The rules followed are docs/dialects/simt.md's (and the lowering's, where the doc leaves a
choice): a witness is in bounds when its coordinates lie in its space and its raw index is below
the slice's length, and only then does a `get_mut` region run; an out-of-range `simt.load`
traps. Shared arrays and raw pointers are unchecked on the GPU; here an out-of-range index
traps too (each shared index against its own dimension), so the oracle never reads wild.
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
from ferrox.driver.interpreter.memory import Buffer, Witness, shared_buffer
from ferrox.driver.interpreter.values import INDEX_WIDTH, signed, unsigned

_XYZ = "xyz"


def _dim(op: Operation) -> int:
    return _XYZ.index(op.dimension.data.value)  # type: ignore[attr-defined]


def _callee(op: simt.CallOp) -> simt.FuncOp | None:
    callee = op.callee_op()
    return callee if isinstance(callee, simt.FuncOp) else None


def _name(value) -> str:
    return f"%{value.name_hint}" if value.name_hint else "the slice"


def _global_x(interp: SimtInterpreter) -> int:
    t = interp.thread
    return t.bid[0] * interp.launch.block[0] + t.tid[0]


def _two_d(interp: SimtInterpreter, width: int) -> Witness:
    t, block = interp.thread, interp.launch.block
    col = t.bid[0] * block[0] + t.tid[0]
    row = t.bid[1] * block[1] + t.tid[1]
    raw = row * width + col
    # The lowering computes raw exactly in 128 bits and calls a wrapped index invalid.
    return Witness(raw, col < width and raw < 1 << INDEX_WIDTH)


def element_index(
    interp: SimtInterpreter, op: Operation, buffer: Buffer, indices, what: str
) -> int:
    """The flat index of `indices` in `buffer`, each checked against its dimension (a trap if out)."""
    if len(indices) == 1:
        i = indices[0]
        if 0 <= i < buffer.length:
            return i
        raise interp.trap(
            op,
            f"{what} out of range: index {unsigned(i, INDEX_WIDTH)} of {buffer.name} (length {buffer.length})",
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
class SimtFunctions(InterpreterFunctions):
    # --- calls and regions ---------------------------------------------------------------
    @impl(simt.CallOp)
    def run_call(self, interp: SimtInterpreter, op: simt.CallOp, args: PythonValues):
        callee = interp.static(op, _callee)
        if callee is None:
            raise interp.trap(op, f"'{op.callee}' does not name a 'simt.func'")
        return interp.call_region(callee.body, args)

    @impl_terminator(simt.ReturnOp)
    def run_return(self, interp: SimtInterpreter, op: simt.ReturnOp, args: PythonValues):
        return ReturnedValues(args), ()

    @impl_terminator(simt.YieldOp)
    def run_yield(self, interp: SimtInterpreter, op: simt.YieldOp, args: PythonValues):
        return ReturnedValues(args), ()

    @impl(simt.UnsafeOp)
    def run_unsafe(self, interp: SimtInterpreter, op: simt.UnsafeOp, args: PythonValues):
        return interp.run_ssacfg_region(op.body, ())

    # --- ids -----------------------------------------------------------------------------
    @impl(simt.ThreadIdOp)
    def run_thread_id(self, interp: SimtInterpreter, op: simt.ThreadIdOp, args: PythonValues):
        return (interp.thread.tid[interp.static(op, _dim)],)

    @impl(simt.BlockIdOp)
    def run_block_id(self, interp: SimtInterpreter, op: simt.BlockIdOp, args: PythonValues):
        return (interp.thread.bid[interp.static(op, _dim)],)

    @impl(simt.BlockDimOp)
    def run_block_dim(self, interp: SimtInterpreter, op: simt.BlockDimOp, args: PythonValues):
        return (interp.launch.block[interp.static(op, _dim)],)

    @impl(simt.GridDimOp)
    def run_grid_dim(self, interp: SimtInterpreter, op: simt.GridDimOp, args: PythonValues):
        return (interp.launch.grid[interp.static(op, _dim)],)

    @impl(simt.LaneIdOp)
    def run_lane_id(self, interp: SimtInterpreter, op: simt.LaneIdOp, args: PythonValues):
        return (interp.thread.linear & 31,)

    # --- witnesses -----------------------------------------------------------------------
    @impl(simt.ThreadIndex1DOp)
    def run_thread_index_1d(
        self, interp: SimtInterpreter, op: simt.ThreadIndex1DOp, args: PythonValues
    ):
        return (Witness(_global_x(interp), True),)

    @impl(simt.Index2DOp)
    def run_index_2d(self, interp: SimtInterpreter, op: simt.Index2DOp, args: PythonValues):
        return (_two_d(interp, op.stride),)

    @impl(simt.Index2DRuntimeOp)
    def run_index_2d_runtime(
        self, interp: SimtInterpreter, op: simt.Index2DRuntimeOp, args: PythonValues
    ):
        return (_two_d(interp, unsigned(args[0], INDEX_WIDTH)),)

    @impl(simt.WarpIndexOp)
    def run_warp_index(self, interp: SimtInterpreter, op: simt.WarpIndexOp, args: PythonValues):
        gid = _global_x(interp)
        return (Witness(gid >> 5, gid & 31 == 0),)

    @impl(simt.WitnessValueOp)
    def run_witness_value(
        self, interp: SimtInterpreter, op: simt.WitnessValueOp, args: PythonValues
    ):
        return (signed(args[0].raw, INDEX_WIDTH),)

    # --- global slices -------------------------------------------------------------------
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
                    f"{int(owner[i])} before this one): the launch does not fit the witness's index space",
                    KernelRace,
                )
            owner[i] = me
        (new,) = interp.run_ssacfg_region(op.body, (buffer.read(i),))
        buffer.write(i, new)
        return ()

    # --- shared memory -------------------------------------------------------------------
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

    # --- raw pointers --------------------------------------------------------------------
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
