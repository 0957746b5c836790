"""Instruction selection from the llvm dialect to llvmlite: xDSL's `convert_op`, fixed and extended.

Each op that xDSL gets wrong for GPUs or lacks has a converter here; every other op goes to
xDSL's `convert_op` unchanged. The fixes: a GEP keeps its base pointer's address space (xDSL
bitcasts it to `ptr`, addrspace 0, which LLVM rejects for `ptr addrspace(1)`); loads and stores
keep `volatile`, atomic ordering and `syncscope`; intrinsic ops are named with their mangled
types (`llvm.floor.v4f32`, `llvm.masked.store.v4f32.p1`; xDSL crashes on a vector or bf16 type,
or leaves the name bare) and keep their fast-math flags; calls use the callee's calling
convention and may be `convergent`; NVVM intrinsics that synchronise (barriers, shuffles, votes)
are declared `convergent` so that no LLVM pass moves them under divergent control flow
(docs/safety.md#simt-7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llvmlite import ir
from llvmlite.ir.values import Block as LLVMBlock
from xdsl.backend.llvm.convert_op import (  # pyright: ignore[reportPrivateUsage]
    _BINARY_INTRINSIC_MAP,
    _UNARY_INTRINSIC_MAP,
    _VECTOR_REDUCE_INTRINSIC_MAP,
    CastInstrWithFlags,
)
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import AnyFloat, IntegerAttr, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.type import get_element_type_or_self

from ferrox.dialects import llvm as fx
from ferrox.dialects.llvm.enums import ordering_name
from ferrox.targets.llvm_export import instructions as li
from ferrox.targets.llvm_export.types import bit_width, intrinsic_suffix
from ferrox.targets.llvm_export.xdsl_ops import converter as xdsl_converter
from ferrox.targets.llvm_export.xdsl_ops import ignoring_blocks

ValueMap = dict[SSAValue, ir.Value]

CONVERGENT_INTRINSIC_PREFIXES = (
    "llvm.nvvm.barrier",
    "llvm.nvvm.bar.",
    "llvm.nvvm.shfl.",
    "llvm.nvvm.vote.",
    "llvm.nvvm.match.",
    "llvm.nvvm.redux.",
    "llvm.nvvm.mma.",
    "llvm.nvvm.wmma.",
    "llvm.nvvm.ldmatrix.",
    "llvm.nvvm.stmatrix.",
    "llvm.nvvm.cp.async.wait",
    "llvm.nvvm.fence.proxy",
)
"""Intrinsics whose result depends on which other threads execute them with this one."""

_LLVM_BIN_OPS = {"_and": "and", "_or": "or", "_xor": "xor"}


class ExportError(Exception):
    """An op this exporter cannot turn into LLVM IR; carries the op for a located diagnostic."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op


def is_convergent_intrinsic(name: str) -> bool:
    return name.startswith(CONVERGENT_INTRINSIC_PREFIXES)


def _flag(op: Operation, name: str) -> bool:
    return isinstance(op.properties.get(name) or op.attributes.get(name), UnitAttr)


def _int(attr: IntegerAttr | None) -> int | None:
    return attr.value.data if attr is not None else None


def _str(op: Operation, name: str) -> str | None:
    attr = op.properties.get(name) or op.attributes.get(name)
    return attr.data if isinstance(attr, StringAttr) else None


def _insert(builder: ir.IRBuilder, instr: ir.Instruction) -> ir.Instruction:
    builder._insert(instr)  # pyright: ignore[reportPrivateUsage]
    return instr


def _gep(op: llvm.GEPOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    dynamic = iter(op.ssa_indices)
    indices = [
        vals[next(dynamic)] if index == llvm.GEP_USE_SSA_VAL else ir.Constant(ir.IntType(32), index)
        for index in op.rawConstantIndices.iter_values()
    ]
    inbounds = op.inbounds is not None or bool(op.noWrapFlags.value.data & 1)
    vals[op.result] = b.gep(
        vals[op.ptr], indices, inbounds=inbounds, source_etype=convert_type(op.elem_type)
    )


def _ordering(op: Operation) -> str | None:
    """The atomic ordering of a load or store (xDSL's custom syntax leaves it an attribute)."""
    attr = op.properties.get("ordering") or op.attributes.get("ordering")
    if not isinstance(attr, IntegerAttr) or attr.value.data == 0:
        return None
    return ordering_name(attr)


def _natural_align(typ: ir.Type) -> int:
    return max(1, (bit_width(typ) or 64) // 8)


def _load(op: llvm.LoadOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    typ = convert_type(op.dereferenced_value.type)
    ordering = _ordering(op)
    align = _int(op.alignment) or (_natural_align(typ) if ordering else None)
    instr = li.Load(
        b.block, vals[op.ptr], typ, ordering, _str(op, "syncscope"), align, _flag(op, "volatile_")
    )
    _insert(b, instr)
    if _flag(op, "invariant"):
        instr.set_metadata("invariant.load", b.module.add_metadata([]))
    if _flag(op, "nontemporal"):
        instr.set_metadata("nontemporal", b.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))
    vals[op.dereferenced_value] = instr


def _store(op: llvm.StoreOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    value = vals[op.value]
    ordering = _ordering(op)
    align = _int(op.alignment) or (_natural_align(value.type) if ordering else None)
    instr = li.Store(
        b.block, value, vals[op.ptr], ordering, _str(op, "syncscope"), align, _flag(op, "volatile_")
    )
    _insert(b, instr)
    if _flag(op, "nontemporal"):
        instr.set_metadata("nontemporal", b.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))


_LEADING_FENCE = {"release": "release", "acq_rel": "release", "seq_cst": "seq_cst"}
_TRAILING_FENCE = {"acquire": "acquire", "acq_rel": "acquire", "seq_cst": "acquire"}


def _atomicrmw(op: fx.AtomicRMWOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    """A monotonic `atomicrmw` between fences when the ordering is stronger than monotonic.

    LLVM 22's NVPTX backend emits every `atomicrmw` as a relaxed `atom` (no `.acq_rel`, no fence),
    whatever its ordering; the fences restore it, as in the PTX memory model's mapping of C++
    atomics (release = fence then strong write; acquire = strong read then fence).
    """
    name = _LLVM_BIN_OPS.get(op.bin_op_name, op.bin_op_name)
    scope = op.syncscope.data if op.syncscope else None
    ordering = op.ordering_name
    if ordering in _LEADING_FENCE:
        b.fence(_LEADING_FENCE[ordering], scope)
    fenced = ordering in _LEADING_FENCE or ordering in _TRAILING_FENCE
    instr = li.AtomicRMW(
        b.block, name, vals[op.ptr], vals[op.val], "monotonic" if fenced else ordering,
        scope, _int(op.alignment), op.volatile_ is not None,
    )  # fmt: skip
    vals[op.res] = _insert(b, instr)
    if ordering in _TRAILING_FENCE:
        b.fence(_TRAILING_FENCE[ordering], scope)


def _cmpxchg(op: fx.CmpXchgOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    instr = li.CmpXchg(
        b.block, vals[op.ptr], vals[op.cmp], vals[op.val],
        ordering_name(op.success_ordering), ordering_name(op.failure_ordering),
        op.syncscope.data if op.syncscope else None, _int(op.alignment),
        op.weak is not None, op.volatile_ is not None,
    )  # fmt: skip
    vals[op.res] = _insert(b, instr)


def _fence(op: fx.FenceOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    b.fence(ordering_name(op.ordering), op.syncscope.data if op.syncscope else None)


def _cast(name: str) -> Callable[[Operation, ir.IRBuilder, ValueMap], None]:
    def convert(op: Operation, b: ir.IRBuilder, vals: ValueMap) -> None:
        flags = ["nneg"] if _flag(op, "nonNeg") else []
        instr = CastInstrWithFlags(
            b.block, name, vals[op.operands[0]], convert_type(op.results[0].type), flags=flags
        )
        vals[op.results[0]] = _insert(b, instr)

    return convert


def _fastmath(op: Operation) -> list[str]:
    flags = op.properties.get("fastmathFlags")
    return [f.value for f in flags.data] if isinstance(flags, llvm.FastMathAttr) else []


def _intrinsic(op: fx.IntrinsicOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    args = [vals[v] for v in op.operands]
    for name in op.IMMEDIATES:
        flag = op.properties[name]
        assert isinstance(flag, IntegerAttr)
        args.append(ir.Constant(ir.IntType(1), flag.value.data != 0))
    result = convert_type(op.results[0].type)
    name = f"{op.INTRINSIC}.{intrinsic_suffix(result)}"
    fn = _declare(b.module, op, name, ir.FunctionType(result, [a.type for a in args]))
    vals[op.results[0]] = b.call(fn, args, fastmath=_fastmath(op))


_XDSL_INTRINSICS: dict[type[Operation], str] = {
    **_UNARY_INTRINSIC_MAP,
    **_BINARY_INTRINSIC_MAP,
    llvm.FMAOp: "llvm.fma",
}
"""xDSL's float intrinsic ops; each intrinsic is overloaded on the result type alone."""


def _xdsl_intrinsic(op: Operation, b: ir.IRBuilder, vals: ValueMap) -> None:
    """xDSL's float intrinsic ops, mangled with their type (xDSL's exporter crashes on a vector,
    `llvm.floor.v4f32`) and with their fast-math flags (it drops them, and NVPTX lowers `llvm.sin`
    only under `afn`)."""
    args = [vals[v] for v in op.operands]
    result = convert_type(op.results[0].type)
    name = f"{_XDSL_INTRINSICS[type(op)]}.{intrinsic_suffix(result)}"
    fn = _declare(b.module, op, name, ir.FunctionType(result, [a.type for a in args]))
    vals[op.results[0]] = b.call(fn, args, fastmath=_fastmath(op))


def _vector_reduce(op: llvm.VectorReduceOperation, b: ir.IRBuilder, vals: ValueMap) -> None:
    """`llvm.vector.reduce.fadd.v4f32(start, v)`, mangled with the vector type; it adds the lanes
    in order unless the op says `reassoc` (xDSL drops the flags)."""
    start, vector = vals[op.start_value], vals[op.vector]
    name = f"{_VECTOR_REDUCE_INTRINSIC_MAP[type(op)]}.{intrinsic_suffix(vector.type)}"
    fn = _declare(b.module, op, name, ir.FunctionType(start.type, [start.type, vector.type]))
    vals[op.res] = b.call(fn, [start, vector], fastmath=_fastmath(op))


def _masked_store(op: llvm.MaskedStoreOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    """`llvm.masked.store.v4f32.p1(value, ptr, i32 align, mask)`, mangled with the value and pointer
    types (xDSL leaves the name bare). LLVM 22 moved the alignment onto the pointer; its IR reader
    upgrades this form."""
    value, ptr, mask = vals[op.value], vals[op.data], vals[op.mask]
    align = ir.Constant(ir.IntType(32), op.alignment.value.data)
    name = f"llvm.masked.store.{intrinsic_suffix(value.type)}.{intrinsic_suffix(ptr.type)}"
    fnty = ir.FunctionType(ir.VoidType(), [value.type, ptr.type, align.type, mask.type])
    b.call(_declare(b.module, op, name, fnty), [value, ptr, align, mask])


def _declare(module: ir.Module, op: Operation, name: str, fnty: ir.FunctionType) -> ir.Function:
    existing = module.globals.get(name)
    if existing is None:
        return ir.Function(module, fnty, name=name)
    if not isinstance(existing, ir.Function) or existing.function_type != fnty:
        raise ExportError(
            op, f"'{name}' is used with type {fnty} here but was declared with {existing.type}"
        )
    return existing


def _is_float(value: SSAValue | None) -> bool:
    """LLVM accepts fast-math flags only on calls that return floating-point values."""
    return value is not None and isinstance(get_element_type_or_self(value.type), AnyFloat)


def _call_intrinsic(op: llvm.CallIntrinsicOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    if op.op_bundle_operands:
        raise ExportError(op, "operand bundles are not supported")
    args = [vals[a] for a in op.args]
    result = convert_type(op.ress.type) if op.ress is not None else ir.VoidType()
    name = op.intrin.data
    fn = _declare(b.module, op, name, ir.FunctionType(result, [a.type for a in args]))
    convergent = is_convergent_intrinsic(name) or _flag(op, "convergent")
    if convergent:
        fn.attributes.add("convergent")
    flags = [f.value for f in op.fastmathFlags.data] if _is_float(op.ress) else []
    call = b.call(fn, args, fastmath=flags, attrs=["convergent"] if convergent else [])
    if op.ress is not None:
        vals[op.ress] = call


def _inline_asm(op: llvm.InlineAsmOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    args = [vals[a] for a in op.operands_]
    result = convert_type(op.res.type) if op.res is not None else ir.VoidType()
    asm = ir.InlineAsm(
        ir.FunctionType(result, [a.type for a in args]),
        op.asm_string.data,
        op.constraints.data,
        side_effect=op.has_side_effects is not None,
    )
    call = b.call(asm, args, attrs=["convergent"] if _flag(op, "convergent") else [])
    if op.res is not None:
        vals[op.res] = call


def _call(op: llvm.CallOp, b: ir.IRBuilder, vals: ValueMap) -> None:
    if op.callee is None:
        raise ExportError(op, "indirect calls are not supported")
    if op.op_bundle_operands:
        raise ExportError(op, "operand bundles are not supported")
    callee = b.module.globals.get(op.callee.string_value())
    if not isinstance(callee, ir.Function):
        raise ExportError(op, f"call to unknown function {op.callee}")
    cconv = op.CConv.cconv_name
    cconv = callee.calling_convention if cconv == "ccc" else cconv
    returns_float = _is_float(op.returned)
    call = b.call(
        callee,
        [vals[a] for a in op.args],
        cconv=cconv or None,
        tail=op.TailCallKind.data != "none",
        fastmath=[f.value for f in op.fastmathFlags.data] if returns_float else [],
        attrs=["convergent"] if _flag(op, "convergent") else [],
    )
    if op.returned is not None:
        vals[op.returned] = call


# Each converter takes its own op class (the dict's key), hence `Any` for the op.
_CONVERTERS: dict[type[Operation], Callable[[Any, ir.IRBuilder, ValueMap], None]] = {
    llvm.GEPOp: _gep,
    llvm.LoadOp: _load,
    llvm.StoreOp: _store,
    llvm.CallIntrinsicOp: _call_intrinsic,
    llvm.InlineAsmOp: _inline_asm,
    llvm.CallOp: _call,
    llvm.VectorReduceFAddOp: _vector_reduce,
    llvm.VectorReduceFMulOp: _vector_reduce,
    llvm.MaskedStoreOp: _masked_store,
    fx.AtomicRMWOp: _atomicrmw,
    fx.CmpXchgOp: _cmpxchg,
    fx.FenceOp: _fence,
    fx.AddrSpaceCastOp: _cast("addrspacecast"),
    fx.FPToSIOp: _cast("fptosi"),
    fx.FPToUIOp: _cast("fptoui"),
    fx.UIToFPOp: _cast("uitofp"),
    fx.ExtractElementOp: lambda op, b, vals: vals.__setitem__(
        op.res, b.extract_element(vals[op.vector], vals[op.position])
    ),
    fx.PoisonOp: lambda op, b, vals: vals.__setitem__(op.res, li.Poison(convert_type(op.res.type))),
    fx.FreezeOp: lambda op, b, vals: vals.__setitem__(
        op.res, _insert(b, li.Freeze(b.block, vals[op.val]))
    ),
}  # pyright: ignore[reportAssignmentType]


def convert_op(
    op: Operation, b: ir.IRBuilder, vals: ValueMap, blocks: dict[Block, LLVMBlock]
) -> None:
    """Emit `op` at `b`; raise `ExportError` for an op that has no LLVM IR form."""
    route = _ROUTES.get(type(op))
    if route is None:
        route = _ROUTES[type(op)] = _route(type(op))
    route(op, b, vals, blocks)


Route = Callable[[Any, ir.IRBuilder, ValueMap, dict[Block, LLVMBlock]], None]

_ROUTES: dict[type[Operation], Route] = {}
"""How ops of each class are emitted, worked out on the class's first op (`_route`): the tests
made once per class instead of once per op (`isinstance` against an op class goes through an
ABC, a microsecond each)."""


def _route(cls: type[Operation]) -> Route:
    """ferrox's converter of the class, else its intrinsic ops, else xDSL's (`xdsl_ops`)."""
    if (convert := _CONVERTERS.get(cls)) is not None:
        return ignoring_blocks(convert)
    if issubclass(cls, fx.IntrinsicOp):
        return ignoring_blocks(_intrinsic)
    if cls in _XDSL_INTRINSICS:
        return ignoring_blocks(_xdsl_intrinsic)
    xdsl = xdsl_converter(cls)

    def other(op: Operation, b: ir.IRBuilder, vals: ValueMap, blocks: dict) -> None:
        if not op.name.startswith("llvm."):  # (an unregistered op's name is its own)
            raise ExportError(
                op,
                f"'{op.name}' has no LLVM IR form: lower it to the llvm dialect first "
                "(the lower-to-llvm pipeline)",
            )
        try:
            xdsl(op, b, vals, blocks)
        except NotImplementedError as e:
            raise ExportError(op, f"'{op.name}' cannot be exported to LLVM IR yet ({e})") from None

    return other
