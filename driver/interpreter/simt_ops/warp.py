"""Warp collectives (dialects/simt/warp.py). The thread blocks in its scheduler until the rest
of its warp arrives, then computes its own result from what every lane contributed.

Shuffles follow PTX's `shfl.sync` exactly (mask 0xffffffff, one 32-lane segment, clamp 31 or 0
for `up`, as `convert-simt-to-nvvm` emits): only the offset's low five bits count, and a lane
whose source falls outside the warp gets its own value. So `down 33` reads lane + 1 on the GPU
and here; the dialect page's "out of 0..31" describes offsets below 32. A lane that has exited,
or does not exist in a partial last warp, contributes nothing: reading its value gives poison,
and votes and ballots count only the lanes present.
"""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from ferrox.dialects import simt
from ferrox.dialects.simt import ShuffleMode
from ferrox.driver.interpreter.machine import SimtInterpreter
from ferrox.driver.interpreter.simt_ops.sync import scheduler
from ferrox.driver.interpreter.values import poison, signed, storage_dtype, unsigned


def source_lane(mode: ShuffleMode, lane: int, offset: int) -> int:
    """PTX shfl.sync's source lane j, or `lane` itself where j is out of range."""
    b = unsigned(offset, 32) & 31
    if mode == ShuffleMode.UP:
        j = lane - b
        return j if j >= 0 else lane
    if mode == ShuffleMode.DOWN:
        j = lane + b
        return j if j <= 31 else lane
    if mode == ShuffleMode.XOR:
        return lane ^ b
    return b


def _mode(op: simt.ShuffleOp) -> ShuffleMode:
    return op.mode.data


def _poison(op: Operation):
    return poison(storage_dtype(op.results[0].type))


@register_impls
class WarpFunctions(InterpreterFunctions):
    @impl(simt.ShuffleOp)
    def run_shuffle(self, interp: SimtInterpreter, op: simt.ShuffleOp, args: PythonValues):
        value, offset = args
        lanes = scheduler(interp, op).exchange(interp.thread, op, value)
        lane = interp.thread.linear & 31
        got = lanes[source_lane(interp.static(op, _mode), lane, offset)]
        return (interp.static(op, _poison) if got is None else got,)

    @impl(simt.VoteAllOp)
    def run_vote_all(self, interp: SimtInterpreter, op: simt.VoteAllOp, args: PythonValues):
        lanes = scheduler(interp, op).exchange(interp.thread, op, bool(args[0]))
        return (all(p for p in lanes if p is not None),)

    @impl(simt.VoteAnyOp)
    def run_vote_any(self, interp: SimtInterpreter, op: simt.VoteAnyOp, args: PythonValues):
        lanes = scheduler(interp, op).exchange(interp.thread, op, bool(args[0]))
        return (any(p for p in lanes if p is not None),)

    @impl(simt.BallotOp)
    def run_ballot(self, interp: SimtInterpreter, op: simt.BallotOp, args: PythonValues):
        lanes = scheduler(interp, op).exchange(interp.thread, op, bool(args[0]))
        return (signed(sum(1 << k for k, p in enumerate(lanes) if p), 32),)
