"""Atomics (dialects/simt/atomic.py): each read-modify-write is indivisible (one lock per
launch) and returns the old element, as the GPU's `atom` does.

The arithmetic is `convert-simt-to-nvvm`'s: integer ops wrap, `min`/`max` are signed, `sub` adds
the negation, `exch` of a float swaps its bits, and a float `add` is `atom.add.f32`, which
rounds to nearest and flushes subnormal inputs and results to a sign-preserving zero (f64 keeps
them). Float min/max and widths other than 32 or 64 bits have no PTX lowering and are refused
here too. Scopes: all three are exact among the threads that a `gpu` or `sys` scope covers;
`scope cta` is atomic only within a block, so an element of global memory that two blocks
update with it is reported as a race.
"""

from __future__ import annotations

import threading

import numpy as np
from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from ferrox.dialects import simt
from ferrox.dialects.simt import Scope
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.driver.interpreter.errors import KernelFault, KernelRace
from ferrox.driver.interpreter.machine import SimtInterpreter
from ferrox.driver.interpreter.simt_ops.memory import element_index
from ferrox.driver.interpreter.values import flush_subnormal, signed

LOCK = threading.Lock()


def _width(t) -> int:
    return t.width.data if isinstance(t, IntegerType) else t.bitwidth


def _int_rmw(kind: type[Operation], w: int):
    return {
        simt.AtomicAddOp: lambda old, v: signed(old + v, w),
        simt.AtomicSubOp: lambda old, v: signed(old - v, w),
        simt.AtomicMinOp: lambda old, v: min(signed(old, w), signed(v, w)),
        simt.AtomicMaxOp: lambda old, v: max(signed(old, w), signed(v, w)),
        simt.AtomicAndOp: lambda old, v: signed(old & v, w),
        simt.AtomicOrOp: lambda old, v: signed(old | v, w),
        simt.AtomicXorOp: lambda old, v: signed(old ^ v, w),
        simt.AtomicExchOp: lambda old, v: v,
    }[kind]


def _f32_add(old, v):
    return flush_subnormal(np.float32(flush_subnormal(old) + flush_subnormal(v)))


def _float_rmw(kind: type[Operation], w: int):
    if kind is simt.AtomicAddOp:
        return _f32_add if w == 32 else (lambda old, v: old + v)
    if kind is simt.AtomicExchOp:
        return lambda old, v: v
    return None


def _plan(op: Operation):
    """(update function or an error message, whether the target is shared memory, cta scope)."""
    t = op.value.type  # type: ignore[attr-defined]
    if not isinstance(t, IntegerType | AnyFloat) or _width(t) not in (32, 64):
        return f"PTX atomics are 32 or 64 bits wide; {t} is not", False, False
    shared = isinstance(op.target.type, SharedArrayType)  # type: ignore[attr-defined]
    cta = op.scope.data == Scope.CTA  # type: ignore[attr-defined]
    if isinstance(op, simt.AtomicCasOp):
        return None, shared, cta
    update = (
        _int_rmw(type(op), _width(t))
        if isinstance(t, IntegerType)
        else _float_rmw(type(op), _width(t))
    )
    if update is None:
        return (
            f"'{op.name}' needs an i32 or i64 element, not {t} "
            "(there is no PTX float min/max atomic)",
            False,
            False,
        )
    return update, shared, cta


def _element(interp: SimtInterpreter, op: Operation, args: PythonValues, n_values: int):
    update, shared, cta = interp.static(op, _plan)
    if isinstance(update, str):
        raise interp.trap(op, update, KernelFault)
    buffer = args[0]
    indices = args[1 : len(args) - n_values]
    i = element_index(interp, op, buffer, indices, op.name)
    if not shared:
        other = interp.launch.atomic_scopes.record(buffer, i, interp.block.linear, cta)
        if other is not None:
            raise interp.trap(
                op,
                f"element {i} of {buffer.name} is updated by block {other} and this block, but "
                "'scope cta' makes an atomic indivisible only within one block; use scope gpu",
                KernelRace,
            )
    return update, buffer, i


class AtomicFunctions(InterpreterFunctions):
    def run_rmw(self, interp: SimtInterpreter, op: simt.AtomicRMWOp, args: PythonValues):
        update, buffer, i = _element(interp, op, args, 1)
        with LOCK:
            old = buffer.read(i)
            buffer.write(i, update(old, args[-1]))
        return (old,)

    @impl(simt.AtomicCasOp)
    def run_cas(self, interp: SimtInterpreter, op: simt.AtomicCasOp, args: PythonValues):
        _, buffer, i = _element(interp, op, args, 2)
        w = _width(op.value.type)
        expected, new = args[-2], args[-1]
        with LOCK:
            old = buffer.read(i)
            if signed(old, w) == signed(expected, w):
                buffer.write(i, new)
        return (old,)


for _op in simt.ATOMIC_OPS:
    if _op is not simt.AtomicCasOp:
        setattr(AtomicFunctions, f"run_{_op.name[5:]}", impl(_op)(AtomicFunctions.run_rmw))
AtomicFunctions = register_impls(AtomicFunctions)
