"""Atomics (dialects/simt/atomic.py): each read-modify-write is indivisible and returns the old
element, as the GPU's `atom` does. The lanes of one op update in launch order (block-major, then
linear id): the old values returned are exactly those of that order.

The arithmetic is `convert-simt-to-nvvm`'s: integer ops wrap, `min`/`max` are signed, `sub` adds
the negation, `exch` of a float swaps its bits, and a float `add` is `atom.add.f32`, which
rounds to nearest and flushes subnormal inputs and results to a sign-preserving zero (f64 keeps
them). Float min/max and widths other than 32 or 64 bits have no PTX lowering and are refused
here too. Scopes: all three are exact among the threads that a `gpu` or `sys` scope covers;
`scope cta` is atomic only within a block, so an element of global memory that two blocks
update with it is reported as a race. Atomics take no part in data-race detection.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import AnyFloat, IntegerType

from ferrox.dialects import simt
from ferrox.dialects.simt import Scope
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.driver.interpreter.errors import KernelFault, KernelRace
from ferrox.driver.interpreter.memory import AtomicScopes, checked
from ferrox.driver.interpreter.ops import lowers
from ferrox.driver.interpreter.simt_ops.memory import gather

_TINY32 = np.float32(np.finfo(np.float32).tiny)


def flush_subnormal(x: np.ndarray) -> np.ndarray:
    """Sign-preserving zero for subnormal f32 values (what `atom.add.f32` does)."""
    return np.where((x != 0) & (np.abs(x) < _TINY32), np.copysign(np.float32(0), x), x).astype(
        np.float32
    )


def _width(t) -> int:
    return t.width.data if isinstance(t, IntegerType) else t.bitwidth


_INT_UPDATES = {
    simt.AtomicAddOp: np.add,
    simt.AtomicSubOp: np.subtract,
    simt.AtomicMinOp: np.minimum,
    simt.AtomicMaxOp: np.maximum,
    simt.AtomicAndOp: np.bitwise_and,
    simt.AtomicOrOp: np.bitwise_or,
    simt.AtomicXorOp: np.bitwise_xor,
    simt.AtomicExchOp: lambda old, v: v,
}


def _f32_add(old, v):
    return flush_subnormal(flush_subnormal(old) + flush_subnormal(v))


def _update(op):
    """The element-wise update `new = f(old, value)`, or an error message."""
    t = op.value.type
    if not isinstance(t, IntegerType | AnyFloat) or _width(t) not in (32, 64):
        return f"PTX atomics are 32 or 64 bits wide; {t} is not"
    if isinstance(op, simt.AtomicCasOp):
        return None
    if isinstance(t, IntegerType):
        return _INT_UPDATES[type(op)]
    if isinstance(op, simt.AtomicAddOp):
        return _f32_add if _width(t) == 32 else np.add
    if isinstance(op, simt.AtomicExchOp):
        return lambda old, v: v
    return (
        f"'{op.name}' needs an i32 or i64 element, not {t} (there is no PTX float min/max atomic)"
    )


def _ranks(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, sorted elements, rank of each sorted lane among the lanes on its element)."""
    order = np.argsort(flat, kind="stable")
    se = flat[order]
    positions = np.arange(len(se))
    start = np.ones(len(se), bool)
    start[1:] = se[1:] != se[:-1]
    head = np.maximum.accumulate(np.where(start, positions, 0))
    return order, se, positions - head


def perform(array: np.ndarray, flat: np.ndarray, values: list, update, cas: bool) -> np.ndarray:
    """Apply the lanes' updates in lane order; each lane's old value."""
    olds = np.empty(len(flat), array.dtype)
    if len(flat) == 0:
        return olds
    order, se, rank = _ranks(flat)
    if not cas and update in (np.add, np.subtract) and array.dtype.kind == "i":
        # Integer adds commute and wrap: old = initial + the lanes before on the element.
        v = values[0][order].astype(array.dtype)
        if update is np.subtract:
            v = -v
        u = v.view(np.dtype(f"u{v.itemsize}"))
        before = np.cumsum(u, dtype=u.dtype) - u
        head = np.arange(len(se)) - rank
        before = before - before[head]
        initial = array[se].view(u.dtype)
        old_sorted = (initial + before).view(array.dtype)
        olds[order] = old_sorted
        last = np.ones(len(se), bool)
        last[:-1] = se[1:] != se[:-1]
        array[se[last]] = (old_sorted[last].view(u.dtype) + u[last]).view(array.dtype)
        return olds
    rounds = int(rank.max()) + 1
    if not cas and update in (_f32_add, np.add) and rounds > 64:
        # Many lanes on few elements: each element's chain is a sequential sum, which NumPy's
        # accumulate computes in the element's own width, rounding at every step.
        starts = np.flatnonzero(rank == 0)
        if _sequential_sums(array, flat, order, starts, values[0], olds, update):
            return olds
    for r in range(rounds):
        sel = order[rank == r]
        e = flat[sel]
        old = array[e]
        olds[sel] = old
        if cas:
            expected, new = values[0][sel], values[1][sel]
            bits = np.dtype(f"i{array.itemsize}")
            hit = old.view(bits) == np.asarray(expected, array.dtype).view(bits)
            array[e] = np.where(hit, np.asarray(new, array.dtype), old)
        else:
            array[e] = np.asarray(update(old, values[0][sel].astype(array.dtype)), array.dtype)
    return olds


def _sequential_sums(array, flat, order, starts, values, olds, update) -> bool:
    """Float adds by chains (one per element, in lane order) with `accumulate`; False (nothing
    changed) where a partial f32 sum is subnormal, which `atom.add.f32` would flush."""
    f32 = update is _f32_add
    dtype = array.dtype
    ends = [*starts[1:], len(order)]
    results = []
    for a, b in zip(starts, ends):
        lanes = order[a:b]
        e = flat[lanes[0]]
        chain = np.empty(b - a + 1, dtype)
        chain[0] = array[e]
        chain[1:] = values[lanes].astype(dtype)
        if f32:
            chain = flush_subnormal(chain)
        sums = np.add.accumulate(chain, dtype=dtype)
        if f32 and ((sums != 0) & (np.abs(sums) < _TINY32)).any():
            return False
        results.append((e, lanes, sums))
    for e, lanes, sums in results:
        olds[lanes] = sums[:-1] if not f32 else np.concatenate([[array[e]], sums[1:-1]])
        array[e] = sums[-1]
    return True


def _atomic(op, n_values: int):
    update = _update(op)
    shared = isinstance(op.target.type, SharedArrayType)
    cta = op.scope.data == Scope.CTA
    cas = isinstance(op, simt.AtomicCasOp)

    def run(ex, args, mask):
        if isinstance(update, str):
            raise ex.fault(op, mask, update, KernelFault)
        buffer = args[0]
        indices = args[1 : len(args) - n_values]
        lanes, flat, error = checked(ex, op, buffer, indices, mask, op.name)
        if not shared and len(lanes):
            if buffer.atomics is None:
                buffer.atomics = AtomicScopes(buffer.length)
            race = buffer.atomics.record(flat, ex.gids[lanes] // ex.launch.tpb, cta)
            if race is not None:
                k, other = race
                one = np.zeros(ex.n, bool)
                one[lanes[k]] = True
                raise ex.fault(
                    op,
                    one,
                    f"element {int(flat[k])} of {buffer.name} is updated by block {other} and this "
                    "block, but 'scope cta' makes an atomic indivisible only within one block; "
                    "use scope gpu",
                    KernelRace,
                )
        values = [np.broadcast_to(v, (ex.n,))[lanes] for v in args[len(args) - n_values :]]
        olds = perform(buffer.array, flat, values, update, cas)
        if error is not None:
            raise error
        if len(lanes) == ex.n:
            return (olds,)
        out = np.zeros(ex.n, buffer.array.dtype)
        out[lanes] = olds
        return (out,)

    return run


for _op in simt.ATOMIC_OPS:
    lowers(_op)(lambda op, n=2 if _op is simt.AtomicCasOp else 1: _atomic(op, n))

__all__ = ["flush_subnormal", "gather", "perform"]
