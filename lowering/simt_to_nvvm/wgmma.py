"""The warpgroup tensor-core ops (`dialects/simt/wgmma.py`) to PTX inline assembly (LLVM 22 has
no wgmma intrinsic), for sm_90a only (`check_target`):
- `simt.wgmma`: one `wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}` with the accumulators
  tied in and out (`"=f"` outputs, `"0".."N/2-1"` inputs), so LLVM keeps them in the same
  registers; an accumulator of constant +0.0 values (the first product of a chain) becomes the
  asm's scale-d 0 (`D = A B`) with undefined inputs instead, so no `mov` writes those registers
  between the `wgmma.fence` and the wgmma (PTX wants every such register write before the
  fence; the result differs from `0 + A B` at most in the sign of a zero); its two
  shared-memory matrix descriptors are made inside the asm from an address
  register and an immediate byte offset (the constant part of the index), so a K loop unrolled
  over static stages holds one register per array, not one descriptor per wgmma. Once per array,
  right after the op that makes it, a predicated trap unless its base is 1024-byte aligned: the
  128-byte swizzle is on address bits, so only an aligned base gives the layout the op's meaning
  names.
- `simt.wgmma_reg_a`: the same asm in PTX's register-A form, `{d..}, {a0, a1, a2, a3}, db, p,
  1, 1, trans-b` (A's four i32 registers as `"r"` inputs; no A descriptor, no trans-a).
- `simt.wgmma_fence`: `fence.proxy.async.shared::cta` (shared writes of the generic proxy, such
  as `cp.async` and `st.shared`, become visible to wgmma's async proxy) and `wgmma.fence`;
  `{registers}`: `wgmma.fence` alone.
- `simt.wgmma_commit` / `simt.wgmma_wait`: `wgmma.commit_group` / `wgmma.wait_group N`, the wait
  with its values tied through it, so no use of them moves above it. Values still in flight
  after a wait with N > 0 cross loop back edges as LLVM phis; ptxas keeps a wgmma pipeline in
  its registers and, where other code could touch them, inserts its own waits (its notes C7517
  to C7520 say where; `python -m benchmarks.wgmma` prints them).

- `simt.wgmma_store`: the fragment as pairs of f32 stores to shared memory (the first of each
  pair 8-byte aligned, which NVPTX's store vectoriser merges).

Every asm is `convergent` with side effects and a memory clobber: LLVM neither sinks it into
divergent code nor reorders it with loads and stores.

No branch may sit between a wgmma and the wait that retires it: ptxas then serialises every
wgmma of the kernel (C7518). So the ops a K loop issues in flight lower without branches
(`simt.async_copy` to predicated PTX, `lowering/simt_to_nvvm/pipeline.py`).

The descriptor (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the start address >> 4, 16-29
the leading-dimension byte offset >> 4 (unused by a K-major swizzled tile: 1), 32-45 the stride
byte offset >> 4 (1024 bytes between groups of 8 rows: 64), 62-63 the swizzle mode (1: 128-byte).
A step of 16 elements along K adds 32 bytes to the start address, inside the swizzle atom.

An MN-major B (`b_mn_stride = L`; PTX's transposed B, `imm-trans-b` 1): the descriptor's leading
byte offset is the distance between blocks of 64 columns of N (`2 L` bytes), its stride byte
offset the distance between groups of 8 rows along K (1024 bytes, as for K-major); the matrix
starts at the 16 k-rows of the first block (a step along K adds 2048 bytes, whole atoms). That is
the canonical MN-major 128-byte-swizzle layout of the PTX ISA's "Shared Memory Matrix Layout"
(the repeating pattern along MN at the leading offset, along K at the stride offset).
"""

from __future__ import annotations

import functools
import math
import weakref

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    UnitAttr,
    f32,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects import nvvm
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.dialects.simt.wgmma import (
    WGMMA_OPS,
    WgmmaCommitOp,
    WgmmaFenceOp,
    WgmmaOp,
    WgmmaRegAOp,
    WgmmaStoreOp,
    WgmmaWaitOp,
)
from ferrox.dialects.typetest import type_test
from ferrox.lowering import knobs
from ferrox.lowering.build import extract_value, position
from ferrox.lowering.nvvm_to_llvm.support import CONVERGENT, ptx_asm
from ferrox.lowering.simt_to_nvvm.shared import shared_element
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter

WGMMA_CHIP = "sm_90a"
SWIZZLE_ALIGN = 1024
STAGE_OFFSET_IN_ASM = False
"""Whether a shared B whose index is `x * c + constant` (`c` a multiple of 8 elements: a runtime
stage of a loop's stage array) takes the descriptor of its array's base, made once in LLVM (loop
invariant, hoisted), and adds `x * c / 8` (a 32-bit register) and the constant's part to its low
word in the asm (`_stage_split`), instead of a descriptor made in the loop from the stage's
address each iteration (docs/performance.md, "Fused attention, ninth session"). A knob for
timing, off until the GPU has run it; A keeps its descriptor (made in LLVM from the address
less the constant part: the SIMT TMA GEMM's A descriptors hoisted took it from 168 to 255
registers)."""


def descriptor_bits(leading_bytes: int) -> int:
    """The fixed fields of a shared-matrix descriptor: leading byte offset `leading_bytes`
    (encoded >> 4), stride byte offset 1024 (64: between groups of 8 rows), 128-byte swizzle
    (1)."""
    return ((leading_bytes >> 4) << 16) | (64 << 32) | (1 << 62)


DESCRIPTOR_BITS = descriptor_bits(16)
"""K-major operands: leading byte offset 16."""


def check_target(module: ModuleOp, chip: str) -> None:
    """wgmma exists only on sm_90a (the arch-specific target): refuse any other chip at the first
    wgmma op, a located diagnostic, before LLVM and ptxas see it."""
    if chip == WGMMA_CHIP:
        return
    for op in module.walk():
        if _is_wgmma(op):  # (by class: each op on a compile's path, against six ABCs)
            diag = DiagnosticEngine()
            diag.error(
                op,
                f"'{op.name}' needs the arch-specific target {WGMMA_CHIP} (PTX wgmma), but the "
                f'target is {chip}: set "ferrox.chip" = "{WGMMA_CHIP}" on the module or compile '
                f"with --chip {WGMMA_CHIP}",
            )
            diag.raise_if_errors()


_is_wgmma = type_test(WGMMA_OPS)


def _asm(asm: str, constraints: str, args, result=None) -> llvm.InlineAsmOp:
    op = ptx_asm(asm, constraints, args, result)
    op.attributes[CONVERGENT] = UnitAttr()
    return op


@functools.cache
def _struct(count: int) -> llvm.LLVMStructType:
    return llvm.LLVMStructType.from_type_list([f32] * count)


def _tied(e: SimtEmitter, asm: str, values, extra_constraints: str, extra) -> list[SSAValue]:
    """Run `asm` with `values` as tied f32 in-out operands ($0..), then `extra` operands."""
    n = len(values)
    outs = ",".join(["=f"] * n)
    ins = ",".join(str(k) for k in range(n))
    constraints = ",".join(c for c in (outs, ins, extra_constraints) if c)
    if n == 0:
        e.emit(_asm(asm, extra_constraints, list(extra)))
        return []
    result = e(_asm(asm, constraints, [*values, *extra], _struct(n)))
    parts = e.emit_all([extract_value(position(k), result, f32) for k in range(n)])
    return [part.results[0] for part in parts]


_CHECKED: weakref.WeakKeyDictionary[Operation, bool] = weakref.WeakKeyDictionary()
"""The arrays (by defining op) whose alignment trap has been emitted, once each, after the op."""


def _split(index: SSAValue) -> tuple[SSAValue | None, int]:
    """`index` as a value plus a constant (None: all constant), through `arith.addi` of
    constants, so the constant goes into the asm as an immediate: the descriptors of a K loop
    unrolled over static stages then share one register per array instead of holding one each
    (LLVM hoists every loop-invariant descriptor, which spilled)."""
    owner = index.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return None, owner.value.value.data
    if isinstance(owner, arith.AddiOp):
        (x, a), (y, b) = _split(owner.lhs), _split(owner.rhs)
        if x is None or y is None:
            return (y if x is None else x), a + b
    return index, 0


def _stage_split(index: SSAValue) -> tuple[SSAValue, int, int] | None:
    """`index` as `x * c + constant` where `c` is a positive multiple of 8 (16 bytes of 16-bit
    elements), as (x, c, constant), or None: the form of a stage picked at runtime
    (`stage * stage_elements`) plus an operand's constant offset in it."""
    dynamic, constant = _split(index)
    owner = dynamic.owner if dynamic is not None else None
    if not isinstance(owner, arith.MuliOp):
        return None
    for x, c in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
        known, value = _split(c)
        if known is None and value > 0 and value % 8 == 0:
            return x, value, constant
    return None


def _check_aligned(e: SimtEmitter, array: SSAValue) -> None:
    """Trap unless the array's base is 1024-byte aligned (the 128-byte swizzle is on address
    bits, so only an aligned base gives the layout the op's meaning names): once per array,
    right after the op that makes it (outside any loop), as a predicated trap (no branch near
    the wgmma ops, which would make ptxas serialise them)."""
    owner = array.owner
    if isinstance(owner, Operation):
        if owner in _CHECKED:
            return
        _CHECKED[owner] = True
        e = e.at(InsertPoint.after(owner))
    base = e(llvm.PtrToIntOp(shared_element(e, array, [e.const(0)]), i64))
    low = e(arith.AndIOp(base, e.const(SWIZZLE_ALIGN - 1)), "unaligned_swizzle")
    e.emit(_asm("{ .reg .pred p; setp.ne.b64 p, $0, 0; @p trap; }", "l", [low]))


def _address(e: SimtEmitter, array: SSAValue, index: SSAValue) -> tuple[SSAValue, int]:
    """The shared address of `array[index]` as a register and a constant byte offset."""
    t = array.type
    assert isinstance(t, SharedArrayType)
    _check_aligned(e, array)
    dynamic, constant = _split(index)
    start = e(llvm.PtrToIntOp(shared_element(e, array, [dynamic or e.const(0)]), i64))
    return start, 2 * constant  # 16-bit elements


def _descriptor(
    e: SimtEmitter, address: SSAValue, offset: int, bits: int = DESCRIPTOR_BITS
) -> tuple[SSAValue, int]:
    """The descriptor of the shared address `address` plus `offset` bytes (bits 0-13: the
    address masked to 18 bits, >> 4; then the fixed fields `bits`) as a register, the
    descriptor of `address` alone, and the number `_descriptor_asm` adds to its low word.

    Where `offset` is a nonnegative multiple of 16, `((a + offset) & 0x3FFFF) >> 4` is
    `((a & 0x3FFFF) >> 4) + offset / 16` without a carry out of bits 0-13: the operand's first
    element, at `a + offset`, lies in the block's shared memory, below 2^18 bytes on every chip
    (228 KiB at most), and so does `a <= a + offset`. One register a base address then serves
    every constant offset from it (the K steps), made once in LLVM (hoisted where it is loop
    invariant), and each product adds its offset to the low word: one 32-bit add, where the
    whole formula in the asm was four 64-bit operations a product. Any other offset is added
    to the address first (the formula as it stands)."""
    if offset < 0 or offset % 16:
        address, offset = e(arith.AddiOp(address, e.const(offset))), 0
    d = e(arith.AndIOp(address, e.const(0x3FFFF)))
    d = e(arith.OrIOp(e(arith.ShRUIOp(d, e.const(4))), e.const(bits)))
    return d, offset // 16


def _descriptor_asm(reg: str, name: str, add: int, add_reg: str | None = None) -> str:
    """PTX making descriptor `name` from the descriptor in `reg` (`_descriptor`) plus `add` and
    the 32-bit register `add_reg` (where given) on its low word (the scope declares the 32-bit
    halves `dl`, `dh`)."""
    if add == 0 and add_reg is None:
        return f"mov.b64 {name}, {reg}; "
    adds = f"add.s32 dl, dl, {add_reg}; " if add_reg is not None else ""
    adds += f"add.s32 dl, dl, {add}; " if add else ""
    return f"mov.b64 {{dl, dh}}, {reg}; {adds}mov.b64 {name}, {{dl, dh}}; "


def _b_descriptor(e: SimtEmitter, op: WgmmaOp | WgmmaRegAOp, bits: int):
    """B's descriptor register, the constant its asm adds to the low word, and the 32-bit
    register it adds too (None: none). With `STAGE_OFFSET_IN_ASM` and an index `x * c + k`
    (`_stage_split`) the register is the descriptor of the array's base and `x * c / 8` is added
    in the asm: exact by `_descriptor`'s argument, as the operand's first element, at the base
    plus `2 (x c + k)` bytes, a multiple of 16 past it, lies in the block's shared memory."""
    split = _stage_split(op.b_index) if STAGE_OFFSET_IN_ASM else None
    if split is None or 2 * split[2] < 0 or (2 * split[2]) % 16:
        rb, ob = _descriptor(e, *_address(e, op.b, op.b_index), bits)
        return rb, ob, None
    x, c, constant = split
    _check_aligned(e, op.b)
    base = e(llvm.PtrToIntOp(shared_element(e, op.b, [e.const(0)]), i64))
    rb, ob = _descriptor(e, base, 2 * constant, bits)
    narrow = e(arith.TruncIOp(e.to_i64(x), i32))
    return rb, ob, e(arith.MuliOp(narrow, e.const(c // 8, i32)))


def _product(
    e: SimtEmitter, op: WgmmaOp | WgmmaRegAOp, a_regs: list[SSAValue], a_constraints: str, a_asm
) -> list[SSAValue]:
    """The wgmma `op` as one asm: operands `$0..count-1` the accumulators out, `count..2count-1`
    them tied in, then `a_regs` (constraints `a_constraints`), B's address and scale-d.
    `a_asm(first)` gives the PTX that makes A's operand from the registers at `$first..` and
    the operand itself."""
    b_t = op.b.type
    assert isinstance(b_t, SharedArrayType)
    ty = "bf16" if isinstance(b_t.get_element_type(), BFloat16Type) else "f16"
    n = op.n.value.data
    count = n // 2
    at = 2 * count + len(a_regs)  # B's address register
    stride = op.mn_stride
    # an MN-major B's blocks of 64 columns lie `stride` 16-bit elements apart
    b_bits = DESCRIPTOR_BITS if stride is None else descriptor_bits(2 * stride)
    rb, ob, b_add = _b_descriptor(e, op, b_bits)
    trans_b = int(stride is not None)
    trans = f"0, {trans_b}" if isinstance(op, WgmmaOp) else f"{trans_b}"  # no trans-a: registers
    regs = ", ".join(f"${k}" for k in range(count))
    a_prelude, a_operand = a_asm(2 * count)
    asm = (  # one line: a scope for the predicate and the descriptors, as PTX allows
        f"{{ .reg .pred p; .reg .b64 da, db; .reg .b32 dl, dh; setp.ne.b32 p, ${at + 1}, 0; "
        + a_prelude
        + _descriptor_asm(f"${at}", "db", ob, None if b_add is None else f"${at + 2}")
        + f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} "
        f"{{{regs}}}, {a_operand}, db, p, 1, 1, {trans}; }}"
    )
    acc: list[SSAValue] = list(op.acc)
    scale_d = 1
    if all(_positive_zero(v) for v in acc):  # D = A B: no register written before the asm
        acc, scale_d = [e(llvm.UndefOp(f32)) for _ in acc], 0
    extra = [*a_regs, rb, e.const(scale_d, i32)]
    if b_add is not None:
        extra.append(b_add)
    return _tied(e, asm, acc, f"{a_constraints},l,r" + (",r" if b_add is not None else ""), extra)


def _positive_zero(v: SSAValue) -> bool:
    """`v` is the constant +0.0."""
    owner = v.owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, FloatAttr):
        return False
    x = owner.value.value.data
    return x == 0.0 and math.copysign(1.0, x) > 0


class WgmmaToPtx(RewritePattern):
    """A shared A's offset, as B's, is added in the asm to the base's descriptor. Made in LLVM
    with its offset, the fused attention's loop-invariant q descriptors were hoisted (d 128,
    128 x 64: 419 -> 408 SASS instructions an iteration), but so were every stage's and K
    step's A descriptors of the SIMT TMA GEMM (examples/simt/gemm_tma.mlir: 168 -> 255
    registers); made in LLVM, B's grew the bf16 tile GEMM by 104 SASS instructions and a
    register (docs/performance.md, "Fewer instructions a score")."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WgmmaOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        da, add = _descriptor(e, *_address(e, op.a, op.a_index))
        parts = _product(e, op, [da], "l", lambda k: (_descriptor_asm(f"${k}", "da", add), "da"))
        rewriter.replace(op, [], parts)


class WgmmaRegAToPtx(RewritePattern):
    """The register-A form: A's four i32 registers as `"r"` inputs, no A descriptor and no
    trans-a (PTX has none for it)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WgmmaRegAOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)

        def a_asm(k: int) -> tuple[str, str]:
            return "", "{" + ", ".join(f"${k + q}" for q in range(4)) + "}"

        parts = _product(e, op, list(op.a), "r,r,r,r", a_asm)
        rewriter.replace(op, [], parts)


class WgmmaFenceToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WgmmaFenceOp, rewriter: PatternRewriter, /) -> None:
        proxy = "" if op.registers is not None else "fence.proxy.async.shared::cta;\n"
        rewriter.replace(op, _asm(proxy + "wgmma.fence.sync.aligned;", "", []))


class WgmmaCommitToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WgmmaCommitOp, rewriter: PatternRewriter, /) -> None:
        rewriter.replace(op, _asm("wgmma.commit_group.sync.aligned;", "", []))


class WgmmaWaitToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WgmmaWaitOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        asm = f"wgmma.wait_group.sync.aligned {op.pending.value.data};"
        rewriter.replace(op, [], _tied(e, asm, list(op.values), "", []))


class WgmmaStoreToStores(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WgmmaStoreOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        stride = op.stride.value.data
        lane = e(arith.RemUIOp(e.register(nvvm.ThreadIdXOp), e.const(128)))
        warp = e(arith.DivUIOp(lane, e.const(32)))
        g = e(arith.RemUIOp(lane, e.const(32)))
        row0 = e(arith.AddiOp(e(arith.MuliOp(warp, e.const(16))), e(arith.DivUIOp(g, e.const(4)))))
        col0 = e(arith.MuliOp(e(arith.RemUIOp(g, e.const(4))), e.const(2)))
        base = e(
            arith.AddiOp(
                e.to_i64(op.offset),
                e(arith.AddiOp(e(arith.MuliOp(row0, e.const(stride))), col0)),
            )
        )
        values = list(op.values)
        for j in range(len(values) // 2):
            at = 8 * stride * (j % 2) + 8 * (j // 2)
            first = e(arith.AddiOp(base, e.const(at)))
            address = shared_element(e, op.array, [first])
            e.emit(llvm.StoreOp(values[2 * j], address, alignment=8))
            e.emit(llvm.StoreOp(values[2 * j + 1], e.element(address, [1], f32), alignment=4))
        rewriter.erase(op)


WGMMA_PATTERNS: tuple[RewritePattern, ...] = (
    WgmmaToPtx(),
    WgmmaRegAToPtx(),
    WgmmaFenceToPtx(),
    WgmmaCommitToPtx(),
    WgmmaWaitToPtx(),
    WgmmaStoreToStores(),
)


knobs.watch(globals())  # its upper-case settings are benchmark knobs, in the cache key
