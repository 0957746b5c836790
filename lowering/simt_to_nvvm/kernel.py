"""Kernels, device functions, calls and returns to `func`.

`simt.kernel @k` becomes `func.func @k` marked `nvvm.kernel`, with the ABI of `abi.py` (a slice
parameter becomes a global pointer and an i64 length, with `llvm.noalias`/`llvm.readonly`/
`llvm.align`), the launch contract's block as `nvvm.reqntid = array<i32: x, y, z>` and the
signature as `ferrox.abi`; `convert-to-llvm` then makes it an `llvm.func` and the exporter a
`ptx_kernel` with `.reqntid`. `simt.func` becomes an internal `func.func` (so LLVM may inline it
and drop it), with slices split the same way; `simt.call` and `simt.return` follow.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import DenseArrayBase, FunctionType, UnitAttr, i32
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from ferrox.dialects.simt import CallOp, FuncOp, KernelOp, ReturnOp
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.lowering.build import extract_value, insert_value, position
from ferrox.lowering.simt_to_nvvm import abi, tma
from ferrox.lowering.simt_to_nvvm.facts import assume_requires
from ferrox.lowering.simt_to_nvvm.support import KERNEL_ATTR, REQNTID_ATTR, SimtEmitter
from ferrox.lowering.simt_to_nvvm.types import SHARED_PTR, expanded, is_simt_type, packed

LINKAGE_ATTR = "llvm.linkage"


def _device_param(t: Attribute) -> abi.Param:
    """A device function may also take a shared-memory array, as its addrspace(3) address."""
    if isinstance(t, SharedArrayType):
        return abi.Param((SHARED_PTR,), ({},))
    return abi.param(t)


def _split_entry_block(
    rewriter: PatternRewriter, origin: Operation, block: Block, params: Sequence[abi.Param]
) -> None:
    """Give the entry block one argument per ABI parameter; each SIMT argument becomes the cast
    of its parts, for the patterns of its users."""
    e = SimtEmitter(InsertPoint.at_start(block), origin.location, rewriter, origin)
    for old, p in zip(list(block.args), params):
        index = block.args.index(old)
        parts = [rewriter.insert_block_argument(block, index + i, t) for i, t in enumerate(p.types)]
        for part, suffix in zip(parts, ("", "_len")):
            part.name_hint = f"{old.name_hint}{suffix}" if old.name_hint else None
        if len(parts) == 1 and parts[0].type == old.type:
            rewriter.replace_all_uses_with(old, parts[0])
        else:
            rewriter.replace_all_uses_with(old, e.pack(parts, old.type))
        rewriter.erase_block_argument(old)


def _lower_function(
    rewriter: PatternRewriter,
    op: KernelOp | FuncOp,
    params: Sequence[abi.Param],
    results: Sequence[Attribute],
    attributes: dict[str, Attribute],
) -> None:
    inputs = [t for p in params for t in p.types]
    body = rewriter.move_region_contents_to_new_regions(op.body)
    new = func.FuncOp(
        op.sym_name.data,
        FunctionType.from_lists(inputs, results),
        body,
        arg_attrs=abi.arg_attrs(params) if any(a for p in params for a in p.attrs) else None,
    )
    new.attributes.update(attributes)
    new.location = op.location
    _split_entry_block(rewriter, op, new.body.blocks[0], params)
    rewriter.replace(op, new, [])


class KernelToFunc(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: KernelOp, rewriter: PatternRewriter, /) -> None:
        inputs = list(op.function_type.inputs.data)
        params = [abi.param(t) for t in inputs]
        attributes: dict[str, Attribute] = {
            **op.attributes,
            KERNEL_ATTR: UnitAttr(),
            abi.ABI_ATTR: abi.signature_attr(abi.signature(inputs)),
        }
        if op.contract is not None:
            attributes[REQNTID_ATTR] = DenseArrayBase.from_list(i32, op.contract.block_xyz)
        relations = op.contract.relations if op.contract is not None else ()
        entry = op.body.blocks[0]
        maps = tma.annotate(op)  # TMA loads' tensor maps: parameters after the kernel's own
        _lower_function(rewriter, op, params, [], attributes)
        if maps:
            fn = entry.parent_op()
            assert isinstance(fn, func.FuncOp)
            tma.append_map_params(rewriter, fn, maps)
        if relations:  # the checker proved them before any safe launch: tell LLVM (facts.py)
            e = SimtEmitter(InsertPoint.before(entry.first_op), op.location, rewriter, op)  # type: ignore[arg-type]
            assume_requires(e, entry, inputs, relations)


def result_type(types: Sequence[Attribute]) -> list[Attribute]:
    """A device function's one result: none, the packed value, or a struct of several (as MLIR's
    func-to-llvm returns several results)."""
    if len(types) <= 1:
        return [packed(t) for t in types]
    return [llvm.LLVMStructType.from_type_list([packed(t) for t in types])]


def _struct(e: SimtEmitter, t: Attribute, values: Sequence[SSAValue]) -> SSAValue:
    struct = e(llvm.UndefOp(t))
    for i, v in enumerate(values):
        struct = e(insert_value(position(i), struct, v))
    return struct


def _to_packed(e: SimtEmitter, value: SSAValue) -> SSAValue:
    """A SIMT value as one value: itself, its only part, or a struct of its parts."""
    parts = e.unpack(value)
    return parts[0] if len(parts) == 1 else _struct(e, packed(value.type), parts)


def _from_packed(e: SimtEmitter, value: SSAValue, t: Attribute) -> SSAValue:
    """The value of SIMT-level type `t` that the packed `value` carries."""
    if not is_simt_type(t):
        return value
    parts = expanded(t)
    if len(parts) == 1:
        return e.pack([value], t)
    return e.pack([e(extract_value(position(i), value, pt)) for i, pt in enumerate(parts)], t)


class FuncToFunc(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FuncOp, rewriter: PatternRewriter, /) -> None:
        params = [_device_param(t) for t in op.function_type.inputs.data]
        outputs = list(op.function_type.outputs.data)
        for t in outputs:
            _device_param(t)  # refuses witnesses with the reason
        attributes = {**op.attributes, LINKAGE_ATTR: llvm.LinkageAttr("internal")}
        _lower_function(rewriter, op, params, result_type(outputs), attributes)


class CallToFunc(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallOp, rewriter: PatternRewriter, /) -> None:
        types = [r.type for r in op.res]
        e = SimtEmitter.before(rewriter, op)
        args = [part for a in op.arguments for part in e.unpack(a)]
        (*call_results,) = e.emit(func.CallOp(op.callee, args, result_type(types))).results
        if len(types) > 1:
            call_results = [
                e(extract_value(position(i), call_results[0], packed(t)))
                for i, t in enumerate(types)
            ]
        rewriter.replace(op, [], [_from_packed(e, v, t) for v, t in zip(call_results, types)])


class ReturnToFunc(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReturnOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        values = [_to_packed(e, v) for v in op.values]
        if len(values) > 1:
            t = llvm.LLVMStructType.from_type_list([v.type for v in values])
            values = [_struct(e, t, values)]
        e.emit(func.ReturnOp(*values))
        rewriter.erase(op)


KERNEL_PATTERNS: tuple[RewritePattern, ...] = (
    KernelToFunc(),
    FuncToFunc(),
    CallToFunc(),
    ReturnToFunc(),
)
