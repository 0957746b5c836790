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
  bits, so only then is the layout the one the op names), and unless every coordinate is below
  2^31 (PTX takes them as s32). The global side needs no check: the hardware clips the box to
  the tensor map's bounds, and the runtime builds the map inside the array (docs/safety.md).

The tensor maps: each kernel takes one parameter a distinct map (`tensor_map_keys`, in program
order) after its own: a pointer `byval([128 x i8])`, `align 64`, `nvvm.grid_constant`, which
NVPTX emits as `.param .align 64 .b8 <kernel>_param_<i>[128]`, never copied. `KernelToFunc`
appends them (`append_map_params`); a load reaches its map by that PTX name inside its asm
(`mov.b64` then `cvta.param`: the map's generic address, which `cp.async.bulk.tensor` reads), so
it needs no SSA value of the lowered kernel and lowers the same before or after the kernel (the
conversion does not depend on the walk's order). Each load's map is numbered from its key (the
kernel's parameters it names); the lowered asm keeps the key (`KEY_ATTR`) so that the kernel's
maps are counted alike whichever of its loads are lowered already.
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
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
    TensorMapKey,
    TmaLoadOp,
    tensor_map_keys,
)
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.dialects.typetest import type_test
from ferrox.lowering.build import call_intrinsic
from ferrox.lowering.nvvm_to_llvm.support import CONVERGENT, ptx_asm
from ferrox.lowering.simt_to_nvvm.abi import (
    ABI_ATTR,
    element_kind,
    param,
    read_signature,
    signature_attr,
)
from ferrox.lowering.simt_to_nvvm.pipeline import _if
from ferrox.lowering.simt_to_nvvm.shared import shared_element
from ferrox.lowering.simt_to_nvvm.support import TRAP, SimtEmitter
from ferrox.passes.disjoint.common import walk

MAPS_ATTR = "ferrox.tensor_maps"
"""On a lowered kernel: how many tensor-map parameters follow its own."""
MAP_ATTR = "ferrox.tensor_map"
"""On a `simt.tma_load` (set by `annotate`): the number of the map it reads through."""
KEY_ATTR = "ferrox.tensor_map_key"
"""On a TMA load, and on the asm it lowers to: the key of its map (`_encode`)."""
TENSOR_MAP_KIND = "tensormap"
"""The map's kind in the lowered kernel's `ferrox.abi` signature."""
TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGN = 64
GRID_CONSTANT = "nvvm.grid_constant"


def _encode(key: TensorMapKey) -> ArrayAttr:
    ints = (key.param, key.rows_param, key.cols_param, *key.box, key.swizzle, key.planes_param)
    return ArrayAttr([*(IntegerAttr(v, i64) for v in ints), key.element])


def _decode(attr: Attribute) -> TensorMapKey:
    assert isinstance(attr, ArrayAttr) and len(attr.data) == 8
    p, r, c, b0, b1, sw, planes = (a.value.data for a in attr.data[:7])
    return TensorMapKey(p, r, c, attr.data[7], (b0, b1), sw, planes)


def _key(op: Operation) -> TensorMapKey | None:
    """The key of a TMA load, lowered or not (None for any other op)."""
    if KEY_ATTR in op.attributes:
        return _decode(op.attributes[KEY_ATTR])
    return cast(TmaLoadOp, op).key() if _is_tma_load(op) else None


_is_tma_load = type_test(TmaLoadOp)


def kernel_map_keys(kernel: Operation) -> list[TensorMapKey]:
    """The kernel's distinct maps in program order, its loads lowered or not."""
    keys: list[TensorMapKey] = []
    for op in walk(kernel):
        key = _key(op)
        if key is not None and key not in keys:
            keys.append(key)
    return keys


def annotate(kernel: KernelOp) -> int:
    """Before the kernel's parameters are replaced: record on each TMA load its key and map
    number (what `TmaLoadToPtx` reads once the kernel is lowered); the number of maps."""
    keys: list[TensorMapKey] = []  # (`kernel_map_keys`, in the same walk)
    loads: list[tuple[TmaLoadOp, TensorMapKey]] = []
    for op in walk(kernel):
        key = _key(op)
        if key is None:
            continue
        if key not in keys:
            keys.append(key)
        if _is_tma_load(op):
            loads.append((cast(TmaLoadOp, op), key))
    for op, key in loads:
        op.attributes[KEY_ATTR] = _encode(key)
        op.attributes[MAP_ATTR] = IntegerAttr(keys.index(key), i64)
    return len(keys)


def append_map_params(rewriter: PatternRewriter, fn: func.FuncOp, count: int) -> None:
    """Append `count` tensor-map parameters to the lowered kernel `fn` (`KernelToFunc`)."""
    ptr = llvm.LLVMPointerType()
    inputs = list(fn.function_type.inputs.data)
    old_attrs = (
        list(fn.arg_attrs.data)
        if fn.arg_attrs is not None
        else [DictionaryAttr({}) for _ in inputs]
    )
    entry = fn.body.blocks[0]
    for _ in range(count):
        rewriter.insert_block_argument(entry, len(entry.args), ptr)
    fn.function_type = FunctionType.from_lists(
        [*inputs, *([ptr] * count)], list(fn.function_type.outputs.data)
    )
    fn.arg_attrs = ArrayAttr([*old_attrs, *([map_param_attrs()] * count)])
    kinds = read_signature(fn.attributes.get(ABI_ATTR)) or []
    fn.attributes[ABI_ATTR] = signature_attr([*kinds, *([TENSOR_MAP_KIND] * count)])
    fn.attributes[MAPS_ATTR] = IntegerAttr(count, i64)


def _map_param_name(op: TmaLoadOp) -> str:
    """The PTX name of the parameter holding `op`'s map, from its kernel lowered or not."""
    owner = op.parent_op()
    while owner is not None and not isinstance(owner, func.FuncOp | KernelOp):
        owner = owner.parent_op()
    assert owner is not None, "the verifier holds TMA loads to kernels"
    if isinstance(owner, KernelOp):  # not lowered yet: count its parameters' PTX parameters
        own = sum(len(param(t).types) for t in owner.function_type.inputs.data)
        keys = kernel_map_keys(owner)
        key = _key(op)
        assert key is not None
        number = keys.index(key)
    else:
        count, number_attr = owner.attributes.get(MAPS_ATTR), op.attributes.get(MAP_ATTR)
        assert isinstance(count, IntegerAttr) and isinstance(number_attr, IntegerAttr)
        own = len(owner.function_type.inputs.data) - count.value.data
        number = number_attr.value.data
    return f"{owner.sym_name.data}_param_{own + number}"


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
    _if(e, bad, [], lambda b: (b.emit(call_intrinsic(TRAP, [])), [])[1])


def _predicated(asm: str, operand: int) -> str:
    """`asm` (one instruction) run only where operand `$operand` (an i32) is non-zero: a PTX
    predicate, no branch."""
    return f"{{ .reg .pred q; setp.ne.b32 q, ${operand}, 0; @q {asm} }}"


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
        args = [address, _i32(e, op.bytes)]
        if op.pred is not None:
            asm, args = _predicated(asm, 2), [*args, e(arith.ExtUIOp(op.pred, i32))]
        e.emit(_asm(asm, "l,r" + (",r" if op.pred is not None else ""), args))
        rewriter.erase(op)


class MbarrierArriveToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MbarrierArriveOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        address = _address(e, op.barriers, op.index)
        asm, args = "mbarrier.arrive.shared::cta.b64 _, [$0];", [address]
        if op.pred is not None:
            asm, args = _predicated(asm, 1), [*args, e(arith.ExtUIOp(op.pred, i32))]
        e.emit(_asm(asm, "l" + (",r" if op.pred is not None else ""), args))
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
        name = _map_param_name(op)
        key = _key(op)
        assert key is not None
        e = SimtEmitter.before(rewriter, op)
        t = op.tile.type
        assert isinstance(t, SharedArrayType)
        rows, cols = op.box_shape
        (length,) = t.get_shape()
        offset = e.to_i64(op.offset)
        # The box fits in the tile: offset <= length - box (no wrap: length >= box, verified).
        pred = op.pred
        # The checks hold on every thread that reaches the op, predicated or not: a trap under
        # the predicate would put a divergent branch next to the wgmma ops again.
        _trap_if(e, e(arith.CmpiOp(offset, e.const(length - rows * cols), "ugt"), "tile_range"))
        destination = _address(e, op.tile, op.offset)
        align = 1024 if op.swizzle.value.data == 128 else 128
        misaligned = e(arith.AndIOp(destination, e.const(align - 1)))
        _trap_if(e, e(arith.CmpiOp(misaligned, e.const(0), "ne"), "unaligned_tile"))
        limit = e.const(2**31 - 1)
        coordinates = [op.col, op.row, *([op.plane] if op.plane is not None else [])]
        wide = None
        for x in coordinates:
            over = e(arith.CmpiOp(e.to_i64(x), limit, "ugt"))
            wide = over if wide is None else e(arith.OrIOp(wide, over))
        assert wide is not None
        _trap_if(e, wide)
        barrier = _address(e, op.barriers, op.bar_index)
        n = len(coordinates)
        guard, at, constraints = "", "", "l," + "r," * n + "l"
        args = [destination, *(_i32(e, x) for x in coordinates), barrier]
        if pred is not None:  # predicated, not branched around (module docstring)
            guard, at = f".reg .pred q; setp.ne.b32 q, ${n + 2}, 0; ", "@q "
            constraints += ",r"
            args.append(e(arith.ExtUIOp(pred, i32)))
        listed = ", ".join(f"${k + 1}" for k in range(n))
        asm = (  # the map's generic address from its parameter's name, then the copy
            f"{{ .reg .b64 m; {guard}mov.b64 m, {name}; cvta.param.u64 m, m; {at}"
            f"cp.async.bulk.tensor.{n}d.shared::cluster.global.mbarrier::complete_tx::bytes "
            f"[$0], [m, {{{listed}}}], [${n + 1}]; }}"
        )
        copy = _asm(asm, constraints, args)
        copy.attributes[KEY_ATTR] = _encode(key)
        e.emit(copy)
        rewriter.erase(op)


TMA_PATTERNS: tuple[RewritePattern, ...] = (
    MbarrierInitToPtx(),
    MbarrierArriveExpectTxToPtx(),
    MbarrierArriveToPtx(),
    MbarrierWaitToPtx(),
    TmaLoadToPtx(),
)


def artifact_maps(kernel: KernelOp, ops: list[Operation] | None = None) -> tuple[TensorMap, ...]:
    """The kernel's tensor maps as the artifact records them, in parameter order (`ops`: the
    kernel's walk, where the caller has it)."""
    return tuple(
        TensorMap(
            k.param,
            k.rows_param,
            k.cols_param,
            element_kind(k.element),
            k.box,
            k.swizzle,
            k.planes_param,
        )
        for k in tensor_map_keys(kernel, walk(kernel) if ops is None else ops)
    )
