"""Recording a whole host program from a Python function and its call's arguments, and
verifying it: the module that runs, or a `FrontendError` at the Python lines.

The function's parameters that receive arrays become `host.from_array` ops located at the
parameters, in the order of the distinct arrays (the same array passed twice is one caller array
bound twice, which `verify-ownership` refuses); the others stay Python values, used as they are
while the body records. Two distinct arrays that share memory are refused here, before anything
is recorded (the run-time alias check): a tensor owns its buffer, so two never alias.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64

from ferrox.diagnostics import Diagnostic, DiagnosticError, SourceLoc
from ferrox.dialects import host
from ferrox.frontend.common.errors import FrontendError, located
from ferrox.frontend.common.source import FunctionSource
from ferrox.frontend.common.types import DTYPES
from ferrox.frontend.host.arrays import ArrayFacts, array_facts
from ferrox.frontend.host.ops import recording
from ferrox.frontend.host.recorder import KERNEL_OPS, Recorder, Tensor, tensor_type


@dataclass
class Recorded:
    """A recorded, verified host program and what running it needs."""

    module: ModuleOp
    arrays: list[Any]
    """The distinct caller arrays, in `host.from_array` index order."""
    facts: list[ArrayFacts]
    returns: list[Tensor]
    """`@main`'s returned tensors (their `root` is the caller array whose buffer they are)."""

    def kernels_module(self) -> ModuleOp:
        """The kernels alone (what is compiled, so host code does not key the kernel cache)."""
        return ModuleOp([op.clone() for op in self.module.ops if op.name != "func.func"])

    @property
    def has_kernels(self) -> bool:
        return any(op.name in KERNEL_OPS for op in self.module.ops)


def record(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    internal: frozenset[str],
    verify_it: bool = True,
) -> Recorded:
    """Record `fn(*args, **kwargs)` as a host program and verify it (unless `verify_it` is
    False: the module as recorded, for `ferrox-opt` to check)."""
    source = FunctionSource.of(fn)
    spec = source.tree.args
    if spec.vararg or spec.kwarg or spec.posonlyargs or spec.kwonlyargs:
        raise _at(source, source.tree, "a host program takes plain positional parameters")
    params = spec.args
    if len(args) + len(kwargs) > len(params):
        raise TypeError(f"{source.name}() takes {len(params)} arguments, got {len(args)}")
    bound: dict[str, Any] = {p.arg: a for p, a in zip(params, args)}
    for name, value in kwargs.items():
        if name not in {p.arg for p in params} or name in bound:
            raise TypeError(f"{source.name}() got an unexpected or repeated argument '{name}'")
        bound[name] = value
    missing = [p.arg for p in params if p.arg not in bound]
    defaults = dict(zip([p.arg for p in params][len(params) - len(spec.defaults) :], spec.defaults))
    for name in missing:
        if name not in defaults:
            raise TypeError(f"{source.name}() missing argument '{name}'")
        bound[name] = source.evaluate(defaults[name])

    recorder = Recorder(source, internal)
    arrays: list[Any] = []
    facts: list[ArrayFacts] = []
    first_param: list[ast.arg] = []
    values: list[Any] = []
    for param in params:
        obj = bound[param.arg]
        try:
            found = array_facts(obj)
        except TypeError:
            values.append(obj)  # a Python value: used as it is while recording
            continue
        index = next((i for i, a in enumerate(arrays) if a is obj), None)
        if index is None:
            for i, other in enumerate(facts):
                if found.overlaps(other):
                    raise _at(
                        source,
                        param,
                        f"caller arrays `{first_param[i].arg}` and `{param.arg}` share memory "
                        f"({other.describe()} and {found.describe()}); each caller array is bound "
                        "to its own tensor, so no two may alias (pass a copy)",
                        [(first_param[i], f"`{first_param[i].arg}` bound here")],
                    )
            index = len(arrays)
            arrays.append(obj)
            facts.append(found)
            first_param.append(param)
        values.append(_from_array(recorder, source, param, index, found))

    with recording(recorder):
        returned, at = _run(fn, values, source)
        module, returns = recorder.finish(returned, at)
    if verify_it:
        verify(module)
    return Recorded(module, arrays, facts, returns)


def verify(module: ModuleOp) -> None:
    """Op verifiers, `verify-disjoint` and `verify-ownership`, reported at the Python lines."""
    from ferrox.passes.verify_disjoint import verify_disjoint
    from ferrox.passes.verify_ownership import VerifyOwnershipPass
    from ferrox.registry import make_context
    from ferrox.verify import verify_module

    try:
        verify_module(module)
        verify_disjoint(module)
        VerifyOwnershipPass().apply(make_context(), module)
    except DiagnosticError as e:
        raise located(e) from None


def _from_array(
    recorder: Recorder, source: FunctionSource, param: ast.arg, index: int, facts: ArrayFacts
) -> Tensor:
    if facts.element not in DTYPES:
        raise _at(source, param, f"caller array `{param.arg}` has elements {facts.element}")
    dtype = DTYPES[facts.element]
    op = host.FromArrayOp(
        properties={"index": _i64(index)}, result_types=[tensor_type(dtype, facts.shape)]
    )
    line, col = source.position(param)
    recorder.emit(op, (source.file, line, col), [param.arg])
    return Tensor(op.result, dtype, facts.shape, index)


def _i64(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def _run(
    fn: Callable[..., Any], values: list[Any], source: FunctionSource
) -> tuple[Any, tuple[str, int, int]]:
    """Call `fn` on the symbolic values; the result and where it returned: the `return`
    statement that ran, seen by a profile hook on the function's own frame. Where a profiler
    is already installed (cProfile, a debugger's) it is left alone, and the location is the
    function's only `return` statement, else its `def`."""
    code = fn.__code__
    seen: dict[str, int] = {}

    def hook(frame: Any, event: str, _arg: Any) -> None:
        if event == "return" and frame.f_code is code:
            seen["line"] = frame.f_lineno

    if sys.getprofile() is None:
        sys.setprofile(hook)
        try:
            result = fn(*values)
        finally:
            sys.setprofile(None)
    else:
        result = fn(*values)
    returns = [n for n in _own_nodes(source.tree) if isinstance(n, ast.Return)]
    if "line" in seen:
        line = seen["line"]
        found = [n for n in returns if source.position(n)[0] == line]
        col = source.position(found[0])[1] if found else 1
        return result, (source.file, line, col)
    node: ast.AST = returns[0] if len(returns) == 1 else source.tree
    line, col = source.position(node)
    return result, (source.file, line, col)


def _own_nodes(tree: ast.FunctionDef) -> list[ast.AST]:
    """The function's own nodes, not those of functions or lambdas nested in it."""
    found: list[ast.AST] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
    return found


def _at(
    source: FunctionSource,
    node: ast.AST,
    message: str,
    notes: Sequence[tuple[ast.AST, str]] = (),
) -> FrontendError:
    def loc(n: ast.AST) -> SourceLoc:
        line, col = source.position(n)
        return SourceLoc(source.file, line, col)

    return FrontendError(
        [Diagnostic("error", message, loc(node), [Diagnostic("note", m, loc(n)) for n, m in notes])]
    )


__all__ = ["Recorded", "record", "verify"]
