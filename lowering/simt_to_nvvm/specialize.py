"""`simt.specialize` and `simt.setmaxnreg` (dialects/simt/specialize.py), lowered before the
pattern conversion (`convert.py`), while each op still sees the region it sits in:

- every `simt.sync_threads` of a region becomes `nvvm.barrier id = B, number_of_threads = N`
  (PTX `bar.sync B, N`): the partition's own named barrier and thread count;
- every `simt.tile_index` of the consumer region gets `simt.partition_threads = P` (the
  consumers' count), which `tile_support.py` takes for `P` in `c = k * P + t`;
- the op becomes `scf.if %tid.x >= consumers { producer } else { consumer }`, each region's
  `simt.yield` an `scf.yield`;
- `simt.setmaxnreg` becomes `setmaxnreg.{inc,dec}.sync.aligned.u32 N` (inline PTX, convergent:
  sm_90a only, as wgmma, whose kernels are the only ones that split).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, UnitAttr, i32, i64
from xdsl.ir import Region
from xdsl.rewriter import InsertPoint, Rewriter

from ferrox.dialects import nvvm
from ferrox.dialects.simt import KernelOp, SyncThreadsOp, ThreadIdOp, TileIndexOp, YieldOp
from ferrox.dialects.simt.specialize import SetMaxNRegOp, SpecializeOp, partition_threads
from ferrox.lowering.nvvm_to_llvm.support import CONVERGENT, ptx_asm
from ferrox.passes.disjoint.common import walk

PARTITION_ATTR = "simt.partition_threads"


def lower_specialize(module: ModuleOp) -> None:
    """Lower every `simt.specialize` and `simt.setmaxnreg` of `module` in place."""
    specs = _specializations(module)
    caps = [r.block.first_op for s in specs for r in (s.producer, s.consumer)]
    for spec in specs:
        _partition_ops(spec)
        _split(spec)
    for op in caps:
        if not isinstance(op, SetMaxNRegOp):
            continue
        asm = ptx_asm(f"setmaxnreg.{op.action.data.value}.sync.aligned.u32 {op.registers};", "", [])
        asm.attributes[CONVERGENT] = UnitAttr()
        Rewriter.replace_op(op, asm)


def _specializations(module: ModuleOp) -> list[SpecializeOp]:
    """Each kernel's `simt.specialize`, found where its verifier puts it (just before the entry
    block's `simt.return`, a `simt.setmaxnreg` first in a region) rather than by walking every
    op of every compile: most kernels have none."""
    found: list[SpecializeOp] = []
    for op in module.ops:
        if isinstance(op, ModuleOp):
            found += _specializations(op)
        elif isinstance(op, KernelOp) and op.body.blocks:
            last = op.body.blocks[0].last_op
            if last is not None and isinstance(last.prev_op, SpecializeOp):
                found.append(last.prev_op)
    return found


def _partition_ops(spec: SpecializeOp) -> None:
    for op in walk(spec):
        if isinstance(op, SyncThreadsOp):
            found = partition_threads(op)
            assert found is not None
            _, count, barrier = found
            ids = [arith.ConstantOp(IntegerAttr(v, i32)) for v in (barrier, count)]
            bar = nvvm.BarrierOp(ids[0].result, ids[1].result)
            bar.location = op.location
            Rewriter.replace_op(op, [*ids, bar], [])
        elif isinstance(op, TileIndexOp):
            found = partition_threads(op)
            assert found is not None and found[0] == 0  # witnesses only in the consumers
            op.attributes[PARTITION_ATTR] = IntegerAttr(found[1], i64)


def _split(spec: SpecializeOp) -> None:
    consumers = spec.consumer_threads()
    tid = ThreadIdOp("x")
    bound = arith.ConstantOp(IntegerAttr(consumers, IndexType()))
    cond = arith.CmpiOp(tid.result, bound.result, "uge")
    regions = []
    for region in (spec.producer, spec.consumer):
        block = region.block
        last = block.last_op
        assert isinstance(last, YieldOp)
        Rewriter.replace_op(last, scf.YieldOp())
        region.detach_block(block)
        regions.append(Region(block))
    branch = scf.IfOp(cond.result, [], regions[0], regions[1])
    for new in (tid, bound, cond, branch):
        new.location = spec.location
    Rewriter.insert_op([tid, bound, cond, branch], InsertPoint.before(spec))
    Rewriter.erase_op(spec)


__all__ = ["PARTITION_ATTR", "lower_specialize"]
