"""Recording a host program: each call of the host surface appends one host-dialect op.

A `@ferrox.host.program` function runs once, in Python, on symbolic values (the lazy chain): a
`Tensor` has a type and a shape but no data, a launch enqueues nothing, it only records
`host.launch` and hands back the new values of the outputs it took. Every op is located at the
Python call that recorded it (the innermost frame outside ferrox's host modules), and each result
is named after the variable it is assigned to, so `verify-ownership` speaks of `%out` at
`prog.py:12:11`. Nothing runs until the whole program is recorded and verified.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from ferrox.diagnostics import Diagnostic, SourceLoc
from ferrox.dialects import host
from ferrox.dialects.host.kernels import Role, kernel_params, role_of
from ferrox.frontend.common.errors import FrontendError
from ferrox.frontend.common.source import FunctionSource
from ferrox.frontend.common.types import DTYPES, DType, as_dtype
from ferrox.frontend.host.arrays import _numpy_element

KERNEL_OPS = ("simt.kernel", "tile.kernel")


class _Symbolic:
    """A value of the program being recorded: it has a type, never data."""

    value: SSAValue

    def __bool__(self) -> bool:
        raise TypeError(_NO_DATA)

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(_NO_DATA)

    def __iter__(self) -> Any:
        raise TypeError(_NO_DATA)


_NO_DATA = (
    "a host program's values have no data while the program is recorded; they exist when it "
    "runs: return the tensor and read it after the call, or compare it with host.check"
)


@dataclass(eq=False)
class Tensor(_Symbolic):
    """`!host.tensor`: an owned tensor. `root` is the caller array whose buffer it is, if any."""

    value: SSAValue
    dtype: DType
    shape: tuple[int, ...]
    root: int | None = None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"<host tensor %{self.value.name_hint} {self.dtype.name} {list(self.shape)}>"


@dataclass(eq=False)
class Partition(_Symbolic):
    """`!host.partition`: a tensor cut into tiles, one per tile block of a tile launch."""

    value: SSAValue
    dtype: DType
    shape: tuple[int, ...]
    tile: tuple[int, ...]
    root: int | None = None

    @property
    def grid(self) -> tuple[int, ...]:
        return tuple(-(-s // t) for s, t in zip(self.shape, self.tile))

    def __repr__(self) -> str:
        return f"<host partition %{self.value.name_hint} {list(self.shape)} by {list(self.tile)}>"


@dataclass(eq=False)
class Stream(_Symbolic):
    """`!host.stream`: launches on it run in order; `host.sync` waits for them."""

    value: SSAValue

    def __repr__(self) -> str:
        return f"<host stream %{self.value.name_hint}>"


@dataclass(eq=False)
class LoopIndex(_Symbolic):
    """The induction variable of a `host.fori_loop` (`index`): an `index` kernel argument."""

    value: SSAValue

    def __repr__(self) -> str:
        return f"<host loop index %{self.value.name_hint}>"


@dataclass(eq=False)
class Prepared(_Symbolic):
    """`!host.prepared<@k>`: a checked launch configuration of the SIMT kernel `@k`."""

    value: SSAValue
    kernel: str


@dataclass
class _Kernel:
    name: str
    op: Operation
    roles: list[Role | None]
    params: Sequence[Attribute]
    key: tuple[int, tuple[tuple[str, str], ...]]


@dataclass
class Recorder:
    """The program being recorded: its `@main` block, the kernels it launches, and where each
    Python call sits. `internal` are the files whose frames are skipped when locating a call."""

    source: FunctionSource
    internal: frozenset[str]
    block: Block = field(default_factory=Block)
    kernels: dict[str, _Kernel] = field(default_factory=dict)
    kernel_ops: list[Operation] = field(default_factory=list)
    targets: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    counter: int = 0

    def __post_init__(self) -> None:
        self.targets = _assign_targets(self.source)

    # -- where a call is ------------------------------------------------------------------

    def here(self) -> tuple[str, int, int]:
        """(file, line, 1-based column) of the user's call being recorded."""
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename in self.internal:
            frame = frame.f_back  # type: ignore[assignment]
        if frame is None:
            return self.source.file, self.source.first_line, 1
        positions = list(frame.f_code.co_positions())
        index = frame.f_lasti // 2
        line, _, col, _ = positions[index] if index < len(positions) else (None, 0, 0, 0)
        return frame.f_code.co_filename, line or frame.f_lineno, (col or 0) + 1

    def fail(self, message: str, at: tuple[str, int, int] | None = None) -> FrontendError:
        file, line, col = at or self.here()
        return FrontendError([Diagnostic("error", message, SourceLoc(file, line, col))])

    def location(self, at: tuple[str, int, int]) -> FileLineColLoc:
        file, line, col = at
        return FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(col))

    @contextmanager
    def into(self, block: Block) -> Iterator[Block]:
        """Record into `block` (a loop's body) until the `with` ends."""
        outer, self.block = self.block, block
        try:
            yield block
        finally:
            self.block = outer

    def emit(self, op: Operation, at: tuple[str, int, int], names: Sequence[str] = ()) -> None:
        op.location = self.location(at)
        line, col = at[1], at[2]
        hints = list(names) or self.targets.get((line, col), [])
        if len(hints) == len(op.results):
            for result, hint in zip(op.results, hints):
                result.name_hint = hint
        self.block.add_op(op)

    def fresh_name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- values ---------------------------------------------------------------------------

    def constant(self, value: Any, type_: Attribute, at: tuple[str, int, int]) -> SSAValue:
        if isinstance(type_, IndexType | IntegerType):
            if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
                raise self.fail(f"expected an integer for a {type_} argument, got {value!r}", at)
            op = arith.ConstantOp(IntegerAttr(int(value), type_))
        elif isinstance(type_, AnyFloat):
            if not isinstance(value, int | float | np.integer | np.floating) or isinstance(
                value, bool
            ):
                raise self.fail(f"expected a number for a {type_} argument, got {value!r}", at)
            op = arith.ConstantOp(FloatAttr(float(value), type_))
        else:
            raise self.fail(f"a {type_} argument cannot be a Python value ({value!r})", at)
        file, line, col = at
        op.location = FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(col))
        self.block.add_op(op)
        return op.result

    def dims(self, value: Any, what: str, at: tuple[str, int, int]) -> list[SSAValue]:
        dims = (value,) if isinstance(value, int | np.integer) else tuple(value)
        if not 1 <= len(dims) <= 3:
            raise self.fail(f"{what} needs 1 to 3 dimensions, got {len(dims)}", at)
        return [self.constant(d, IndexType(), at) for d in dims]

    # -- kernels --------------------------------------------------------------------------

    def kernel(self, kernel: Any, constants: dict[str, Any], at: tuple[str, int, int]) -> _Kernel:
        """Add `kernel`'s module (its `.module(**constants)`) to the program, once."""
        name = getattr(kernel, "name", None)
        build: Callable[..., ModuleOp] | None = getattr(kernel, "module", None)
        if not isinstance(name, str) or build is None:
            raise self.fail(
                f"expected a ferrox kernel (@ferrox.simt.kernel, @ferrox.tile.kernel, or "
                f"ferrox.host.mlir_kernels(...)[name]), got {type(kernel).__name__}",
                at,
            )
        key = (id(kernel), tuple(sorted((k, repr(v)) for k, v in constants.items())))
        known = self.kernels.get(name)
        if known is not None:
            if known.key != key:
                raise self.fail(
                    f"@{name} is already in this program with other Constexpr values or from "
                    "another function; a program holds one specialisation of each kernel name",
                    at,
                )
            return known
        module = build(**constants)
        have = {_sym(op) for op in self.kernel_ops}
        found = None
        for op in module.ops:
            sym = _sym(op)
            if sym is not None and sym in have:
                continue  # a device function another kernel of the program brought already
            op = op.clone()
            self.kernel_ops.append(op)
            if op.name in KERNEL_OPS and sym == name:
                found = op
        if found is None:
            raise self.fail(f"the module of {name} has no kernel @{name}", at)
        params = kernel_params(found)
        entry = _Kernel(name, found, [role_of(p) for p in params], params, key)
        self.kernels[name] = entry
        return entry

    def arguments(
        self, k: _Kernel, args: Sequence[Any], at: tuple[str, int, int], tile: bool
    ) -> tuple[list[SSAValue], list[SSAValue], list[SSAValue], list[Any]]:
        """(every argument, ins, outs, the output values) of a launch of `k` in parameter order."""
        if len(args) != len(k.params):
            raise self.fail(
                f"@{k.name} takes {len(k.params)} argument(s) ({_param_list(k)}), got {len(args)}",
                at,
            )
        every: list[SSAValue] = []
        ins: list[SSAValue] = []
        outs: list[SSAValue] = []
        taken: list[Any] = []
        for i, (arg, param, role) in enumerate(zip(args, k.params, k.roles)):
            if role is Role.SCALAR:
                if isinstance(arg, LoopIndex) and isinstance(param, IndexType):
                    every.append(arg.value)
                    ins.append(arg.value)
                    continue
                if isinstance(arg, _Symbolic):
                    raise self.fail(f"argument #{i} of @{k.name} is a {param}, got {arg!r}", at)
                value = self.constant(arg, param, at)
                every.append(value)
                ins.append(value)
                continue
            want = Partition if tile and role is Role.OUTPUT else Tensor
            if not isinstance(arg, want):
                what = "a partition (host.partition(t, tile))" if want is Partition else "a tensor"
                raise self.fail(
                    f"argument #{i} of @{k.name} ({param}) needs {what}, got {_kind(arg)}", at
                )
            every.append(arg.value)
            (outs if role is Role.OUTPUT else ins).append(arg.value)
            if role is Role.OUTPUT:
                taken.append(arg)
        return every, ins, outs, taken

    def given_back(self, op: Operation, taken: list[Any], at: tuple[str, int, int]) -> Any:
        names = self.targets.get((at[1], at[2]), [])
        if len(names) != len(taken):
            names = [t.value.name_hint or self.fresh_name("t") for t in taken]
        for result, name in zip(op.results, names):
            result.name_hint = name
        back = [_same_kind(t, r) for t, r in zip(taken, op.results)]
        return back[0] if len(back) == 1 else tuple(back)

    # -- the program ----------------------------------------------------------------------

    def finish(self, returned: Any, at: tuple[str, int, int]) -> tuple[ModuleOp, list[Tensor]]:
        """The module: the kernels, then `func.func @main` ending in a return of `returned`."""
        values = [] if returned is None else (
            list(returned) if isinstance(returned, tuple | list) else [returned]
        )  # fmt: skip
        for v in values:
            if not isinstance(v, Tensor):
                raise self.fail(
                    f"a host program returns tensors (unpartition a partition first), got "
                    f"{_kind(v)}",
                    at,
                )
        ret = func.ReturnOp(*[v.value for v in values])
        self.emit(ret, at)
        main = func.FuncOp(
            "main", ([], [v.value.type for v in values]), Region(self.block)
        )  # fmt: skip
        file = self.source.file
        line, col = self.source.position(self.source.tree)
        main.location = FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(col))
        return ModuleOp([*self.kernel_ops, main]), values


def dtype_from(value: Any, at_fail: Callable[[str], Exception]) -> DType:
    """A tensor element type from a DType, its name, a NumPy dtype, or `float`/`int`/`bool`."""
    if isinstance(value, str) and value in DTYPES:
        return DTYPES[value]
    found = as_dtype(value) if not isinstance(value, str) else None
    if found is not None:
        return found
    try:
        return DTYPES[_numpy_element(np.dtype(value))]
    except (TypeError, KeyError):
        pass
    raise at_fail(f"{value!r} is not an element type (f16, bf16, f32, f64, i1 to i64)")


def tensor_type(dtype: DType, shape: Sequence[int]) -> host.TensorType:
    return host.TensorType(dtype.ir, shape)


def shape_of(value: Any) -> tuple[int, ...]:
    return (int(value),) if isinstance(value, int | np.integer) else tuple(int(v) for v in value)


def names_attr(names: Sequence[str]) -> ArrayAttr:
    return ArrayAttr([StringAttr(n) for n in names])


def symbol(name: str) -> SymbolRefAttr:
    return SymbolRefAttr(name)


def _same_kind(taken: Any, result: SSAValue) -> Any:
    if isinstance(taken, Partition):
        return Partition(result, taken.dtype, taken.shape, taken.tile, taken.root)
    return Tensor(result, taken.dtype, taken.shape, taken.root)


def _kind(value: Any) -> str:
    if isinstance(value, _Symbolic):
        return repr(value)
    return f"{type(value).__name__} {value!r}" if np.isscalar(value) else type(value).__name__


def _sym(op: Operation) -> str | None:
    sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return sym.data if isinstance(sym, StringAttr) else None


def _param_list(k: _Kernel) -> str:
    return ", ".join(str(p) for p in k.params)


def _assign_targets(source: FunctionSource) -> dict[tuple[int, int], list[str]]:
    """(file line, column) of each call assigned to names -> those names, so that a recorded
    op's results are named as the Python variables they become."""
    found: dict[tuple[int, int], list[str]] = {}
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if not isinstance(value, ast.Call):
            continue
        if isinstance(target, ast.Name):
            names = [target.id]
        elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            names = [e.id for e in target.elts]  # type: ignore[attr-defined]
        else:
            continue
        found[source.position(value)] = names
    return found


__all__ = [
    "LoopIndex",
    "Partition",
    "Prepared",
    "Recorder",
    "Stream",
    "Tensor",
    "dtype_from",
    "names_attr",
    "shape_of",
    "symbol",
    "tensor_type",
]
