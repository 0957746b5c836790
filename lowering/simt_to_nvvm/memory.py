"""Global slices: bounds-checked loads, lengths, and `get_mut` as a guarded read-modify-write.

- `simt.load %a[%i]` traps unless `%i < len(%a)` (unsigned, so a negative index is out of range
  too), then loads. A shared slice is read-only for the whole launch (no disjoint or atomic slice
  may alias it), so its loads are `!invariant.load`: with the kernel's `noalias readonly`
  parameter, NVPTX reads them through the non-coherent cache (`ld.global.nc`), also from device
  functions that are inlined.
- `simt.len %a` is the slice's length parameter.
- `simt.get_mut %out[%w]` becomes `scf.if (valid && raw < len)` around: the element's address,
  the load of its current value (only when the region reads it), the region's body, and the
  store of the value it yields. No other path reaches the address.

Streaming chunk accesses (`streaming_load`, `streaming_store`), for the tile track's unchecked
whole-tile chunks (`tile_support.py`): a tile kernel reads each element of its input tiles once
and writes each output element once, so neither is worth a place in L1, nor, once written, in
L2 ahead of data still to be read. LLVM 22's NVPTX backend ignores `!nontemporal`, so these are
exact PTX: `ld.global.nc.L1::no_allocate` (the load is already `.nc`: a shared slice is
read-only for the launch, as above) and `st.global.cs` (streaming: evict first). Both are
cache policies only; what is read and written is the plain access's.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import DenseArrayBase, Float32Type, IntegerType, i64
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from ferrox.dialects.simt import GetMutOp, LenOp, LoadOp, YieldOp
from ferrox.dialects.simt.types import SliceType
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter, is_constant
from ferrox.lowering.simt_to_nvvm.types import memory_type


class LoadToChecked(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LoadOp, rewriter: PatternRewriter, /) -> None:
        element = op.result.type
        e = SimtEmitter.before(rewriter, op)
        address = e.checked_element(op.slice, op.index, element)
        value = e.load(address, element, invariant=isinstance(op.slice.type, SliceType))
        rewriter.replace(op, [], [value])


class LenToParam(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LenOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        _, length = e.unpack(op.slice)
        rewriter.replace(op, [], [e.to_index(length)])


class GetMutToGuardedStore(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GetMutOp, rewriter: PatternRewriter, /) -> None:
        element = op.slice.type.get_element_type()  # type: ignore[attr-defined]
        e = SimtEmitter.before(rewriter, op)
        ptr, length = e.unpack(op.slice)
        raw, valid = e.unpack(op.witness)
        always_valid = is_constant(valid, 1)
        in_bounds = e(arith.CmpiOp(raw, length, "ult"), "in_bounds" if always_valid else None)
        if not always_valid:
            in_bounds = e(arith.AndIOp(valid, in_bounds), "in_bounds")

        then = Block()
        inner = e.at(InsertPoint.at_end(then))
        address = inner.element(ptr, [raw], memory_type(element), inbounds=True)
        body = op.body.block
        old = body.args[0]
        if old.uses:
            current = inner.load(address, element)
            current.name_hint = old.name_hint
        else:
            rewriter.erase_block_argument(old)
            current = None
        yielded = body.last_op
        assert isinstance(yielded, YieldOp)
        rewriter.inline_block(
            body, InsertPoint.at_end(then), [current] if current is not None else []
        )
        tail = e.at(InsertPoint.before(yielded))
        tail.store(yielded.values[0], address)
        tail.emit(scf.YieldOp())
        rewriter.erase(yielded)
        e.emit(scf.IfOp(in_bounds, [], Region(then)))
        rewriter.erase(op)


STREAM_LOAD = "ld.global.nc.L1::no_allocate"
STREAM_STORE = "st.global.cs"


def _ptx_register(t: Attribute) -> tuple[str, str] | None:
    """(PTX type, inline-asm constraint) of a 32-bit element; None for any other."""
    if isinstance(t, Float32Type):
        return "f32", "f"
    if isinstance(t, IntegerType) and t.width.data == 32:
        return "b32", "r"
    return None


def streams(t: Attribute, w: int) -> bool:
    """Whether a chunk of `w` elements of memory type `t` has a streaming form (32-bit elements,
    one, two or four a chunk: one PTX vector access)."""
    return _ptx_register(t) is not None and w in (1, 2, 4)


def _vec(w: int) -> str:
    return f".v{w}" if w > 1 else ""


def streaming_load(e: SimtEmitter, address: SSAValue, t: Attribute, w: int) -> list[SSAValue]:
    """`w` elements of memory type `t` from `address` (a global pointer aligned to the chunk), read
    with `STREAM_LOAD`. No side effects and no memory clobber: the memory is read-only for the
    launch, so LLVM may move or merge the read as it would an invariant load."""
    ptx, reg = _ptx_register(t) or ("", "")
    outs = ", ".join(f"${j}" for j in range(w))
    outs = f"{{{outs}}}" if w > 1 else outs
    asm = f"{STREAM_LOAD}{_vec(w)}.{ptx} {outs}, [${w}];"
    constraints = ",".join([f"={reg}"] * w + ["l"])
    if w == 1:
        return [e(llvm.InlineAsmOp(asm, constraints, [address], [t]))]
    struct = llvm.LLVMStructType.from_type_list([t] * w)
    result = e(llvm.InlineAsmOp(asm, constraints, [address], [struct]))
    return [e(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [j]), result, t)) for j in range(w)]


def streaming_store(e: SimtEmitter, address: SSAValue, values: Sequence[SSAValue]) -> None:
    """`values` (32-bit, one PTX vector) to `address` with `STREAM_STORE`; a side effect and a
    memory clobber keep it where the plain store was."""
    w = len(values)
    ptx, reg = _ptx_register(values[0].type) or ("", "")
    ins = ", ".join(f"${j + 1}" for j in range(w))
    ins = f"{{{ins}}}" if w > 1 else ins
    asm = f"{STREAM_STORE}{_vec(w)}.{ptx} [$0], {ins};"
    constraints = ",".join(["l"] + [reg] * w + ["~{memory}"])
    e.emit(llvm.InlineAsmOp(asm, constraints, [address, *values], None, has_side_effects=True))


MEMORY_PATTERNS: tuple[RewritePattern, ...] = (
    LoadToChecked(),
    LenToParam(),
    GetMutToGuardedStore(),
)
