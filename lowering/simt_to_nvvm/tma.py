"""The TMA and mbarrier ops (`dialects/simt/tma.py`) to PTX inline assembly (sm_90; LLVM 22 has
intrinsics for some of them, but one spelling for all keeps the operand forms in one place).

- `simt.mbarrier_init`: `mbarrier.init.shared::cta.b64`, then `fence.mbarrier_init.release.cluster`
  so the async proxy (the TMA unit) sees the initialised barrier once the block has synchronised.
- `simt.mbarrier_arrive_expect_tx` / `simt.mbarrier_arrive`: `mbarrier.arrive.expect_tx` /
  `mbarrier.arrive` (state discarded: `_`).
- `simt.mbarrier_wait`: `mbarrier.try_wait.parity` in a loop, in a `{ }` scope so its predicate
  and label are local to each copy of the asm.
- `simt.tma_load`: `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`
  with coordinates `{col, row}` (innermost first) through the kernel's tensor-map parameter.
  Before it, traps: unless the tile's box fits in the shared array from the offset (the only
  shared-side check the op needs, since the hardware writes exactly the box), unless the
  destination is aligned (128 bytes; 1024 with the 128-byte swizzle, whose pattern is on address
  bits, so only then is the layout the one the op names), and unless both coordinates are below
  2^31 (PTX takes them as s32). The global side needs no check: the hardware clips the box to
  the tensor map's bounds, and the runtime builds the map inside the array (docs/safety.md).

The tensor maps: `prepare_tensor_maps` (run by `convert_simt_to_nvvm` before its walk) numbers
each kernel's distinct maps (`tensor_map_keys`) on the kernel and on each load. The first load
lowered in a kernel appends one parameter a map to the lowered kernel: a pointer `byval([128 x
i8])`, `align 64`, `nvvm.grid_constant`, which NVPTX emits as `.param .align 64 .b8 [128]` and
whose address (`cvta.param`) is the generic address `cp.async.bulk.tensor` reads the map at.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.artifact import TensorMap
from ferrox.dialects.simt.kernel import KernelOp
from ferrox.dialects.simt.tma import (
    MbarrierArriveExpectTxOp,
    MbarrierArriveOp,
    MbarrierInitOp,
    MbarrierWaitOp,
    TmaLoadOp,
    tensor_map_keys,
)
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.lowering.nvvm_to_llvm.support import CONVERGENT, ptx_asm
from ferrox.lowering.simt_to_nvvm.abi import (
    ABI_ATTR,
    element_kind,
    read_signature,
    signature_attr,
)
from ferrox.lowering.simt_to_nvvm.pipeline import _if
from ferrox.lowering.simt_to_nvvm.shared import shared_element
from ferrox.lowering.simt_to_nvvm.support import TRAP, SimtEmitter

MAPS_ATTR = "ferrox.tensor_maps"
"""On a kernel: how many tensor-map parameters follow its own (set by `prepare_tensor_maps`)."""
MAP_ATTR = "ferrox.tensor_map"
"""On a `simt.tma_load`: the number of the map it reads through."""
ADDED_ATTR = "ferrox.tensor_maps_added"
"""On a lowered kernel: its tensor-map parameters are in place."""
TENSOR_MAP_KIND = "tensormap"
"""The map's kind in the lowered kernel's `ferrox.abi` signature."""
TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGN = 64
GRID_CONSTANT = "nvvm.grid_constant"


def prepare_tensor_maps(module: ModuleOp) -> None:
    """Number each kernel's tensor maps (on the kernel) and the map each load reads (on the
    load), before any op is lowered: the keys name the kernel's parameters, which the kernel's
    lowering replaces."""
    for kernel in module.walk():
        if not isinstance(kernel, KernelOp):
            continue
        keys = tensor_map_keys(kernel)
        if not keys:
            continue
        kernel.attributes[MAPS_ATTR] = IntegerAttr(len(keys), i64)
        for op in kernel.walk():
            if isinstance(op, TmaLoadOp):
                key = op.key()
                assert key is not None  # the verifier holds loads to kernel parameters
                op.attributes[MAP_ATTR] = IntegerAttr(keys.index(key), i64)


def map_param_attrs() -> DictionaryAttr:
    """A tensor-map parameter's attributes: passed by value, 64-byte aligned, grid-constant."""
    array = llvm.LLVMArrayType(IntAttr(TENSOR_MAP_BYTES), i8)
    return DictionaryAttr(
        {
            "llvm.byval": array,
            "llvm.align": IntegerAttr(TENSOR_MAP_ALIGN, i64),
            GRID_CONSTANT: UnitAttr(),
        }
    )


def _function(op: Operation) -> func.FuncOp | None:
    owner = op.parent_op()
    while owner is not None and not isinstance(owner, func.FuncOp | KernelOp):
        owner = owner.parent_op()
    return owner if isinstance(owner, func.FuncOp) else None


def _map_argument(fn: func.FuncOp, number: int, rewriter: PatternRewriter) -> SSAValue:
    """The lowered kernel's parameter for map `number`, appended with the others at first use."""
    count_attr = fn.attributes.get(MAPS_ATTR)
    assert isinstance(count_attr, IntegerAttr)
    count = count_attr.value.data
    entry = fn.body.blocks[0]
    if ADDED_ATTR not in fn.attributes:
        ptr = llvm.LLVMPointerType()
        inputs = list(fn.function_type.inputs.data)
        old_attrs = (
            list(fn.arg_attrs.data)
            if fn.arg_attrs is not None
            else [DictionaryAttr({}) for _ in inputs]
        )
        for _ in range(count):
            rewriter.insert_block_argument(entry, len(entry.args), ptr)
        fn.function_type = FunctionType.from_lists(
            [*inputs, *([ptr] * count)], list(fn.function_type.outputs.data)
        )
        fn.arg_attrs = ArrayAttr([*old_attrs, *([map_param_attrs()] * count)])
        kinds = read_signature(fn.attributes.get(ABI_ATTR)) or []
        fn.attributes[ABI_ATTR] = signature_attr([*kinds, *([TENSOR_MAP_KIND] * count)])
        fn.attributes[ADDED_ATTR] = UnitAttr()
    return entry.args[len(entry.args) - count + number]


def _asm(asm: str, constraints: str, args, result: Attribute | None = None) -> llvm.InlineAsmOp:
    op = ptx_asm(asm, constraints, args, result)
    op.attributes[CONVERGENT] = UnitAttr()
    return op


def _address(e: SimtEmitter, array: SSAValue, index: SSAValue) -> SSAValue:
    """The shared address of `array[index]` as an i64 (PTX reads it as a shared-window address)."""
    return e(llvm.PtrToIntOp(shared_element(e, array, [index]), i64))


def _i32(e: SimtEmitter, value: SSAValue) -> SSAValue:
    return e(arith.TruncIOp(e.to_i64(value), i32))


def _trap_if(e: SimtEmitter, bad: SSAValue) -> None:
    _if(e, bad, [], lambda b: (b.emit(llvm.CallIntrinsicOp(TRAP, [], [])), [])[1])


class MbarrierInitToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MbarrierInitOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        address = _address(e, op.barriers, op.index)
        asm = "mbarrier.init.shared::cta.b64 [$0], $1;\nfence.mbarrier_init.release.cluster;"
        e.emit(_asm(asm, "l,r", [address, _i32(e, op.count)]))
        rewriter.erase(op)


class MbarrierArriveExpectTxToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MbarrierArriveExpectTxOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        address = _address(e, op.barriers, op.index)
        asm = "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;"
        e.emit(_asm(asm, "l,r", [address, _i32(e, op.bytes)]))
        rewriter.erase(op)


class MbarrierArriveToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MbarrierArriveOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        address = _address(e, op.barriers, op.index)
        e.emit(_asm("mbarrier.arrive.shared::cta.b64 _, [$0];", "l", [address]))
        rewriter.erase(op)


class MbarrierWaitToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MbarrierWaitOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        address = _address(e, op.barriers, op.index)
        parity = e(arith.AndIOp(_i32(e, op.parity), e.const(1, i32)))
        asm = (  # one line: the scope keeps the predicate and label local to each copy
            "{ .reg .pred p; FERROX_MBAR_WAIT: "
            "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1; "
            "@!p bra FERROX_MBAR_WAIT; }"
        )
        e.emit(_asm(asm, "l,r", [address, parity]))
        rewriter.erase(op)


class TmaLoadToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TmaLoadOp, rewriter: PatternRewriter, /) -> None:
        fn = _function(op)
        if fn is None:
            return  # the kernel is lowered first (the walk is pre-order): then this op
        number = op.attributes.get(MAP_ATTR)
        assert isinstance(number, IntegerAttr), "prepare_tensor_maps numbers every TMA load"
        tensor_map = _map_argument(fn, number.value.data, rewriter)
        e = SimtEmitter.before(rewriter, op)
        t = op.tile.type
        assert isinstance(t, SharedArrayType)
        rows, cols = op.box_shape
        (length,) = t.get_shape()
        offset = e.to_i64(op.offset)
        # The box fits in the tile: offset <= length - box (no wrap: length >= box, verified).
        _trap_if(e, e(arith.CmpiOp(offset, e.const(length - rows * cols), "ugt"), "tile_range"))
        destination = _address(e, op.tile, op.offset)
        align = 1024 if op.swizzle.value.data == 128 else 128
        misaligned = e(arith.AndIOp(destination, e.const(align - 1)))
        _trap_if(e, e(arith.CmpiOp(misaligned, e.const(0), "ne"), "unaligned_tile"))
        limit = e.const(2**31 - 1)
        row, col = e.to_i64(op.row), e.to_i64(op.col)
        wide = e(
            arith.OrIOp(e(arith.CmpiOp(row, limit, "ugt")), e(arith.CmpiOp(col, limit, "ugt")))
        )
        _trap_if(e, wide)
        barrier = _address(e, op.barriers, op.bar_index)
        map_address = e(llvm.PtrToIntOp(tensor_map, i64))
        asm = (
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
            "[$0], [$1, {$2, $3}], [$4];"
        )
        args = [destination, map_address, _i32(e, op.col), _i32(e, op.row), barrier]
        e.emit(_asm(asm, "l,l,r,r,l", args))
        rewriter.erase(op)


TMA_PATTERNS: tuple[RewritePattern, ...] = (
    MbarrierInitToPtx(),
    MbarrierArriveExpectTxToPtx(),
    MbarrierArriveToPtx(),
    MbarrierWaitToPtx(),
    TmaLoadToPtx(),
)


def artifact_maps(kernel: KernelOp) -> tuple[TensorMap, ...]:
    """The kernel's tensor maps as the artifact records them, in parameter order."""
    return tuple(
        TensorMap(k.param, k.rows_param, k.cols_param, element_kind(k.element), k.box, k.swizzle)
        for k in tensor_map_keys(kernel)
    )
