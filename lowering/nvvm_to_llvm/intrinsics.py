"""The LLVM 22 NVPTX intrinsic table: every intrinsic the nvvm lowering calls.

The patterns take names from the functions here, and `INTRINSIC_TABLE` lists each name with its
LLVM IR signature and the PTX instruction it must become, so a test can compile every entry with
llvmlite and check it (an intrinsic LLVM does not know silently becomes an external call).
"""

from __future__ import annotations

from dataclasses import dataclass

from ferrox.dialects.nvvm.attributes import (
    MemScope,
    MMAType,
    ReduxKind,
    ShflKind,
    VoteSyncKind,
)

PREFIX = "llvm.nvvm."

BARRIER_ALL = "llvm.nvvm.barrier.cta.sync.aligned.all"
"""`bar.sync id` (the id may be a register); `llvm.nvvm.barrier0` is its deprecated alias."""
BARRIER_COUNT = "llvm.nvvm.barrier.cta.sync.aligned.count"
"""`bar.sync id, n`."""
BAR_WARP_SYNC = "llvm.nvvm.bar.warp.sync"

MEMBAR = {
    MemScope.CTA: "llvm.nvvm.membar.cta",
    MemScope.GPU: "llvm.nvvm.membar.gl",
    MemScope.SYS: "llvm.nvvm.membar.sys",
    MemScope.CLUSTER: "llvm.nvvm.fence.sc.cluster",
}
FENCE_SC_CLUSTER = "llvm.nvvm.fence.sc.cluster"
"""The only scoped fence with an intrinsic; the others are LLVM `fence` instructions."""

MMA = {
    MMAType.F16: "llvm.nvvm.mma.m16n8k16.row.col.f32.f32",
    MMAType.BF16: "llvm.nvvm.mma.m16n8k16.row.col.bf16",
    MMAType.TF32: "llvm.nvvm.mma.m16n8k8.row.col.tf32",
}
"""f16 mma intrinsics are named by their D and C types, the others by their multiplicand type."""
CP_ASYNC_CG_16 = "llvm.nvvm.cp.async.cg.shared.global.16.s"
"""`cp.async.cg.shared.global [dst], [src], 16, src_size` (`.s`: with the source size operand)."""
CP_ASYNC_COMMIT = "llvm.nvvm.cp.async.commit.group"
CP_ASYNC_WAIT = "llvm.nvvm.cp.async.wait.group"


def special_register(register: str) -> str:
    return f"{PREFIX}read.ptx.sreg.{register}"


def shfl(kind: ShflKind, is_float: bool, with_predicate: bool) -> str:
    return f"{PREFIX}shfl.sync.{kind.value}.{'f32' if is_float else 'i32'}" + (
        "p" if with_predicate else ""
    )


def vote(kind: VoteSyncKind) -> str:
    return f"{PREFIX}vote.{kind.value}.sync"


def redux(kind: ReduxKind) -> str:
    return f"{PREFIX}redux.sync.{kind.value}"


def ldmatrix(num: int, transposed: bool, address_space: int) -> str:
    """Overloaded on the pointer type: `.p3` reads a shared pointer, `.p0` a generic one."""
    trans = ".trans" if transposed else ""
    return f"{PREFIX}ldmatrix.sync.aligned.m8n8.x{num}{trans}.b16.p{address_space}"


@dataclass(frozen=True)
class Intrinsic:
    """One table entry: the name, its LLVM IR signature, and the PTX it must produce."""

    name: str
    result: str
    args: tuple[str, ...]
    ptx: str


SREG_PTX = {"laneid": "%laneid", "warpsize": "WARP_SZ"}
REDUX_PTX = {
    ReduxKind.ADD: "add.s32",
    ReduxKind.MIN: "min.s32",
    ReduxKind.MAX: "max.s32",
    ReduxKind.UMIN: "min.u32",
    ReduxKind.UMAX: "max.u32",
    ReduxKind.AND: "and.b32",
    ReduxKind.OR: "or.b32",
    ReduxKind.XOR: "xor.b32",
}
MMA_PTX = {
    MMAType.F16: "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    MMAType.BF16: "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    MMAType.TF32: "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
}
MMA_REGISTER = {MMAType.F16: "<2 x half>", MMAType.BF16: "i32", MMAType.TF32: "i32"}
MEMBAR_PTX = {
    MemScope.CTA: "membar.cta",
    MemScope.GPU: "membar.gl",
    MemScope.SYS: "membar.sys",
    MemScope.CLUSTER: "fence.sc.cluster",
}
SPECIAL_REGISTERS = tuple(
    [f"{r}.{d}" for r in ("tid", "ntid", "ctaid", "nctaid") for d in "xyz"] + ["laneid", "warpsize"]
)


def _struct(types: list[str]) -> str:
    return "{" + ", ".join(types) + "}"


def _table() -> tuple[Intrinsic, ...]:
    t: list[Intrinsic] = []
    for reg in SPECIAL_REGISTERS:
        t.append(Intrinsic(special_register(reg), "i32", (), SREG_PTX.get(reg, f"%{reg}")))
    t.append(Intrinsic(BARRIER_ALL, "void", ("i32",), "bar.sync"))
    t.append(Intrinsic(BARRIER_COUNT, "void", ("i32", "i32"), "bar.sync"))
    t.append(Intrinsic(BAR_WARP_SYNC, "void", ("i32",), "bar.warp.sync"))
    for kind in ShflKind:
        for ty in ("i32", "float"):
            for pred in (False, True):
                res = _struct([ty, "i1"]) if pred else ty
                ptx = f"shfl.sync.{kind.value}.b32"
                name = shfl(kind, ty == "float", pred)
                t.append(Intrinsic(name, res, ("i32", ty, "i32", "i32"), ptx))
    for kind in VoteSyncKind:
        res = "i32" if kind == VoteSyncKind.BALLOT else "i1"
        ptx = f"vote.sync.{kind.value}." + ("b32" if res == "i32" else "pred")
        t.append(Intrinsic(vote(kind), res, ("i32", "i1"), ptx))
    for kind in ReduxKind:
        t.append(Intrinsic(redux(kind), "i32", ("i32", "i32"), f"redux.sync.{REDUX_PTX[kind]}"))
    for scope, name in MEMBAR.items():
        t.append(Intrinsic(name, "void", (), MEMBAR_PTX[scope]))
    for ptx_type, name in MMA.items():
        reg = MMA_REGISTER[ptx_type]
        args = (reg,) * 6 + ("float",) * 4
        t.append(Intrinsic(name, _struct(["float"] * 4), args, MMA_PTX[ptx_type]))
    for num in (1, 2, 4):
        for trans in (False, True):
            for space in (3, 0):
                res = "i32" if num == 1 else _struct(["i32"] * num)
                ptr = "ptr addrspace(3)" if space == 3 else "ptr"
                ptx = "ldmatrix.sync.aligned.m8n8.x{}{}{}.b16".format(
                    num, ".trans" if trans else "", ".shared" if space == 3 else ""
                )
                t.append(Intrinsic(ldmatrix(num, trans, space), res, (ptr,), ptx))
    t.append(
        Intrinsic(
            CP_ASYNC_CG_16,
            "void",
            ("ptr addrspace(3)", "ptr addrspace(1)", "i32"),
            "cp.async.cg.shared.global",
        )
    )
    t.append(Intrinsic(CP_ASYNC_COMMIT, "void", (), "cp.async.commit_group"))
    t.append(Intrinsic(CP_ASYNC_WAIT, "void", ("i32 immarg",), "cp.async.wait_group"))
    # Deduplicate (fence.sc.cluster is both a membar scope and a fence) keeping the first entry.
    seen: dict[str, Intrinsic] = {}
    for entry in t:
        seen.setdefault(entry.name, entry)
    return tuple(seen.values())


INTRINSIC_TABLE: tuple[Intrinsic, ...] = _table()
INTRINSIC_NAMES = frozenset(entry.name for entry in INTRINSIC_TABLE)
