"""The table of op meanings: `@lowers(OpType)` registers a factory that, given an op, returns
`run(ctx, args, mask) -> results` on lane arrays (see `arith_ops` for the value conventions).

The SIMT engine (`engine.py`) compiles each op it meets through this table. `scalar_functions`
wraps the same factories as xDSL `InterpreterFunctions` on scalars, so the host runner and the
tile interpreter use the one definition of `arith` and `math` instead of a copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from ferrox.driver.interpreter.errors import KernelFault
from ferrox.driver.interpreter.values import int_width, signed, value_dtype

Run = Callable[[Any, list, Any], tuple]
Factory = Callable[[Operation], Run]
FACTORIES: dict[type[Operation], Factory] = {}


OpT = TypeVar("OpT", bound=Operation)


def lowers(op_type: type[OpT]) -> Callable[[Callable[[OpT], Run]], Callable[[OpT], Run]]:
    def register(factory: Callable[[OpT], Run]) -> Callable[[OpT], Run]:
        FACTORIES[op_type] = cast(Factory, factory)  # looked up by the op's own type
        return factory

    return register


class Unsupported(Exception):
    """An op the interpreter cannot run (a type it does not hold); located where it is met."""

    def __init__(self, op: Operation | None, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


def unsupported(op: Operation | None, message: str) -> Unsupported:
    return Unsupported(op, message)


class _ScalarCtx:
    """What an op's `run` asks of its context, for one scalar lane of an xDSL interpreter."""

    __slots__ = ("interp",)

    def __init__(self, interp: Any):
        self.interp = interp

    def fault(self, op: Operation, bad: Any, message: str) -> Exception:
        return self.interp.trap(op, message)


def _to_lane(value: Any, t: Any) -> Any:
    dtype = value_dtype(t)
    if dtype is None:
        return value
    if dtype.kind in "iu":
        return np.array([signed(int(value), dtype.itemsize * 8)], dtype=dtype)
    return np.array([value], dtype=dtype)


def _from_lane(value: Any, t: Any) -> Any:
    dtype = value_dtype(t)
    if dtype is None:
        return value
    item = np.asarray(value).reshape(-1)[0]
    if dtype.kind == "b":
        return bool(item)
    if int_width(t) is not None:
        return int(item)
    return dtype.type(item)


def _compiled(op: Operation) -> Run:
    try:
        return FACTORIES[type(op)](op)
    except Unsupported as e:
        message = e.message

        def refuse(ctx, args, mask):
            raise KernelFault(op, message)

        return refuse


def _scalar_run(self, interp: Any, op: Operation, args: PythonValues):
    run = interp.static(op, _compiled)
    lanes = [_to_lane(a, v.type) for a, v in zip(args, op.operands)]
    with np.errstate(all="ignore"):
        out = run(_ScalarCtx(interp), lanes, np.ones(1, bool))
    return tuple(_from_lane(v, r.type) for v, r in zip(out, op.results))


def scalar_functions(name: str, op_types: Iterable[type[Operation]]) -> type[InterpreterFunctions]:
    """An `InterpreterFunctions` class running the registered definitions of `op_types` on
    scalars (each value a one-lane array for the duration of the op)."""
    namespace = {
        f"run_{t.name.replace('.', '_')}": impl(t)(_scalar_run) for t in op_types if t in FACTORIES
    }
    return register_impls(type(name, (InterpreterFunctions,), namespace))
