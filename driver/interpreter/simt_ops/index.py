"""Witnesses (dialects/simt/index.py): each thread's index in its space, and whether it is in
that space at all (a 2-D witness past the row's width, or past 2^64, is not)."""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import simt
from ferrox.driver.interpreter.machine import SimtInterpreter
from ferrox.driver.interpreter.memory import Witness
from ferrox.driver.interpreter.values import INDEX_WIDTH, signed, unsigned


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


@register_impls
class IndexFunctions(InterpreterFunctions):
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
