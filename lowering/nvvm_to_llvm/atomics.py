"""Scoped atomics to PTX `atom` through inline asm.

LLVM 22's NVPTX backend drops the syncscope and ordering of `atomicrmw`: `atomicrmw add ...
syncscope("block") acq_rel` and `... seq_cst` (system scope) both become a relaxed, gpu-scoped
`atom.global.add.u32`. Lowering to `llvm.atomicrmw` would silently weaken `sys` scope and every
ordering, so the exact instruction, `atom{.sem}{.scope}{.space}.<op>.<type>`, is emitted instead.
`seq_cst` is `fence.sc.<scope>` followed by an `acq_rel` atom, as PTX's memory model maps it.
"""

from xdsl.dialects.builtin import f32, f64, i32, i64
from xdsl.ir import Attribute
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects.nvvm.atomics import AtomicCASOp, AtomicRMWOp, address_space
from ferrox.dialects.nvvm.attributes import AtomicBinOp, MemOrder, MemScope
from ferrox.lowering.nvvm_to_llvm.support import ptx_asm

CONSTRAINT = {i32: "r", i64: "l", f32: "f", f64: "d"}
STATE_SPACE = {0: "", 1: ".global", 3: ".shared"}
RMW_PTX = {
    AtomicBinOp.ADD: ("add", "u"),
    AtomicBinOp.FADD: ("add", "f"),
    AtomicBinOp.MIN: ("min", "s"),
    AtomicBinOp.MAX: ("max", "s"),
    AtomicBinOp.UMIN: ("min", "u"),
    AtomicBinOp.UMAX: ("max", "u"),
    AtomicBinOp.XCHG: ("exch", "b"),
    AtomicBinOp.AND: ("and", "b"),
    AtomicBinOp.OR: ("or", "b"),
    AtomicBinOp.XOR: ("xor", "b"),
}


def _width(t: Attribute) -> int:
    return 64 if t in (i64, f64) else 32


def atom_instruction(
    operation: str, ptx_type: str, space: int, scope: MemScope, ordering: MemOrder
) -> str:
    """The PTX text before the operands, e.g. `atom.acq_rel.sys.global.add.f32`."""
    fence = f"fence.sc.{scope.value};\n\t" if ordering == MemOrder.SEQ_CST else ""
    sem = MemOrder.ACQ_REL if ordering == MemOrder.SEQ_CST else ordering
    if sem == MemOrder.RELAXED and scope == MemScope.GPU:
        qualifiers = ""  # a plain `atom` is relaxed at gpu scope, as LLVM emits it
    else:
        qualifiers = f".{sem.value}.{scope.value}"
    return f"{fence}atom{qualifiers}{STATE_SPACE[space]}.{operation}.{ptx_type}"


class AtomicRMWToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtomicRMWOp, rewriter: PatternRewriter) -> None:
        t = op.val.type
        operation, kind = RMW_PTX[op.bin_op.data]
        instruction = atom_instruction(
            operation,
            f"{kind}{_width(t)}",
            address_space(op.ptr.type),
            op.scope.data,
            op.ordering.data,
        )
        c = CONSTRAINT[t]
        asm = ptx_asm(f"{instruction} $0, [$1], $2;", f"={c},l,{c}", [op.ptr, op.val], t)
        rewriter.replace(op, asm)


class AtomicCASToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtomicCASOp, rewriter: PatternRewriter) -> None:
        t = op.cmp.type
        instruction = atom_instruction(
            "cas", f"b{_width(t)}", address_space(op.ptr.type), op.scope.data, op.ordering.data
        )
        c = CONSTRAINT[t]
        args = [op.ptr, op.cmp, op.new]
        asm = ptx_asm(f"{instruction} $0, [$1], $2, $3;", f"={c},l,{c},{c}", args, t)
        rewriter.replace(op, asm)
