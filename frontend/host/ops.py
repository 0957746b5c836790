"""The host surface: one function per host-dialect op, each recording that op into the program
being recorded (`current()`), at the caller's Python line.

    s = host.stream()                                   # host.stream
    p = host.prepare(vecadd, grid, block, a, b, out)    # host.prepare (every argument, in order)
    out = host.launch(p, s, a, b, out)                  # host.launch: takes `out`, gives it back
    pz = host.partition(z, 128)                         # host.partition
    pz = host.tile_launch(add, s, pz, x, y)             # host.tile_launch
    z = host.unpartition(pz)                            # host.unpartition
    host.sync(s)                                        # host.sync_on

A launch's arguments are the kernel's, in its parameter order; the exclusive outputs among them
are moved into the launch and come back as its result (one value, or a tuple), which the
program rebinds. Using the old value afterwards is `use of moved value`, reported by
`verify-ownership` at the line that used it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
from xdsl.dialects import scf
from xdsl.dialects.builtin import Float64Type, FloatAttr, IndexType, IntegerAttr, StringAttr, i64
from xdsl.ir import Block, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects import host
from ferrox.dialects.host import Distribution, DistributionAttr
from ferrox.frontend.host.recorder import (
    LoopIndex,
    Partition,
    Prepared,
    Recorder,
    Stream,
    Tensor,
    _kind,
    _Symbolic,
    dtype_from,
    names_attr,
    shape_of,
    symbol,
    tensor_type,
)

_CURRENT: ContextVar[Recorder | None] = ContextVar("ferrox_host_recorder", default=None)


@contextmanager
def recording(recorder: Recorder) -> Iterator[Recorder]:
    token = _CURRENT.set(recorder)
    try:
        yield recorder
    finally:
        _CURRENT.reset(token)


def current(what: str) -> Recorder:
    recorder = _CURRENT.get()
    if recorder is None:
        raise TypeError(
            f"host.{what}() records an op of a host program: call it inside a function "
            "decorated with @ferrox.host.program"
        )
    return recorder


# -- streams and launches -------------------------------------------------------------------


def stream() -> Stream:
    """A new stream (`host.stream`): launches on it run in order, asynchronously to the host."""
    r = current("stream")
    at = r.here()
    op = host.StreamOp(result_types=[host.StreamType()])
    r.emit(op, at)
    return Stream(op.result)


def sync(s: Stream) -> None:
    """Wait for every launch on `s` (`host.sync_on`): their outputs become readable."""
    r = current("sync")
    at = r.here()
    if not isinstance(s, Stream):
        raise r.fail(f"host.sync needs a stream, got {type(s).__name__}", at)
    r.emit(host.SyncOnOp(operands=[s.value]), at)


def prepare(
    kernel: Any, grid: Any, block: Any, *args: Any, shared: int | None = None, **constants: Any
) -> Prepared:
    """Check a launch configuration of a SIMT kernel (`host.prepare`): grid and block (an int
    or 1 to 3 ints), every kernel argument in order, `shared` dynamic shared bytes, and the
    kernel's `Constexpr` values by keyword. The result is what `host.launch` needs."""
    r = current("prepare")
    at = r.here()
    k = r.kernel(kernel, constants, at)
    if k.op.name != "simt.kernel":
        raise r.fail(f"@{k.name} is a tile kernel: launch it with host.tile_launch", at)
    g, b = r.dims(grid, "grid", at), r.dims(block, "block", at)
    sh = [] if shared is None else [r.constant(shared, IndexType(), at)]
    every, _, _, _ = r.arguments(k, args, at, tile=False)
    op = host.PrepareOp(
        operands=[g, b, sh, every],
        result_types=[host.PreparedType(k.name)],
        properties={"kernel": symbol(k.name)},
    )
    r.emit(op, at)
    return Prepared(op.result, k.name)


def launch(prepared: Prepared, on: Stream, *args: Any) -> Any:
    """The safe launch of a prepared SIMT kernel on stream `on` (`host.launch`), with the
    kernel's arguments in order. Returns the new value of each exclusive output it took."""
    r = current("launch")
    at = r.here()
    if not isinstance(prepared, Prepared):
        raise r.fail(
            f"host.launch needs the result of host.prepare, got {type(prepared).__name__}", at
        )
    _stream(r, on, at)
    k = r.kernels[prepared.kernel]
    _, ins, outs, taken = r.arguments(k, args, at, tile=False)
    op = host.LaunchOp(
        operands=[prepared.value, on.value, ins, outs],
        result_types=[[o.type for o in outs]],
        properties={"kernel": symbol(k.name)},
    )
    r.emit(op, at, ())
    return r.given_back(op, taken, at)


def unsafe_launch(
    kernel: Any, grid: Any, block: Any, on: Stream, *args: Any, shared: int = 0, **constants: Any
) -> Any:
    """A launch whose configuration nothing checks (`host.unsafe_launch`)."""
    r = current("unsafe_launch")
    at = r.here()
    _stream(r, on, at)
    k = r.kernel(kernel, constants, at)
    g, b = r.dims(grid, "grid", at), r.dims(block, "block", at)
    sh = [r.constant(shared, IndexType(), at)] if shared else []
    _, ins, outs, taken = r.arguments(k, args, at, tile=False)
    op = host.UnsafeLaunchOp(
        operands=[g, b, sh, on.value, ins, outs],
        result_types=[[o.type for o in outs]],
        properties={"kernel": symbol(k.name)},
    )
    r.emit(op, at, ())
    return r.given_back(op, taken, at)


def tile_launch(kernel: Any, on: Stream, *args: Any, **constants: Any) -> Any:
    """Run a tile kernel once per tile of its output partitions (`host.tile_launch`); the
    arguments in the kernel's order, a partition for each `Partition` parameter. Returns the
    new value of each partition it took."""
    r = current("tile_launch")
    at = r.here()
    _stream(r, on, at)
    k = r.kernel(kernel, constants, at)
    if k.op.name != "tile.kernel":
        raise r.fail(f"@{k.name} is a SIMT kernel: prepare it and launch it with host.launch", at)
    _, ins, outs, taken = r.arguments(k, args, at, tile=True)
    op = host.TileLaunchOp(
        operands=[on.value, ins, outs],
        result_types=[[o.type for o in outs]],
        properties={"kernel": symbol(k.name)},
    )
    r.emit(op, at, ())
    return r.given_back(op, taken, at)


def partition(t: Tensor, tile: Any) -> Partition:
    """Cut `t` into tiles of `tile` (an int or a tuple; powers of two), moving it
    (`host.partition`); a tile launch gives tile block `(i, ..)` tile `(i, ..)`."""
    r = current("partition")
    at = r.here()
    if not isinstance(t, Tensor):
        raise r.fail(f"host.partition needs a tensor, got {type(t).__name__}", at)
    tiles = shape_of(tile)
    try:
        type_ = host.PartitionType(t.dtype.ir, t.shape, tiles)
    except VerifyException as e:
        raise r.fail(str(e), at) from None
    op = host.PartitionOp(operands=[t.value], result_types=[type_])
    r.emit(op, at)
    return Partition(op.result, t.dtype, t.shape, tiles, t.root)


def unpartition(p: Partition) -> Tensor:
    """The tensor back from its partition (`host.unpartition`), moving the partition."""
    r = current("unpartition")
    at = r.here()
    if not isinstance(p, Partition):
        raise r.fail(f"host.unpartition needs a partition, got {type(p).__name__}", at)
    op = host.UnpartitionOp(operands=[p.value], result_types=[tensor_type(p.dtype, p.shape)])
    r.emit(op, at)
    return Tensor(op.result, p.dtype, p.shape, p.root)


# -- loops that carry values ----------------------------------------------------------------


def fori_loop(
    lower: int, upper: int, body: Callable[..., Any], *carried: Any, step: int = 1
) -> Any:
    """A loop the program keeps as a loop (`scf.for` with `iter_args`), where a Python `for`
    would record its body once per trip: `body(i, *values)` is recorded once, as the loop's
    body, and returns the values the next trip gets (one value, or a tuple in `carried`'s
    order); the loop returns what the last trip returned (`carried` itself for no trip).

        def step(i, s, acc):
            fresh = host.poison(acc.shape, f32)
            fresh = host.launch(p, s, acc, x, fresh)   # takes `fresh`, reads `acc`
            return s, fresh
        s, acc = host.fori_loop(0, steps, step, s, acc)
        host.sync(s)                                   # the loop's stream, synced after it

    `carried` are tensors, partitions and streams; each trip's values must be of the types
    they entered with. `i` is an `index` kernel argument. A launch inside the body takes what
    it takes on every trip, so `verify-ownership` refuses a body that moves a value it did not
    get through `carried` (`value moved here, in previous iteration of loop`)."""
    r = current("fori_loop")
    at = r.here()
    for name, bound in (("lower", lower), ("upper", upper), ("step", step)):
        if isinstance(bound, bool) or not isinstance(bound, int | np.integer):
            raise r.fail(f"host.fori_loop's {name} bound is a Python int, got {_kind(bound)}", at)
    if step <= 0:
        raise r.fail(f"host.fori_loop's step must be positive, got {step}", at)
    for k, value in enumerate(carried):
        if not isinstance(value, Tensor | Partition | Stream):
            raise r.fail(
                f"host.fori_loop carries tensors, partitions and streams; value #{k} is "
                f"{_kind(value)}",
                at,
            )
    names = _parameter_names(body)
    if names is None or len(names) != 1 + len(carried):
        raise r.fail(
            f"the loop body takes the index and the {len(carried)} carried value(s), "
            f"{1 + len(carried)} parameter(s); {_describe_body(body, names)}",
            at,
        )
    bounds = [r.constant(int(v), IndexType(), at) for v in (lower, upper, step)]
    block = Block(arg_types=[IndexType(), *(c.value.type for c in carried)])
    location = r.location(at)
    for arg, name in zip(block.args, names):
        arg.location = location
        if name.isidentifier():
            arg.name_hint = name
    index, *args = block.args
    given = [_like(c, a) for c, a in zip(carried, args)]
    with r.into(block):
        returned = body(LoopIndex(index), *given)
        got = list(returned) if isinstance(returned, tuple | list) else [returned]
        if returned is None and not carried:
            got = []
        if len(got) != len(carried):
            raise r.fail(
                f"the loop body returns {len(got)} value(s), but the loop carries "
                f"{len(carried)}: return them in the order they were given",
                at,
            )
        for k, (value, init) in enumerate(zip(got, carried)):
            if not isinstance(value, _Symbolic) or value.value.type != init.value.type:
                raise r.fail(
                    f"the loop body returns {_kind(value)} for carried value #{k}, which "
                    f"entered as {init!r}: a trip must give back what it got, of the same type",
                    at,
                )
        r.emit(scf.YieldOp(*[v.value for v in got]), at)
    lb, ub, st = bounds
    op = scf.ForOp(lb, ub, st, [c.value for c in carried], Region(block))
    r.emit(op, at)
    back = [_like(c, res) for c, res in zip(carried, op.results)]
    if not back:
        return None
    return back[0] if len(back) == 1 else tuple(back)


def _parameter_names(body: Any) -> list[str] | None:
    try:
        params = inspect.signature(body).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
        return None
    return [p.name for p in params]


def _describe_body(body: Any, names: list[str] | None) -> str:
    if names is None:
        return f"{type(body).__name__} {getattr(body, '__name__', '')} takes other parameters"
    return f"{getattr(body, '__name__', 'it')} takes {len(names)} ({', '.join(names)})"


def _like(value: Any, new: SSAValue) -> Any:
    """`value`'s kind of symbolic value, for `new` (its loop argument or result)."""
    if isinstance(value, Stream):
        return Stream(new)
    if isinstance(value, Partition):
        return Partition(new, value.dtype, value.shape, value.tile, value.root)
    return Tensor(new, value.dtype, value.shape, value.root)


# -- tensors the program makes, and checks --------------------------------------------------


def _creation(what: str, cls: type, shape: Any, dtype: Any) -> Tensor:
    r = current(what)
    at = r.here()
    dt = dtype_from(dtype, lambda m: r.fail(m, at))
    dims = shape_of(shape)
    try:
        type_ = tensor_type(dt, dims)
    except VerifyException as e:
        raise r.fail(str(e), at) from None
    op = cls(operands=[[]], result_types=[type_])
    r.emit(op, at)
    return Tensor(op.results[0], dt, dims)


def zeros(shape: Any, dtype: Any) -> Tensor:
    """A new tensor of zeros (`host.zeros`)."""
    return _creation("zeros", host.ZerosOp, shape, dtype)


def poison(shape: Any, dtype: Any) -> Tensor:
    """A new output tensor poisoned with NaN (integers: their maximum) (`host.poison`)."""
    return _creation("poison", host.PoisonOp, shape, dtype)


def full(shape: Any, value: Any, dtype: Any) -> Tensor:
    """A new tensor with every element `value` (`host.full`)."""
    r = current("full")
    at = r.here()
    dt = dtype_from(dtype, lambda m: r.fail(m, at))
    dims = shape_of(shape)
    try:
        type_ = tensor_type(dt, dims)
    except VerifyException as e:
        raise r.fail(str(e), at) from None
    fill = r.constant(value, dt.ir, at)
    op = host.FullOp(operands=[fill, []], result_types=[type_])
    r.emit(op, at)
    return Tensor(op.result, dt, dims)


def random(
    shape: Any,
    dtype: Any,
    *,
    seed: int,
    uniform: tuple[float, float] | None = None,
    normal: tuple[float, float] | None = None,
) -> Tensor:
    """A new tensor of random values (`host.random`): `uniform=(low, high)` or
    `normal=(mean, stddev)`, drawn as `numpy.random.default_rng(seed)` draws them."""
    r = current("random")
    at = r.here()
    if (uniform is None) == (normal is None):
        raise r.fail("host.random needs one of uniform=(low, high) or normal=(mean, stddev)", at)
    dt = dtype_from(dtype, lambda m: r.fail(m, at))
    dims = shape_of(shape)
    if uniform is not None:
        kind, (low, high) = Distribution.UNIFORM, uniform
    else:
        assert normal is not None
        kind, (low, high) = Distribution.NORMAL, normal
    try:
        type_ = tensor_type(dt, dims)
    except VerifyException as e:
        raise r.fail(str(e), at) from None
    op = host.RandomOp(
        operands=[[]],
        result_types=[type_],
        properties={
            "distribution": DistributionAttr(kind),
            "low": FloatAttr(float(low), Float64Type()),
            "high": FloatAttr(float(high), Float64Type()),
            "seed": IntegerAttr(int(seed), i64),
        },
    )
    r.emit(op, at)
    return Tensor(op.result, dt, dims)


def check(actual: Tensor, expected: Any, *, rtol: float | None = None,
          atol: float | None = None, **names: Any) -> None:  # fmt: skip
    """Compare `actual` with a reference tensor, or a NumPy formula over `names` (`host.check`);
    a failed check fails the program's call."""
    r = current("check")
    at = r.here()
    if not isinstance(actual, Tensor):
        raise r.fail(f"host.check needs a tensor, got {type(actual).__name__}", at)
    props: dict[str, Any] = {}
    for key, tol in (("rtol", rtol), ("atol", atol)):
        if tol is not None:
            props[key] = FloatAttr(float(tol), Float64Type())
    if isinstance(expected, Tensor):
        if names:
            raise r.fail("a check against a reference tensor binds no formula names", at)
        operands: list[Any] = [actual.value, [expected.value], []]
    elif isinstance(expected, str):
        bound = []
        for name, value in names.items():
            if isinstance(value, Tensor):
                bound.append(value.value)
            elif isinstance(value, _Symbolic):
                raise r.fail(f"formula name '{name}' is bound to {value!r}", at)
            else:
                bound.append(r.constant(value, _formula_type(value), at))
        props["formula"] = StringAttr(expected)
        props["names"] = names_attr(list(names))
        operands = [actual.value, [], bound]
    else:
        raise r.fail(
            f"host.check compares with a tensor or a formula string, got {type(expected).__name__}",
            at,
        )
    r.emit(host.CheckOp(operands=operands, properties=props), at)


def _formula_type(value: Any) -> Any:
    return IndexType() if isinstance(value, int) else Float64Type()


def _stream(r: Recorder, on: Any, at: tuple[str, int, int]) -> None:
    if not isinstance(on, Stream):
        raise r.fail(f"a launch runs on a stream (host.stream()), got {type(on).__name__}", at)


__all__ = [
    "check",
    "current",
    "fori_loop",
    "full",
    "random",
    "launch",
    "partition",
    "poison",
    "prepare",
    "recording",
    "stream",
    "sync",
    "tile_launch",
    "unpartition",
    "unsafe_launch",
    "zeros",
]
