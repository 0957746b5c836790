"""Hopper warpgroup tensor-core ops (PTX `wgmma`, sm_90a only): a warpgroup (128 consecutive
threads of a 1-D block) multiplies tiles that sit in shared memory into f32 accumulators that sit
in its registers, asynchronously.

- `%d.. = simt.wgmma %a[%i], %b[%j], acc(%c..) {n = N} : A, B`: `D = A_t @ B_t^T + C` with `A_t`
  the 64 x 16 tile of `a` that starts at element `i` and `B_t` the N x 16 tile of `b` that starts
  at `j` (both K-major: rows of 16-bit elements along K). Each 1-D array holds a matrix of rows of
  64 elements (128 bytes: element `(r, c)` at `64 r + c`) in the 128-byte swizzled form wgmma
  reads: logical element `(r, c)` is stored at `64 r + (c ^ 8 (r % 8))` (the 16-byte chunk index
  of the row XOR the row modulo 8); the length is a multiple of 512 (8 rows). A tile starts at
  row `r0` a multiple of 8 and column `c0` one of 0, 16, 32, 48 (`i % 512` is 0, 16, 32 or 48),
  the same on all 128 threads of the warpgroup. The accumulator is the thread's `N / 2` f32
  values of the 64 x N tile: value `i` of thread `t` (warpgroup lane `l = t % 128`, warp
  `w = l / 32`, `g = l % 32`) is element `(16 w + g / 4 + 8 ((i / 2) % 2),
  8 (i / 4) + 2 (g % 4) + i % 2)`.
  With `{b_mn_stride = L}` B is MN-major instead (a `[K, N]` matrix with N contiguous, as a
  row-major tile operand's B is; PTX's transposed B, 16-bit types only): `b` holds blocks of 64
  columns of N, block `q` starting `L` elements after block `q - 1`, each block rows of 64
  elements along N, one row per k, swizzled as above (logical `(k, c)` of a block at
  `64 k + (c ^ 8 (k % 8))`). The tile is the 16 rows (k) from element `j` of each of the `N / 64`
  blocks: `j % 512 == 0`, `L` a multiple of 512 and at least 1024, N a multiple of 64.
- `%d.. = simt.wgmma_reg_a (%a0, %a1, %a2, %a3), %b[%j], acc(%c..) {n = N} : B`: the same
  product with the 64 x 16 A tile in the warpgroup's registers (PTX's register-A form,
  `wgmma.mma_async .. d, {a0, a1, a2, a3}, b-desc, ..`, which has no trans-a), for a product
  whose A a kernel computed (FlashAttention's P @ V) or keeps across a loop. Each `a_q` is an
  i32 holding two 16-bit elements of B's type, the lower column in the low half; thread `t`
  (lane `l = t % 128`, `w = l / 32`, `g = l % 32`) holds row `16 w + g / 4 + 8 (q % 2)`,
  columns `8 (q / 2) + 2 (g % 4)` and one more: warp `w` holds rows `16 w .. 16 w + 15` as
  `mma.sync.m16n8k16` holds its A. That is the PTX ISA's figure "WGMMA .m64nNk16 register
  fragment layout for matrix A" (its text says only: four .f16x2 registers, elements a0..a7
  low to high), as CUTLASS writes it (`ALayout_64x16` in cute's `mma_traits_sm90_gmma.hpp`:
  thread strides (128, 1, 16), value strides (64, 8, 512) in the column-major 64 x 16 tile).
  B, the accumulators, `n`, `b_mn_stride` and every rule are `simt.wgmma`'s, and a
  `simt.wgmma_reg_a` and a `simt.wgmma` of one n chain into each other's accumulators.
- `simt.wgmma_fence` orders what this thread wrote to shared memory and to its accumulators
  before the wgmma ops after it (PTX `fence.proxy.async.shared::cta` and `wgmma.fence`);
  `{registers}` orders its registers only (`wgmma.fence`), for tiles whose writers fenced.
- `simt.wgmma_commit` closes the warpgroup's group of wgmma ops issued since the last one.
- `%e.. = simt.wgmma_wait %d.. {pending = 0}`: waits until at most `pending` groups are in
  flight; its results are its operands, now readable. With `pending > 0` they stay in flight,
  unless `{retired = K}` names the first K operands as results of groups older than the
  `pending` newest (FlashAttention-3's overlap: the scores' group committed before the output's,
  `pending = 1` retires the scores while the output's product runs on); verify-disjoint checks
  that claim (`passes/disjoint/in_flight.py`), and those K results are ordinary values.
- `simt.wgmma_store %t[%i], %d.. {n = N, stride = S}`: element `(r, c)` of the thread's
  fragment into `t[i + r S + c]` of a 1-D f32 array (pairs of 8 bytes: `i` and `S` even).

The safety rule (docs/safety.md#simt-8, error E1008; `simt.wgmma` below stands for either
form): the hardware reads the shared tiles and writes the accumulators after the op has issued,
until the wait that retires its group. The op-local half is here: a `simt.wgmma` has a
`simt.wgmma_fence` before it in its block (only wgmma ops, `arith` ops and `cp.async` copies
into other arrays between: `check_fence`; PTX wants the fence after the last write of a
register-A operand too, so compute A before the fence, though this rule does not hold arith
ops to it and LLVM may move pure arith across the fence's asm); each
result of a wgmma, and of a wait that leaves groups pending, is in flight and used exactly once,
in its own block, by a later wgmma as the same accumulator of the same shape, by a wait, or by a
yield or loop that carries it on (`check_in_flight`, `check_chain`), so a group may run on into
the next K step. The flow half, that no allocation a pending group reads is written and nothing
is pending at a call or return, is verify-disjoint's (`passes/disjoint/in_flight.py`). The fence,
the wgmma, the commit and the wait are warpgroup collectives, so verify-disjoint holds them to
block-uniform control flow; all six ops need a kernel whose contract names a 1-D block of a
multiple of 128 threads (the fragment layout is by warpgroup lane). The shared arrays are read
(and `wgmma_store` writes) unchecked, as every shared access is, so they belong in unsafe code.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.pipeline import AsyncCommitOp, AsyncCopyOp
from ferrox.dialects.simt.shared import SharedAllocOp, check_rank
from ferrox.dialects.simt.types import SharedArrayType

WARPGROUP = 128
"""Threads in a warpgroup: four consecutive warps."""
M = 64
K = 16
SWIZZLE_ROW = 64
"""Elements in one 128-byte row of a swizzled tile (16-bit elements)."""
SWIZZLE_ROWS = 8
"""Rows of one swizzle atom (1024 bytes): the XOR pattern repeats every 8 rows."""
MN_STRIDE_LIMIT = 1 << 17
"""An MN-major B's block stride is encoded in bytes >> 4 in 14 bits: below 2^17 elements."""


def fragment_position(i: int, lane: int) -> tuple[int, int]:
    """Row and column in the 64 x N tile of accumulator value `i` of warpgroup lane `lane`."""
    w, g = lane // 32, lane % 32
    return 16 * w + g // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (g % 4) + i % 2


def _kernel(op: Operation) -> Operation | None:
    owner = op.parent_op()
    while owner is not None and owner.name not in ("simt.kernel", "simt.func"):
        owner = owner.parent_op()
    return owner


def check_warpgroups(op: Operation) -> None:
    """The kernel's contract must name a 1-D block of whole warpgroups (device functions are
    refused: their caller's block is unknown here)."""
    owner = _kernel(op)
    if owner is None:
        return  # not in a kernel yet (being built)
    contract = getattr(owner, "contract", None)
    if owner.name != "simt.kernel" or contract is None:
        raise VerifyException(
            f"'{op.name}' is a warpgroup collective: it needs a kernel whose launch contract "
            "names the block"
        )
    x, y, z = contract.block_xyz
    if y != 1 or z != 1 or x % WARPGROUP:
        raise VerifyException(
            f"'{op.name}' is a warpgroup collective: the block must be 1-D with a multiple of "
            f"{WARPGROUP} threads, got {list(contract.block_shape)}"
        )


def _check_tile(op: Operation, name: str, array: SSAValue, rows: int) -> Attribute:
    """A K-major tile of `rows` rows (or, for an MN-major B, `rows` elements) fits `array`."""
    t = array.type
    assert isinstance(t, SharedArrayType)
    element = t.get_element_type()
    if not isinstance(element, BFloat16Type | Float16Type):
        raise VerifyException(f"'{op.name}' multiplies bf16 or f16, found {name} of {element}")
    shape = t.get_shape()
    atom = SWIZZLE_ROW * SWIZZLE_ROWS
    if len(shape) != 1 or shape[0] % atom or shape[0] < rows * SWIZZLE_ROW:
        raise VerifyException(
            f"'{op.name}' reads {name} as 128-byte swizzled rows of a 1-D array: its length must "
            f"be a multiple of {atom} and at least {rows * SWIZZLE_ROW}, got {list(shape)}"
        )
    return element


def check_mn_stride(n: int, stride: int, name: str = "simt.wgmma") -> int:
    """The rows (of 64 elements) an MN-major B tile of `n` columns spans with blocks `stride`
    elements apart; raises unless `n` and `stride` are what the layout allows (`name`: the op
    the diagnostic names)."""
    atom = SWIZZLE_ROW * SWIZZLE_ROWS
    if n % SWIZZLE_ROW:
        raise VerifyException(
            f"'{name}' with an MN-major B (b_mn_stride) needs n a multiple of {SWIZZLE_ROW}, "
            f"got {n}"
        )
    if stride % atom or stride < K * SWIZZLE_ROW or stride >= MN_STRIDE_LIMIT:
        raise VerifyException(
            f"'{name}' b_mn_stride must be a multiple of {atom} from {K * SWIZZLE_ROW} to "
            f"{MN_STRIDE_LIMIT - atom} (elements between blocks of {SWIZZLE_ROW} columns of B), "
            f"got {stride}"
        )
    return ((n // SWIZZLE_ROW - 1) * stride) // SWIZZLE_ROW + K


# --- the op-local half of the rule -----------------------------------------------------------
def _quiet(op: Operation) -> bool:
    """Ops allowed between a wgmma and its fence: other wgmma ops, and arith ops (no memory, no
    regions)."""
    return isinstance(op, WGMMA_PRODUCT_OPS) or (op.dialect_name() == "arith" and not op.regions)


def _copy(op: Operation) -> bool:
    """A `cp.async` issue or commit: allowed between a fence and a wgmma when it writes no tile
    that wgmma reads (a write after the fence is not made visible to the wgmma)."""
    return isinstance(op, AsyncCopyOp | AsyncCommitOp)


def alloc_of(array: SSAValue) -> Operation | None:
    """The `simt.shared_alloc` that made `array` (distinct allocations never overlap), or None."""
    owner = array.owner
    return owner if isinstance(owner, SharedAllocOp) else None


def tiles(op: WgmmaOp | WgmmaRegAOp) -> tuple[SSAValue, ...]:
    """The shared arrays `op` reads: A and B, or B alone for the register-A form."""
    return (op.a, op.b) if isinstance(op, WgmmaOp) else (op.b,)


def check_fence(op: WgmmaOp | WgmmaRegAOp) -> None:
    """A `simt.wgmma_fence` before `op` in its block, with only wgmma ops, arith ops and copies
    into other arrays between: the fence orders the thread's register and shared writes before
    the multiply (PTX needs `wgmma.fence` before the first wgmma after other code touched its
    registers)."""
    reads = {alloc_of(t) for t in tiles(op)}
    prev = op.prev_op
    while prev is not None and not isinstance(prev, WgmmaFenceOp):
        if not (_quiet(prev) or _copy(prev)):
            raise VerifyException(
                f"'{op.name}' needs a 'simt.wgmma_fence' before it in its block, with only "
                f"wgmma ops, arith ops and copies between; found '{prev.name}'"
            )
        if isinstance(prev, AsyncCopyOp):
            target = alloc_of(prev.array)
            if target is None or target in reads:
                raise VerifyException(
                    f"'{op.name}' reads shared memory written before it only through "
                    "'simt.wgmma_fence': a 'simt.async_copy' between the fence and the wgmma "
                    "may write only an array of a 'simt.shared_alloc' that the wgmma does not "
                    "read"
                )
        prev = prev.prev_op
    if prev is None:
        raise VerifyException(
            f"'{op.name}' needs a 'simt.wgmma_fence' before it in its block, with only wgmma "
            "ops, arith ops and copies between"
        )


def _in_home(user: Operation, block) -> bool:
    """`user` sits in `block`, or in `simt.unsafe` regions nested in it (regions that run once,
    unconditionally): a use there happens exactly when the value's block runs."""
    at = user.parent_block()
    while at is not None and at is not block:
        parent = at.parent_op()
        if parent is None or parent.name != "simt.unsafe":
            return False
        at = parent.parent_block()
    return at is block


def _carried(use) -> list[SSAValue] | None:
    """The values that carry an in-flight value on when `use` passes it through structured
    control flow: a yield of `simt.unsafe`, `scf.for` or `scf.if` (the parent's result, and for
    a loop its iteration argument), or an `scf.for` initial value (the argument and the result).
    None for any other use."""
    user = use.operation
    if user.name in ("simt.yield", "scf.yield"):
        parent = user.parent_op()
        if parent is None or parent.name not in ("simt.unsafe", "scf.for", "scf.if"):
            return None
        out = [parent.results[use.index]]
        if parent.name == "scf.for":
            out.append(parent.regions[0].blocks[0].args[use.index + 1])
        return out
    if user.name == "scf.for" and use.index >= 3:
        j = use.index - 3
        return [user.results[j], user.regions[0].blocks[0].args[j + 1]]
    return None


def check_in_flight(values, what: str, first: int = 0) -> None:
    """Each of `values` (the results of a wgmma, or of a wait that leaves groups pending) is in
    flight: the hardware may still write its register. So it, and every value that carries it
    on through `simt.unsafe`, `scf.for` and `scf.if`, is used exactly once, in its own block
    (or a `simt.unsafe` there): as the accumulator of a later `simt.wgmma`, by a
    `simt.wgmma_wait`, or by a yield or loop that carries it on. A dropped value would free a
    register the hardware still writes; any other use would read it early. (`first`: the
    result number of `values[0]`, for the messages.)"""
    seen: set[int] = set()
    work = [(first + k, v) for k, v in enumerate(values)]
    while work:
        k, v = work.pop()
        uses = list(v.uses)
        if len(uses) != 1:
            raise VerifyException(
                f"result {k} of {what} is in flight until a 'simt.wgmma_wait' with pending = 0 "
                f"retires it: it must be used exactly once, by a later 'simt.wgmma', a "
                f"'simt.wgmma_wait' or a yield that carries it on, found {len(uses)} uses"
            )
        use = uses[0]
        user = use.operation
        home = v.owner if isinstance(v.owner, Block) else v.owner.parent_block()
        direct = (
            isinstance(user, WGMMA_PRODUCT_OPS) and use.index >= op_acc_start(user)
        ) or isinstance(user, WgmmaWaitOp)
        carriers = None if direct else _carried(use)
        if (not direct and carriers is None) or not _in_home(user, home):
            raise VerifyException(
                f"result {k} of {what} is in flight until a 'simt.wgmma_wait' with pending = 0 "
                "retires it: it may only be the accumulator of a later 'simt.wgmma', an operand "
                "of 'simt.wgmma_wait', or carried on by 'simt.yield', 'scf.yield' or 'scf.for', "
                f"in its own block, found '{user.name}'"
            )
        for c in carriers or ():
            if id(c) not in seen:
                seen.add(id(c))
                work.append((k, c))


FREE = (0, -1)
"""The origin of a value no wgmma may still be writing."""


def _shape_of(op: Operation, k: int):
    return (op.n.value.data, k)  # type: ignore[attr-defined]


def _origins(value: SSAValue, seen: set[int], mark=_shape_of) -> set:
    """Where `value` may come from while in flight: `mark(op, i)` for result `i` of a wgmma
    `op` (by default `(n, i)`, its shape m64nN), followed back through waits that leave it in
    flight, `simt.unsafe`, `scf.for` and `scf.if`, or FREE for anything a wgmma cannot still be
    writing."""
    if id(value) in seen:
        return set()
    seen.add(id(value))
    owner = value.owner
    if isinstance(owner, Block):
        parent = owner.parent_op()
        if parent is None or parent.name != "scf.for" or value.index == 0:  # type: ignore[attr-defined]
            return {FREE}
        j = value.index - 1  # type: ignore[attr-defined]
        body = owner.last_op
        carried = _origins(parent.operands[3 + j], seen, mark)
        if body is not None and body.name == "scf.yield":
            carried |= _origins(body.operands[j], seen, mark)
        return carried
    k = value.index  # type: ignore[attr-defined]
    if isinstance(owner, WGMMA_PRODUCT_OPS):
        return {mark(owner, k)}
    if isinstance(owner, WgmmaWaitOp):
        return _origins(owner.values[k], seen, mark) if owner.in_flight(k) else {FREE}
    if owner.name in ("simt.unsafe", "scf.for", "scf.if"):
        out: set = set()
        for region in owner.regions:
            for block in region.blocks:
                end = block.last_op
                if end is not None and end.name in ("simt.yield", "scf.yield"):
                    out |= _origins(end.operands[k], seen, mark)
        if owner.name == "scf.for":
            out |= _origins(owner.operands[3 + k], seen, mark)
        return out
    return {FREE}


def producers(value: SSAValue) -> set[int]:
    """The wgmma ops (by `id`) whose result `value` may be while in flight (`_origins`)."""
    return {o for o in _origins(value, set(), lambda op, k: id(op)) if o != FREE}


def check_chain(op: WgmmaOp | WgmmaRegAOp) -> None:
    """An accumulator that may still be in flight must come from the same result of a wgmma of
    the same shape (either form: `simt.wgmma` and `simt.wgmma_reg_a` of one n chain into each
    other): PTX orders accumulator accesses across wgmma ops of one shape only (any other
    access needs the earlier one retired), and only the same result is the same register."""
    n = op.n.value.data
    for i, v in enumerate(op.acc):
        for origin in _origins(v, set()):
            if origin not in (FREE, (n, i)):
                raise VerifyException(
                    f"accumulator {i} of '{op.name}' (m64n{n}) may still be in flight from "
                    f"result {origin[1]} of an m64n{origin[0]} wgmma: a wgmma in flight may feed "
                    "only the same accumulator of a wgmma of its shape; retire it with "
                    "'simt.wgmma_wait' with pending = 0 first"
                )


def op_acc_start(op: WgmmaOp | WgmmaRegAOp) -> int:
    """The index of the first accumulator operand (after the A and B operands and indices)."""
    return len(op.operands) - len(op.acc)


def _operands(parser: Parser, delimiter, t: Attribute) -> list[SSAValue]:
    return parser.parse_comma_separated_list(delimiter, lambda: parser.parse_operand(t))


def _shape_props(n: int, b_mn_stride: int | None) -> dict[str, Attribute]:
    props: dict[str, Attribute] = {"n": IntegerAttr(n, i64)}
    if b_mn_stride is not None:
        props["b_mn_stride"] = IntegerAttr(b_mn_stride, i64)
    return props


def _value(attr: IntegerAttr | None) -> int | None:
    return None if attr is None else attr.value.data


def _shape_attrs(parser: Parser, attrs: dict[str, Attribute], name: str) -> tuple[int, int | None]:
    """`n` and the optional `b_mn_stride`, taken out of a wgmma's attribute dictionary."""
    n = attrs.pop("n", None)
    if not isinstance(n, IntegerAttr):
        parser.raise_error(f"'{name}' needs {{n = N}}")
    stride = attrs.pop("b_mn_stride", None)
    if stride is not None and not isinstance(stride, IntegerAttr):
        parser.raise_error(f"'{name}' b_mn_stride must be an integer")
    return n.value.data, None if stride is None else stride.value.data


def _parse_indexed(parser: Parser):
    """`%array[%index]`: the array still unresolved (its type comes after the colon)."""
    array = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    index = parser.parse_operand(IndexType())
    parser.parse_punctuation("]")
    return array, index


def _parse_b_and_acc(parser: Parser):
    """`%b[%j], acc(%c..) {attrs} :` of both product forms: B, its index, the accumulators and
    the attribute dictionary."""
    b, bi = _parse_indexed(parser)
    parser.parse_punctuation(",")
    parser.parse_keyword("acc")
    acc = _operands(parser, parser.Delimiter.PAREN, f32)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    return b, bi, acc, attrs


def _print_b_and_acc(printer: Printer, op: WgmmaOp | WgmmaRegAOp) -> None:
    """`%b[%j], acc(%c..) {n = N..} : ` of both product forms (`_parse_b_and_acc`)."""
    printer.print_operand(op.b)
    printer.print_string("[")
    printer.print_operand(op.b_index)
    printer.print_string("], acc(")
    printer.print_list(op.acc, printer.print_operand)
    _print_shape(printer, op)


def _print_shape(printer: Printer, op: WgmmaOp | WgmmaRegAOp) -> None:
    """The end of a wgmma after its accumulators: `) {n = N[, b_mn_stride = L]} : `."""
    stride = "" if op.mn_stride is None else f", b_mn_stride = {op.mn_stride}"
    printer.print_string(f") {{n = {op.n.value.data}{stride}}}")
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")


def _check_shape(op: WgmmaOp | WgmmaRegAOp) -> int:
    """n a multiple of 8 from 8 to 256, and n / 2 accumulators; returns n."""
    n = op.n.value.data
    if not (8 <= n <= 256 and n % 8 == 0):
        raise VerifyException(f"'{op.name}' needs n a multiple of 8 from 8 to 256, got {n}")
    if len(op.acc) != n // 2:
        raise VerifyException(
            f"'{op.name}' with n = {n} takes {n // 2} f32 accumulator values a thread, "
            f"got {len(op.acc)}"
        )
    return n


def _check_b(op: WgmmaOp | WgmmaRegAOp) -> Attribute:
    """B's tile fits its array, K-major or (b_mn_stride) MN-major; returns its element type."""
    n, stride = op.n.value.data, op.mn_stride
    rows = n if stride is None else check_mn_stride(n, stride, op.name)
    return _check_tile(op, "B", op.b, rows)


def _check_issue(op: WgmmaOp | WgmmaRegAOp) -> None:
    """The rules of issuing a wgmma: a warpgroup block, a fence before it, accumulators chained
    from wgmma ops of its shape only, and its results in flight."""
    check_warpgroups(op)
    check_fence(op)
    check_chain(op)
    check_in_flight(op.res, f"'{op.name}'")


# --- ops --------------------------------------------------------------------------------------
@irdl_op_definition
class WgmmaOp(IRDLOperation):
    """`%d0, .. = simt.wgmma %a[%i], %b[%j], acc(%c0, ..) {n = 128} : A, B`:
    one m64nNk16 multiply-accumulate of the warpgroup (module docstring)."""

    name = "simt.wgmma"

    a = operand_def(SharedArrayType)
    b = operand_def(SharedArrayType)
    a_index = operand_def(IndexType())
    b_index = operand_def(IndexType())
    acc = var_operand_def(f32)
    n = prop_def(IntegerAttr[IntegerType])
    b_mn_stride = opt_prop_def(IntegerAttr[IntegerType])
    """Present: B is MN-major, its 64-column blocks this many elements apart (docstring)."""
    res = var_result_def(f32)

    def __init__(
        self,
        a: SSAValue,
        a_index: SSAValue,
        b: SSAValue,
        b_index: SSAValue,
        acc: list[SSAValue],
        n: int,
        b_mn_stride: int | None = None,
    ):
        super().__init__(
            operands=[a, b, a_index, b_index, acc],
            result_types=[[f32] * len(acc)],
            properties=_shape_props(n, b_mn_stride),
        )

    @property
    def mn_stride(self) -> int | None:
        """The MN-major B's block stride, or None for a K-major B."""
        return _value(self.b_mn_stride)

    @property
    def array(self) -> SSAValue:
        """The A array (what verify-disjoint's unsafe check names)."""
        return self.a

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaOp:
        a, ai = _parse_indexed(parser)
        parser.parse_punctuation(",")
        b, bi, acc, attrs = _parse_b_and_acc(parser)
        ta = parser.parse_type()
        parser.parse_punctuation(",")
        tb = parser.parse_type()
        n, stride = _shape_attrs(parser, attrs, cls.name)
        a_value = parser.resolve_operand(a, ta)
        b_value = parser.resolve_operand(b, tb)
        op = cls(a_value, ai, b_value, bi, acc, n, stride)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.a)
        printer.print_string("[")
        printer.print_operand(self.a_index)
        printer.print_string("], ")
        _print_b_and_acc(printer, self)
        printer.print_attribute(self.a.type)
        printer.print_string(", ")
        printer.print_attribute(self.b.type)

    def verify_(self) -> None:
        _check_shape(self)
        ta = _check_tile(self, "A", self.a, M)
        tb = _check_b(self)
        if ta != tb:
            raise VerifyException(f"'simt.wgmma' needs A and B of one type, got {ta} and {tb}")
        _check_issue(self)


@irdl_op_definition
class WgmmaRegAOp(IRDLOperation):
    """`%d0, .. = simt.wgmma_reg_a (%a0, %a1, %a2, %a3), %b[%j], acc(%c0, ..) {n = 128} : B`:
    one m64nNk16 multiply-accumulate of the warpgroup with A from registers (module
    docstring)."""

    name = "simt.wgmma_reg_a"

    a = var_operand_def()
    """The thread's four i32 registers of the 64 x 16 A tile (two 16-bit elements each)."""
    b = operand_def(SharedArrayType)
    b_index = operand_def(IndexType())
    acc = var_operand_def(f32)
    n = prop_def(IntegerAttr[IntegerType])
    b_mn_stride = opt_prop_def(IntegerAttr[IntegerType])
    """Present: B is MN-major, its 64-column blocks this many elements apart (as simt.wgmma)."""
    res = var_result_def(f32)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        a: Sequence[SSAValue],
        b: SSAValue,
        b_index: SSAValue,
        acc: Sequence[SSAValue],
        n: int,
        b_mn_stride: int | None = None,
    ):
        super().__init__(
            operands=[list(a), b, b_index, list(acc)],
            result_types=[[f32] * len(acc)],
            properties=_shape_props(n, b_mn_stride),
        )

    @property
    def mn_stride(self) -> int | None:
        """The MN-major B's block stride, or None for a K-major B."""
        return _value(self.b_mn_stride)

    @property
    def array(self) -> SSAValue:
        """The B array (what verify-disjoint's unsafe check names)."""
        return self.b

    @property
    def element(self) -> Attribute:
        """The 16-bit element type of the product: B's (A's registers hold the same type)."""
        t = self.b.type
        assert isinstance(t, SharedArrayType)
        return t.get_element_type()

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaRegAOp:
        a = _operands(parser, parser.Delimiter.PAREN, i32)
        parser.parse_punctuation(",")
        b, bi, acc, attrs = _parse_b_and_acc(parser)
        tb = parser.parse_type()
        n, stride = _shape_attrs(parser, attrs, cls.name)
        op = cls(a, parser.resolve_operand(b, tb), bi, acc, n, stride)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(self.a, printer.print_operand)
        printer.print_string("), ")
        _print_b_and_acc(printer, self)
        printer.print_attribute(self.b.type)

    def verify_(self) -> None:
        if len(self.a) != 4 or any(v.type != i32 for v in self.a):
            types = ", ".join(str(v.type) for v in self.a)
            raise VerifyException(
                f"'simt.wgmma_reg_a' takes A as the thread's 4 i32 registers (two 16-bit "
                f"elements each), got ({types})"
            )
        _check_shape(self)
        _check_b(self)
        _check_issue(self)


@irdl_op_definition
class WgmmaFenceOp(IRDLOperation):
    """`simt.wgmma_fence`: shared memory and accumulators written before it are seen by the
    wgmma ops after it. `simt.wgmma_fence {registers}`: the registers only (PTX `wgmma.fence`
    without `fence.proxy.async`, whose `MEMBAR` a fence before each product of a loop would
    pay): for a product whose shared tiles were made visible to the async proxy by their
    writers, each fencing after its writes and before a barrier the readers pass."""

    name = "simt.wgmma_fence"
    registers = opt_prop_def(UnitAttr)
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, registers: bool = False):
        super().__init__(properties={"registers": UnitAttr()} if registers else {})

    def verify_(self) -> None:
        check_warpgroups(self)


@irdl_op_definition
class WgmmaCommitOp(IRDLOperation):
    """`simt.wgmma_commit`: the wgmma ops issued since the last commit form a group."""

    name = "simt.wgmma_commit"
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()

    def verify_(self) -> None:
        check_warpgroups(self)


@irdl_op_definition
class WgmmaWaitOp(IRDLOperation):
    """`%e0, .. = simt.wgmma_wait %d0, .. {pending = 0}`: wait until at most `pending` groups
    are in flight; the results are the operands, retired."""

    name = "simt.wgmma_wait"
    values = var_operand_def(f32)
    pending = prop_def(IntegerAttr[IntegerType])
    retired = opt_prop_def(IntegerAttr[IntegerType])
    """Present (`K`): the first K operands come from groups older than the `pending` newest,
    so the wait retires them (verify-disjoint checks the claim); the rest stay in flight."""
    res = var_result_def(f32)

    def __init__(self, values: list[SSAValue], pending: int, retired: int | None = None):
        props: dict[str, Attribute] = {"pending": IntegerAttr(pending, i64)}
        if retired is not None:
            props["retired"] = IntegerAttr(retired, i64)
        super().__init__(operands=[values], result_types=[[f32] * len(values)], properties=props)

    @property
    def retired_count(self) -> int:
        """How many leading operands the wait retires although groups stay pending."""
        return 0 if self.retired is None else self.retired.value.data

    def in_flight(self, k: int) -> bool:
        """Whether result `k` may still be written by a wgmma after the wait."""
        return bool(self.pending.value.data) and k >= self.retired_count

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaWaitOp:
        values: list[SSAValue] = []
        if parser.parse_optional_punctuation("{") is None:
            values.append(parser.parse_operand(f32))
            while parser.parse_optional_punctuation(",") is not None:
                values.append(parser.parse_operand(f32))
        else:
            parser.parse_keyword("pending")
            parser.parse_punctuation("=")
            pending = parser.parse_integer()
            parser.parse_punctuation("}")
            return cls(values, pending)
        attrs = parser.parse_optional_attr_dict()
        pending_attr = attrs.pop("pending", None)
        if not isinstance(pending_attr, IntegerAttr):
            parser.raise_error("'simt.wgmma_wait' needs {pending = N}")
        retired = attrs.pop("retired", None)
        if retired is not None and not isinstance(retired, IntegerAttr):
            parser.raise_error("'simt.wgmma_wait' retired must be an integer")
        op = cls(values, pending_attr.value.data, _value(retired))
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        if self.values:
            printer.print_string(" ")
            printer.print_list(self.values, printer.print_operand)
        retired = "" if self.retired is None else f", retired = {self.retired_count}"
        printer.print_string(f" {{pending = {self.pending.value.data}{retired}}}")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        pending = self.pending.value.data
        if not 0 <= pending <= 7:
            raise VerifyException(f"'simt.wgmma_wait' pending must be 0 to 7, got {pending}")
        retired = self.retired_count
        if self.retired is not None and not (pending and 0 < retired <= len(self.values)):
            raise VerifyException(
                f"'simt.wgmma_wait' retired = K names the first K of its {len(self.values)} "
                f"operands as retired while groups stay pending: it needs pending > 0 and "
                f"0 < K <= {len(self.values)}, got pending = {pending}, retired = {retired}"
            )
        check_warpgroups(self)
        if pending:
            what = f"'simt.wgmma_wait' with pending = {pending}"
            check_in_flight(self.res[retired:], what, retired)


@irdl_op_definition
class WgmmaStoreOp(IRDLOperation):
    """`simt.wgmma_store %t[%i], %d0, .. {n = 128, stride = 136} : !simt.shared<f32, [L]>`: the
    thread's fragment of a 64 x N f32 tile into a 1-D shared array, row `r` at `i + r stride`."""

    name = "simt.wgmma_store"
    array = operand_def(SharedArrayType)
    offset = operand_def(IndexType())
    values = var_operand_def(f32)
    n = prop_def(IntegerAttr[IntegerType])
    stride = prop_def(IntegerAttr[IntegerType])

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$array `[` $offset `]` `,` $values attr-dict `:` type($array)"

    def __init__(
        self, array: SSAValue, offset: SSAValue, values: list[SSAValue], n: int, stride: int
    ):
        super().__init__(
            operands=[array, offset, values],
            properties={"n": IntegerAttr(n, i64), "stride": IntegerAttr(stride, i64)},
        )

    def verify_(self) -> None:
        n, stride = self.n.value.data, self.stride.value.data
        if not (8 <= n <= 256 and n % 8 == 0):
            raise VerifyException(
                f"'simt.wgmma_store' needs n a multiple of 8 from 8 to 256, got {n}"
            )
        if len(self.values) != n // 2:
            raise VerifyException(
                f"'simt.wgmma_store' with n = {n} stores {n // 2} f32 values a thread, got "
                f"{len(self.values)}"
            )
        if stride < n or stride % 2:
            raise VerifyException(
                f"'simt.wgmma_store' needs an even stride of at least n = {n}, got {stride}"
            )
        t = self.array.type
        assert isinstance(t, SharedArrayType)
        if t.get_element_type() != f32:
            raise VerifyException(
                f"'simt.wgmma_store' writes f32 accumulators, found an array of "
                f"{t.get_element_type()}"
            )
        check_rank(self, self.array, [self.offset])
        check_warpgroups(self)


WGMMA_PRODUCT_OPS = (WgmmaOp, WgmmaRegAOp)
"""The two forms of the product: A from shared memory, or from registers."""
WGMMA_OPS = (WgmmaOp, WgmmaRegAOp, WgmmaFenceOp, WgmmaCommitOp, WgmmaWaitOp, WgmmaStoreOp)
WGMMA_ACCESS_OPS = (WgmmaOp, WgmmaRegAOp, WgmmaStoreOp)
"""The wgmma ops that touch a shared array (unsafe: the verifier keeps them in unsafe code)."""
WARPGROUP_COLLECTIVE_OPS = (WgmmaOp, WgmmaRegAOp, WgmmaFenceOp, WgmmaCommitOp, WgmmaWaitOp)
"""The warpgroup collectives: verify-disjoint holds them to block-uniform control flow."""
