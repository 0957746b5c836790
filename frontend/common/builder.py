"""Python statements and expressions to IR: the part every surface shares.

`FunctionBuilder` walks one function's AST and builds into a block. Names are bound in a chain
of scopes (one per region); a name holds an IR value or a Python object (a constant, a module,
an intrinsic). Control flow maps one-to-one onto scf: `if` on an i1 is `scf.if` whose results
are the names either branch rebinds, `for ... in range(...)` is `scf.for` carrying the names the
body rebinds, `while` is `scf.while`; a tuple of numbers is carried and merged as its elements
(`acc = (0.0,) * 8` in a loop is eight loop values). A condition that is a Python value (a
constant) picks its branch at compile time. Surfaces subclass it and fill in the hooks
(`call_intrinsic`, `load_item`, `assign_item`, `ir_attribute`, `python_attribute`, `with_`,
`return_`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Block, OpResult, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from ferrox.frontend.common import intrinsics as common
from ferrox.frontend.common.errors import FrontendError, UserError, error_at
from ferrox.frontend.common.loops import loop_body
from ferrox.frontend.common.source import FunctionSource
from ferrox.frontend.common.types import DType, as_dtype, dtype_of, f32, i1, index
from ferrox.frontend.common.values import UNARY_MATH, Emitter, describe, is_ir

MISSING: Any = object()

_BINOPS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_UNARY = {ast.USub: "-", ast.UAdd: "+", ast.Not: "not", ast.Invert: "~"}


def assigned_names(stmts: Iterable[ast.stmt]) -> set[str]:
    """Every name the statements bind (not inside nested functions)."""
    names: set[str] = set()

    def targets(node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            names.add(f"{node.value.id}.{node.attr}")  # a Cell's field
        elif isinstance(node, (ast.Tuple, ast.List)):
            for e in node.elts:
                targets(e)
        elif isinstance(node, ast.Starred):
            targets(node.value)

    todo: list[ast.AST] = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Assign):
            for t in node.targets:
                targets(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets(node.target)
        elif isinstance(node, (ast.For, ast.NamedExpr)):
            targets(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets(node.optional_vars)
        todo.extend(ast.iter_child_nodes(node))
    return names


def _is_unrolled(node: ast.AST) -> bool:
    """`for NAME in static_range(...)` (`static_range` by that name, plain or as an attribute)."""
    if not isinstance(node, ast.For) or not isinstance(node.target, ast.Name):
        return False
    it = node.iter
    if not isinstance(it, ast.Call):
        return False
    f = it.func
    return (isinstance(f, ast.Name) and f.id == "static_range") or (
        isinstance(f, ast.Attribute) and f.attr == "static_range"
    )


def unrolled_targets(stmts: Iterable[ast.stmt]) -> set[str]:
    """The names the statements bind only as the variable of a `for ... in static_range(...)`:
    a Python int at each use, which a loop around them does not carry."""
    unrolled: set[str] = set()
    other: list[ast.stmt] = []
    for stmt in stmts:
        for node in ast.walk(stmt):
            if _is_unrolled(node):
                assert isinstance(node, ast.For) and isinstance(node.target, ast.Name)
                unrolled.add(node.target.id)
            elif isinstance(node, ast.For):
                other.append(ast.For(target=node.target, iter=node.iter, body=[], orelse=[]))
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                other.append(node)
            elif isinstance(node, ast.NamedExpr):
                other.append(ast.Expr(node))
            elif isinstance(node, ast.With):
                other.append(ast.With(items=node.items, body=[]))
    return unrolled - assigned_names(other)


def _common_dtype(values: Sequence[Any]) -> DType:
    """The type Python constants merged from several paths take: f32 if any is a float,
    else index if any is an int, else i1."""
    if any(isinstance(v, float) for v in values):
        return f32
    if any(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return index
    return i1


def _one_line(e: Exception) -> str:
    return " ".join(line.strip() for line in str(e).splitlines() if line.strip())


def _number(value: Any) -> bool:
    """A number a loop can carry: an IR scalar or a Python number."""
    if is_ir(value):
        return dtype_of(value.type) is not None
    return carryable(value)


def carryable(value: Any) -> bool:
    """Whether a value can flow out of a region (an IR value, a Python number)."""
    return (
        is_ir(value)
        or (isinstance(value, (int, float)) and not isinstance(value, bool))
        or (isinstance(value, bool))
    )


class Cell:
    """A name whose fields are values the builder tracks like names: `slot.value` reads and
    rebinds the scope entry `slot.value`, so `if`, loops and regions carry it as they carry
    names. A surface binds one where Python code mutates an object (`with out[w] as slot:`)."""

    def __init__(self, fields: Sequence[str], types: Mapping[str, DType] | None = None):
        self.fields = tuple(fields)
        self.types = dict(types or {})
        """A field's element type, if fixed: a Python number stored there takes it."""

    def __repr__(self) -> str:
        return f"<ferrox cell {', '.join(self.fields)}>"


class FunctionBuilder:
    """Builds one Python function's body into a block (see the module docstring)."""

    def __init__(self, source: FunctionSource, block: Block):
        self.source = source
        self.emit = Emitter(block, source.loc(source.tree))
        self.scopes: list[dict[str, Any]] = [{}]

    # -- errors and names ----------------------------------------------------------------

    def fail(self, node: ast.AST, message: str, notes: Sequence[tuple[ast.AST, str]] = ()):
        return error_at(self.source, node, message, notes)

    def here(self, node: ast.AST) -> None:
        self.emit.location = self.source.loc(node)

    def local(self, name: str) -> Any:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return MISSING

    def lookup(self, name: str, node: ast.AST) -> Any:
        value = self.local(name)
        if value is not MISSING:
            return value
        try:
            return self.source.lookup(name)
        except KeyError:
            raise self.fail(node, f"name '{name}' is not defined here") from None

    def bind(self, name: str, value: Any) -> None:
        if isinstance(value, OpResult) and value.name_hint is None and name.isidentifier():
            try:
                value.name_hint = name
            except Exception:  # a name xDSL's printer would not take stays unnamed
                pass
        self.scopes[-1][name] = value

    # -- regions -------------------------------------------------------------------------

    def region(
        self,
        stmts: Sequence[ast.stmt],
        arg_types: Sequence[Attribute] = (),
        names: Sequence[str] = (),
        build: Callable[[], None] | None = None,
    ) -> tuple[Block, dict[str, Any]]:
        """Build statements into a new block whose arguments are bound to `names`; returns the
        block (no terminator yet) and the scope it ended with."""
        block = Block(arg_types=arg_types)
        for arg in block.args:
            arg.location = self.emit.location  # the op that owns the region: its Python line
        scope: dict[str, Any] = {}
        self.scopes.append(scope)
        try:
            for name, arg in zip(names, block.args):
                self.bind_arg(name, arg)
            with self.emit.into(block):
                if build is not None:
                    build()
                else:
                    self.body(stmts)
        finally:
            self.scopes.pop()
        return block, scope

    def bind_arg(self, name: str, arg: SSAValue) -> None:
        if name.isidentifier():
            arg.name_hint = name
        self.scopes[-1][name] = arg

    # -- statements ----------------------------------------------------------------------

    def body(self, stmts: Sequence[ast.stmt]) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, node: ast.stmt) -> None:
        self.here(node)
        method = getattr(self, f"stmt_{type(node).__name__}", None)
        if method is None:
            raise self.fail(
                node, f"`{type(node).__name__.lower()}` statements are not supported in a kernel"
            )
        try:
            method(node)
        except (UserError, VerifyException) as e:  # an attribute built from the user's values
            raise self.fail(node, _one_line(e)) from None

    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        self.expr(node.value)

    def stmt_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
            self.assign_item(node.targets[0], node.value, None)
            return
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            raise self.fail(node, "a declaration needs a value: `x: f32 = 0`")
        dtype = as_dtype(self.annotation(node.annotation))
        if dtype is None:
            raise self.fail(
                node.annotation,
                "a local's annotation must be an element type (f32, i32, index, ...)",
            )
        value = self.expr(node.value)
        self.here(node)
        self.assign(node.target, self.emit.cast(value, dtype))

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        op = _BINOPS[type(node.op)]
        if isinstance(node.target, ast.Subscript):
            self.assign_item(node.target, node.value, op)
            return
        name = self.cell_field(node.target) or (
            node.target.id if isinstance(node.target, ast.Name) else None
        )
        if name is None:
            raise self.fail(node.target, "only names and items can be updated")
        old = self.lookup(name, node.target)
        value = self.expr(node.value)
        self.here(node)
        self.bind(name, self.emit.binop(op, old, value))

    def cell_field(self, node: ast.expr) -> str | None:
        """`slot.value` where `slot` holds a `Cell` with that field: its scope name."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            cell = self.local(node.value.id)
            if isinstance(cell, Cell):
                if node.attr not in cell.fields:
                    raise self.fail(
                        node,
                        f"`{node.value.id}` has the field{'s' if len(cell.fields) > 1 else ''} "
                        f"{', '.join(cell.fields)}, not '{node.attr}'",
                    )
                return f"{node.value.id}.{node.attr}"
        return None

    def assign(self, target: ast.expr, value: Any) -> None:
        field = self.cell_field(target)
        if field is not None:
            assert isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            dtype = self.local(target.value.id).types.get(target.attr)
            if dtype is not None and not is_ir(value):
                value = self.emit.const(value, dtype)
            self.bind(field, value)
        elif isinstance(target, ast.Name):
            self.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise self.fail(
                    target, f"cannot unpack {describe(value)} into {len(target.elts)} names"
                )
            for t, v in zip(target.elts, value):
                self.assign(t, v)
        else:
            raise self.fail(target, "only names, tuples of names and items can be assigned")

    def stmt_Assert(self, node: ast.Assert) -> None:
        value = self.expr(node.test)
        if is_ir(value):
            raise self.fail(
                node, "assert takes a compile-time condition; a run-time check is an `if`"
            )
        if not value:
            message = self.expr(node.msg) if node.msg is not None else "assertion failed"
            raise self.fail(node, f"compile-time assertion failed: {message}")

    def stmt_Break(self, node: ast.Break) -> None:  # `loop_body` rewrites every loop's
        raise self.fail(node, "`break` outside a kernel loop")

    def stmt_Continue(self, node: ast.Continue) -> None:
        raise self.fail(node, "`continue` outside a kernel loop")

    def loop_body(self, node: ast.For) -> list[ast.stmt]:
        """The body of a `for` with its `continue`s and `break`s as `if`s (`common/loops.py`);
        a `break`'s flag is bound to False before the loop."""
        loop = loop_body(node, self.fail)
        if loop.flag is not None:
            self.bind(loop.flag, False)
        return loop.stmts

    def stmt_Return(self, node: ast.Return) -> None:
        self.return_(node)

    def stmt_With(self, node: ast.With) -> None:
        self.with_(node)

    def stmt_If(self, node: ast.If) -> None:
        cond = self.emit_condition(node.test, "an `if` condition")
        if not is_ir(cond):
            self.body(node.body if cond else node.orelse)
            return
        self.here(node)
        names = sorted(assigned_names([*node.body, *node.orelse]))
        then_block, then_scope = self.region(node.body)
        else_block, else_scope = self.region(node.orelse)
        self.here(node)
        names, elements = self.spread_tuples(node, names, [then_scope, else_scope])
        merged = self.merge(node, names, [(then_block, then_scope), (else_block, else_scope)])
        for name in elements:
            if name not in merged:  # the same value on both paths
                self.bind(name, then_scope[name])
        then_block.add_op(self.located(scf.YieldOp(*[vs[0] for vs in merged.values()])))
        else_block.add_op(self.located(scf.YieldOp(*[vs[1] for vs in merged.values()])))
        result_types = [values[0].type for values in merged.values()]
        op = self.emit.emit(scf.IfOp(cond, result_types, Region(then_block), Region(else_block)))
        for name, result in zip(merged, op.results):
            self.bind(name, result)
        self.pack(elements)

    def spread_tuples(
        self, node: ast.AST, names: Sequence[str], scopes: Sequence[dict[str, Any]]
    ) -> tuple[list[str], list[str]]:
        """The names an `if` merges, each tuple of numbers it rebinds spread into its elements
        (`name#k`, set in every branch's scope): the names to merge, and the element names."""
        out: list[str] = []
        elements: list[str] = []
        for name in names:
            outer = self.local(name)
            values = [scope.get(name, outer) for scope in scopes]
            if (
                any(v is MISSING for v in values)
                or not any(isinstance(v, tuple) for v in values)
                or all(v is values[0] for v in values)
            ):
                out.append(name)  # merged as it is (or not visible after the `if`)
                continue
            sizes = sorted({len(v) for v in values if isinstance(v, tuple)})
            if len(sizes) > 1 or not all(
                isinstance(v, tuple) and all(_number(e) for e in v) for v in values
            ):
                found = " and ".join(
                    f"a tuple of {len(v)}" if isinstance(v, tuple) else describe(v) for v in values
                )
                raise self.fail(
                    node,
                    f"`{name}` is {found} on the paths of this `if` (a tuple of numbers keeps "
                    "its length)",
                )
            for k in range(sizes[0]):
                element = f"{name}#{k}"
                for scope, v in zip(scopes, values):
                    scope[element] = v[k]
                out.append(element)
                elements.append(element)
        return out, elements

    def located(self, op):
        op.location = self.emit.location
        return op

    def merge(
        self, node: ast.AST, names: Sequence[str], branches: Sequence[tuple[Block, dict[str, Any]]]
    ) -> dict[str, list[SSAValue]]:
        """The names branches rebind, as one IR value per branch (constants materialised in
        their branch with the type the other branches give the name)."""
        merged: dict[str, list[SSAValue]] = {}
        for name in names:
            outer = self.local(name)
            values = [scope.get(name, outer) for _, scope in branches]
            if any(v is MISSING for v in values):
                continue  # bound on one path only: not visible after the `if`
            if all(v is values[0] for v in values):
                continue
            if not any(is_ir(v) for v in values):
                if all(type(v) is type(values[0]) and v == values[0] for v in values):
                    self.bind(name, values[0])
                    continue
                if not all(carryable(v) for v in values):
                    raise self.fail(
                        node, f"`{name}` holds different Python objects on the paths of this `if`"
                    )
            types = {v.type for v in values if is_ir(v)}
            if len(types) > 1:
                found = " and ".join(sorted(str(t) for t in types))
                raise self.fail(
                    node, f"`{name}` has different types on the paths of this `if`: {found}"
                )
            target = types.pop() if types else None
            dtype = dtype_of(target) if target is not None else _common_dtype(values)
            if target is not None and dtype is None and not all(is_ir(v) for v in values):
                raise self.fail(node, f"`{name}` is a {target} on one path only")
            out = []
            for (block, _), v in zip(branches, values):
                with self.emit.into(block):
                    out.append(self.emit.materialize(v, dtype))
            merged[name] = out
        return merged

    def stmt_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.fail(node, "`for ... else` is not supported in a kernel")
        if not isinstance(node.target, ast.Name):
            raise self.fail(node.target, "a kernel loop binds one name: `for i in range(n)`")
        it = node.iter
        fn = self.expr(it.func) if isinstance(it, ast.Call) else None
        if fn is common.static_range:
            assert isinstance(it, ast.Call)
            self.unrolled(node, it)
            return
        if fn is not range:
            raise self.fail(it, "a kernel loop runs over `range(...)` or `static_range(...)`")
        assert isinstance(it, ast.Call)
        bounds = [self.expr(a) for a in it.args]
        if not 1 <= len(bounds) <= 3 or it.keywords:
            raise self.fail(it, "range takes 1 to 3 positional arguments")
        if len(bounds) == 1:
            bounds = [0, bounds[0]]
        if len(bounds) == 2:
            bounds.append(1)
        if not is_ir(bounds[2]) and bounds[2] <= 0:
            raise self.fail(it, f"a kernel loop's step must be positive, found {bounds[2]}")
        self.here(node)
        lb, ub, step = (self.as_index(b, it) for b in bounds)
        var = node.target.id
        stmts = self.loop_body(node)
        names, inits = self.carried(node, stmts, exclude={var})
        types = [v.type for v in inits]

        def build() -> None:
            self.pack(names)
            self.body(stmts)
            self.here(node)
            self.emit.emit(scf.YieldOp(*self.carried_out(node, names, types)))

        block, _ = self.region([], [IndexType(), *types], [var, *names], build)
        op = self.emit.emit(scf.ForOp(lb, ub, step, inits, Region(block)))
        for name, result in zip(names, op.results):
            self.bind(name, result)
        self.pack(names)

    def unrolled(self, node: ast.For, it: ast.Call) -> None:
        bounds = [self.expr(a) for a in it.args]
        if any(is_ir(b) for b in bounds) or not 1 <= len(bounds) <= 3:
            raise self.fail(it, "static_range takes 1 to 3 compile-time integers")
        assert isinstance(node.target, ast.Name)
        stmts = self.loop_body(node)
        for i in range(*bounds):
            self.bind(node.target.id, i)
            self.body(stmts)

    def stmt_While(self, node: ast.While) -> None:
        if node.orelse:
            raise self.fail(node, "`while ... else` is not supported in a kernel")
        loop = loop_body(node, self.fail)
        if loop.flag is not None:
            self.bind(loop.flag, False)
        stmts, test = loop.stmts, loop.test or node.test
        names, inits = self.carried(node, stmts)
        types = [v.type for v in inits]
        cond_holder: list[Any] = []

        def before() -> None:
            self.pack(names)
            cond = self.emit_condition(test, "a `while` condition")
            if not is_ir(cond):
                raise self.fail(
                    node.test,
                    "a `while` condition must depend on a run-time value (a loop that runs "
                    "forever or never is not a loop)",
                )
            self.here(node)
            cond_holder.append(cond)
            self.emit.emit(scf.ConditionOp(cond, *self.emit.block.args))

        def after() -> None:
            self.pack(names)
            self.body(stmts)
            self.here(node)
            self.emit.emit(scf.YieldOp(*self.carried_out(node, names, types)))

        self.here(node)
        before_block, _ = self.region([], types, names, before)
        after_block, _ = self.region([], types, names, after)
        self.here(node)
        op = self.emit.emit(scf.WhileOp(inits, types, Region(before_block), Region(after_block)))
        for name, result in zip(names, op.results):
            self.bind(name, result)
        self.pack(names)

    def carried(
        self, node: ast.AST, stmts: Sequence[ast.stmt], exclude: AbstractSet[str] = frozenset()
    ) -> tuple[list[str], list[SSAValue]]:
        """The names a loop body rebinds that exist before it, and their initial IR values."""
        names, inits = [], []
        for name in sorted(assigned_names(stmts) - exclude - unrolled_targets(stmts)):
            value = self.local(name)
            if isinstance(value, tuple) and value and all(_number(v) for v in value):
                # a tuple of numbers (accumulators) is carried as its elements, `name#k`
                for k, v in enumerate(value):
                    names.append(f"{name}#{k}")
                    inits.append(self.emit.materialize(v))
                continue
            if value is MISSING or not carryable(value):
                continue
            if is_ir(value) and dtype_of(value.type) is None:
                continue  # a witness or a slice: rebinding it in a loop is not carried
            names.append(name)
            inits.append(self.emit.materialize(value))
        return names, inits

    def pack(self, names: Sequence[str]) -> None:
        """Bind each tuple a loop carries as its elements (`name#k`, see `carried`) again as
        the tuple of those elements' current values."""
        sizes: dict[str, int] = {}
        for name in names:
            base, sep, _ = name.rpartition("#")
            if sep:
                sizes[base] = sizes.get(base, 0) + 1
        for base, size in sizes.items():
            self.scopes[-1][base] = tuple(self.local(f"{base}#{k}") for k in range(size))

    def carried_value(self, node: ast.AST, name: str, names: Sequence[str]) -> Any:
        """A carried name's value at the end of a loop body: a tuple's element for `name#k`."""
        base, sep, k = name.rpartition("#")
        if not sep:
            return self.local(name)
        packed = self.local(base)
        size = sum(1 for n in names if n.rpartition("#")[0] == base)
        if not isinstance(packed, tuple) or len(packed) != size:
            found = f"a tuple of {len(packed)}" if isinstance(packed, tuple) else describe(packed)
            raise self.fail(
                node,
                f"`{base}` is a tuple of {size} values before the loop and {found} after its "
                "body (a carried tuple keeps its length)",
            )
        return packed[int(k)]

    def carried_out(self, node: ast.AST, names: Sequence[str], types: Sequence[Attribute]):
        out = []
        for name, t in zip(names, types):
            value = self.carried_value(node, name, names)
            if is_ir(value) and value.type != t:
                raise self.fail(
                    node,
                    f"`{name}` is {t} before the loop and {value.type} after its body (convert "
                    f"it, e.g. {dtype_of(t)}(...))",
                )
            try:
                out.append(self.emit.materialize(value, dtype_of(t)))
            except UserError as e:
                raise self.fail(node, f"`{name}` in the loop: {e}") from None
        return out

    def as_index(self, value: Any, node: ast.AST) -> SSAValue:
        if not is_ir(value):
            if not isinstance(value, int) or isinstance(value, bool):
                raise self.fail(node, f"a loop bound must be an integer, found {describe(value)}")
            return self.emit.const(value, index)
        d = dtype_of(value.type)
        if d is None or not d.is_integer:
            raise self.fail(node, f"a loop bound must be an integer, found {value.type}")
        return value if d == index else self.emit.cast(value, index)

    def emit_condition(self, test: ast.expr, what: str) -> Any:
        value = self.expr(test)
        self.here(test)
        try:
            return self.emit.condition(value, what)
        except UserError as e:
            raise self.fail(test, str(e)) from None

    # -- expressions ---------------------------------------------------------------------

    def expr(self, node: ast.expr) -> Any:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.fail(
                node, f"{type(node).__name__} expressions are not supported in a kernel"
            )
        try:
            value = method(node)
        except (UserError, VerifyException) as e:
            raise self.fail(node, _one_line(e)) from None
        return value

    def expr_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def expr_Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id, node)

    def expr_Tuple(self, node: ast.Tuple) -> Any:
        return tuple(self.expr(e) for e in node.elts)

    expr_List = expr_Tuple

    def expr_Slice(self, node: ast.Slice) -> Any:
        parts = [None if p is None else self.expr(p) for p in (node.lower, node.upper, node.step)]
        if any(is_ir(p) for p in parts):
            raise self.fail(
                node, "a slice's bounds are compile-time integers (tuples are sliced as built)"
            )
        return slice(*parts)

    def expr_NamedExpr(self, node: ast.NamedExpr) -> Any:
        value = self.expr(node.value)
        self.bind(node.target.id, value)
        return value

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        a, b = self.expr(node.left), self.expr(node.right)
        self.here(node)
        return self.emit.binop(_BINOPS[type(node.op)], a, b)

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Any:
        v = self.expr(node.operand)
        self.here(node)
        return self.emit.unary(_UNARY[type(node.op)], v)

    def expr_BoolOp(self, node: ast.BoolOp) -> Any:
        """`and` / `or`: Python values short-circuit at compile time; i1 values are combined
        with andi/ori, both sides computed."""
        result = self.expr(node.values[0])
        for value_node in node.values[1:]:
            if not is_ir(result):
                if isinstance(node.op, ast.And) and not result:
                    return result
                if isinstance(node.op, ast.Or) and result:
                    return result
                result = self.expr(value_node)
                continue
            other = self.expr(value_node)
            self.here(node)
            result = self.emit.condition(result, "`and`/`or`")
            other = self.emit.condition(other, "`and`/`or`")
            result = self.emit.binop("&" if isinstance(node.op, ast.And) else "|", result, other)
        return result

    def expr_Compare(self, node: ast.Compare) -> Any:
        left = self.expr(node.left)
        result: Any = True
        for op, right_node in zip(node.ops, node.comparators):
            if type(op) not in _CMPOPS:
                raise self.fail(
                    node, f"`{type(op).__name__}` comparisons are not supported in a kernel"
                )
            right = self.expr(right_node)
            self.here(node)
            this = self.emit.compare(_CMPOPS[type(op)], left, right)
            result = this if result is True else self.emit.binop("&", result, this)
            left = right
        return result

    def expr_IfExp(self, node: ast.IfExp) -> Any:
        """`a if cond else b`: only the chosen side runs (scf.if), so `x[i] if i < n else 0.0`
        never reads out of range."""
        cond = self.emit_condition(node.test, "a conditional expression's condition")
        if not is_ir(cond):
            return self.expr(node.body if cond else node.orelse)
        results: list[Any] = []

        def side(e: ast.expr) -> Callable[[], None]:
            return lambda: results.append(self.expr(e))

        then_block, _ = self.region([], build=side(node.body))
        else_block, _ = self.region([], build=side(node.orelse))
        self.here(node)
        merged = self.merge(
            node,
            ["<value>"],
            [(then_block, {"<value>": results[0]}), (else_block, {"<value>": results[1]})],
        )
        if not merged:
            return results[0]
        ((a, b),) = merged.values()
        then_block.add_op(self.located(scf.YieldOp(a)))
        else_block.add_op(self.located(scf.YieldOp(b)))
        return self.emit.result(scf.IfOp(cond, [a.type], Region(then_block), Region(else_block)))

    def expr_Attribute(self, node: ast.Attribute) -> Any:
        field = self.cell_field(node)
        if field is not None:
            return self.lookup(field, node)
        base = self.expr(node.value)
        self.here(node)
        if is_ir(base):
            return self.ir_attribute(base, node.attr, node)
        return self.python_attribute(base, node.attr, node)

    def expr_Subscript(self, node: ast.Subscript) -> Any:
        base = self.expr(node.value)
        if is_ir(base):
            return self.load_item(base, node)
        key = self.expr(node.slice)
        if is_ir(key) or (isinstance(key, tuple) and any(is_ir(k) for k in key)):
            return self.load_item(base, node)
        try:
            return base[key]
        except Exception as e:
            raise self.fail(node, f"cannot index {describe(base)}: {e}") from None

    def expr_Call(self, node: ast.Call) -> Any:
        fn = self.expr(node.func)
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail(node, "`*args` is not supported in a kernel call")
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg is not None}
        self.here(node)
        return self.call(fn, args, kwargs, node)

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        if isinstance(fn, DType):
            self.arity(node, fn.name, args, kwargs, 1)
            return self.emit.cast(args[0], fn)
        if fn in (min, max):
            if len(args) < 2 or kwargs:
                raise self.fail(node, f"{fn.__name__} takes two or more values")
            result = args[0]
            for a in args[1:]:
                result = self.emit.minmax(fn.__name__, result, a)
            return result
        if fn is abs:
            self.arity(node, "abs", args, kwargs, 1)
            return self.emit.abs(args[0])
        if fn is common.where:
            self.arity(node, "where", args, kwargs, 3)
            return self.emit.select(*args)
        if fn in common.MATH:
            if kwargs:  # a surface's own keywords (the tile surface's `exp2(x, ftz=True)`)
                handled = self.call_intrinsic(fn, args, kwargs, node)
                if handled is not NotImplemented:
                    return handled
                raise self.fail(node, f"{fn.name} takes no keyword arguments")
            name = fn.name
            if name in UNARY_MATH:
                self.arity(node, name, args, kwargs, 1)
            return self.emit.math(name, *args)
        if fn is print:
            raise self.fail(node, "print is not supported in a kernel")
        if fn is range or fn is common.static_range:
            raise self.fail(node, f"{getattr(fn, 'name', 'range')}(...) is only a loop's iterable")
        handled = self.call_intrinsic(fn, args, kwargs, node)
        if handled is not NotImplemented:
            return handled
        if callable(fn) and not any(is_ir(a) for a in [*args, *kwargs.values()]):
            try:  # plain Python on constants runs at compile time (math.log2(BLOCK), ...)
                return fn(*args, **kwargs)
            except Exception as e:
                raise self.fail(
                    node, f"calling {getattr(fn, '__name__', fn)!r} at compile time failed: {e}"
                ) from None
        raise self.fail(node, f"{describe(fn)} cannot be called on run-time values in a kernel")

    def arity(
        self, node: ast.AST, name: str, args: list[Any], kwargs: dict[str, Any], n: int
    ) -> None:
        if len(args) != n or kwargs:
            raise self.fail(
                node,
                f"{name} takes {n} argument{'s' if n != 1 else ''}, "
                f"found {len(args) + len(kwargs)}",
            )

    def annotation(self, node: ast.expr) -> Any:
        try:
            return self.source.evaluate(node)
        except Exception as e:
            raise self.fail(node, f"cannot evaluate the annotation: {e}") from None

    # -- hooks a surface fills in --------------------------------------------------------

    def call_intrinsic(
        self, fn: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call
    ) -> Any:
        return NotImplemented

    def load_item(self, base: Any, node: ast.Subscript) -> Any:
        raise self.fail(node, f"cannot index {describe(base)}")

    def assign_item(self, target: ast.Subscript, value: ast.expr, op: str | None) -> None:
        raise self.fail(target, "cannot assign to an item here")

    def ir_attribute(self, base: SSAValue, attr: str, node: ast.Attribute) -> Any:
        raise self.fail(node, f"{base.type} has no attribute '{attr}'")

    def python_attribute(self, base: Any, attr: str, node: ast.Attribute) -> Any:
        try:
            return getattr(base, attr)
        except AttributeError as e:
            raise self.fail(node, str(e)) from None

    def with_(self, node: ast.With) -> None:
        raise self.fail(node, "`with` is not supported here")

    def return_(self, node: ast.Return) -> None:
        raise self.fail(node, "`return` is not supported here")


__all__ = ["Cell", "MISSING", "FrontendError", "FunctionBuilder", "assigned_names", "carryable"]
