"""Thread, block and lane ids (dialects/simt/ids.py), read from the running thread and the
launch's dimensions."""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from ferrox.dialects import simt
from ferrox.driver.interpreter.machine import SimtInterpreter

_XYZ = "xyz"


def _dim(op: Operation) -> int:
    return _XYZ.index(op.dimension.data.value)  # type: ignore[attr-defined]


@register_impls
class IdFunctions(InterpreterFunctions):
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
