"""A SIMT kernel's module from its Python function: parameters from annotations, the launch
contract from the decorator, `requires` read as Python comparisons over parameter names."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt import (
    KernelOp,
    LaunchContractAttr,
    ReturnOp,
    SizeExprAttr,
    SizeRelationAttr,
)
from ferrox.frontend.common.errors import UserError
from ferrox.frontend.common.source import FunctionSource
from ferrox.frontend.common.types import Constexpr, dtype_of
from ferrox.frontend.simt.builder import ModuleState, SimtBuilder, param_type

_RELATIONS = {ast.GtE: ">=", ast.LtE: "<=", ast.Eq: "==", ast.Gt: ">", ast.Lt: "<"}
_EXPR_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}


@dataclass(frozen=True)
class KernelOptions:
    """The decorator's launch contract: `block` (an int or a tuple of 1 to 3), `domain`
    (default: the block's rank), `requires` (Python comparisons as strings), `shared_bytes`,
    `min_cc` (e.g. 80), and `unsafe` (the whole kernel is an unsafe region; with `contract=False`
    it has no contract and launches only unsafely)."""

    block: tuple[int, ...] | None = None
    domain: int | None = None
    requires: tuple[str, ...] = ()
    shared_bytes: int = 0
    min_cc: int = 0
    unsafe: bool = False
    contract: bool = True


@dataclass
class Parameters:
    """A kernel's parameters: those of the IR (name, type) and the compile-time ones."""

    runtime: list[tuple[str, Attribute]] = field(default_factory=list)
    constexpr: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    defaults: dict[str, Any] = field(default_factory=dict)


def parameters(source: FunctionSource) -> Parameters:
    """Read the signature: every parameter annotated, `Constexpr` ones compile-time."""
    tree = source.tree
    probe = SimtBuilder(source, Block(), ModuleState())
    args = tree.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise probe.fail(tree, "a kernel takes plain positional parameters")
    found = Parameters()
    first_default = len(args.args) - len(args.defaults)
    annotations = [
        probe.annotation(arg.annotation) if arg.annotation is not None else None
        for arg in args.args
    ]
    runtime = [a.arg for a, ann in zip(args.args, annotations) if ann is not Constexpr]
    positions = {name: i for i, name in enumerate(runtime)}
    for i, arg in enumerate(args.args):
        if arg.annotation is None:
            raise probe.fail(
                arg,
                f"parameter `{arg.arg}` needs an annotation (Slice[f32], DisjointSlice[f32], f32, "
                f"Constexpr, ...)",
            )
        try:
            t = param_type(annotations[i], positions)
        except UserError as e:
            raise probe.fail(arg.annotation, str(e)) from None
        found.order.append(arg.arg)
        if t is None:
            found.constexpr.append(arg.arg)
            if i >= first_default:
                found.defaults[arg.arg] = source.evaluate(args.defaults[i - first_default])
        else:
            if i >= first_default:
                raise probe.fail(arg, f"only Constexpr parameters take defaults (`{arg.arg}`)")
            found.runtime.append((arg.arg, t))
    return found


def build_kernel(
    source: FunctionSource, options: KernelOptions, constants: Mapping[str, Any]
) -> ModuleOp:
    """The module holding the kernel (named after the function) and the device functions it
    calls, every op located at its Python line. Raises `FrontendError`."""
    params = parameters(source)
    tree = source.tree
    module_state = ModuleState()
    probe = SimtBuilder(source, Block(), module_state)
    contract = _contract(probe, source, options, params, constants)
    kernel = KernelOp(source.name, [t for _, t in params.runtime], contract, options.unsafe)
    kernel.location = source.loc(tree)
    builder = SimtBuilder(source, kernel.body.block, module_state)
    builder.params = kernel.body.block.args
    nodes = {a.arg: a for a in tree.args.args}
    for (name, _), arg in zip(params.runtime, kernel.body.block.args):
        builder.bind_arg(name, arg)
        arg.location = source.loc(nodes[name])  # the parameter's own line and column
    for name in params.constexpr:
        builder.scopes[-1][name] = constants[name]
    body = list(tree.body)
    if body and isinstance(body[-1], ast.Return) and body[-1].value is None:
        body.pop()
    builder.body(body)
    builder.here(tree)
    builder.emit.emit(ReturnOp())
    module = ModuleOp([*module_state.order, kernel])
    module.location = source.loc(tree)
    return module


def _contract(
    probe: SimtBuilder,
    source: FunctionSource,
    options: KernelOptions,
    params: Parameters,
    constants: Mapping[str, Any],
) -> LaunchContractAttr | None:
    if not options.contract:
        return None
    if options.block is None:
        raise probe.fail(
            source.tree, "a kernel's contract needs its block: @simt.kernel(block=256)"
        )
    block = options.block
    domain = options.domain or len(block)
    positions = {name: i for i, (name, _) in enumerate(params.runtime)}
    types = dict(params.runtime)
    relations = [_relation(probe, text, positions, types, constants) for text in options.requires]
    try:
        return LaunchContractAttr(domain, block, options.shared_bytes, options.min_cc, relations)
    except VerifyException as e:
        raise probe.fail(source.tree, " ".join(str(e).split())) from None


def _relation(
    probe: SimtBuilder,
    text: str,
    positions: Mapping[str, int],
    types: Mapping[str, Attribute],
    constants: Mapping[str, Any],
) -> SizeRelationAttr:
    where = probe.source.tree

    def bad(why: str) -> Exception:
        return probe.fail(where, f"requires {text!r}: {why}")

    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise bad(f"not a Python comparison ({e.msg})") from None
    if (
        not isinstance(tree, ast.Compare)
        or len(tree.ops) != 1
        or type(tree.ops[0]) not in _RELATIONS
    ):
        raise bad("expected one comparison: >=, <=, ==, > or <")

    def size(node: ast.expr) -> SizeExprAttr:
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int)
            and not isinstance(node.value, bool)
        ):
            return SizeExprAttr.const(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _EXPR_OPS:
            return size(node.left).binary(_EXPR_OPS[type(node.op)], size(node.right))
        if isinstance(node, ast.Name):
            if node.id in constants:
                value = constants[node.id]
                if isinstance(value, int) and not isinstance(value, bool):
                    return SizeExprAttr.const(value)
                raise bad(f"`{node.id}` is the constant {value!r}, not an integer")
            if node.id not in positions:
                raise bad(f"`{node.id}` is not a parameter of the kernel")
            d = dtype_of(types[node.id])
            if d is None or not d.is_integer:
                raise bad(
                    f"`{node.id}` is {types[node.id]}; write len({node.id}) for a slice's length, "
                    f"or use an integer parameter"
                )
            return SizeExprAttr.arg(positions[node.id])
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "len"
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Name)
        ):
            name = node.args[0].id
            if name not in positions or dtype_of(types[name]) is not None:
                raise bad(f"len() takes a slice parameter, not `{name}`")
            return SizeExprAttr.len_of(positions[name])
        raise bad("a size is an integer, a scalar parameter, len(slice) or +, -, * of sizes")

    return SizeRelationAttr(
        size(tree.left), _RELATIONS[type(tree.ops[0])], size(tree.comparators[0])
    )


def specialisation(
    params: Parameters, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[list[Any], dict[str, Any]]:
    """Split a call's arguments: the run-time ones in order, and the compile-time constants
    (given by position or keyword, else their defaults)."""
    runtime: list[Any] = []
    constants: dict[str, Any] = {}
    if len(args) > len(params.order):
        raise TypeError(f"the kernel takes {len(params.order)} arguments, found {len(args)}")
    for name, value in zip(params.order, args):
        if name in params.constexpr:
            constants[name] = value
        else:
            runtime.append(value)
    for name, value in kwargs.items():
        if name not in params.constexpr:
            raise TypeError(
                f"`{name}` is not a Constexpr parameter of the kernel (run-time arguments go by "
                f"position)"
            )
        if name in constants:
            raise TypeError(f"Constexpr `{name}` given twice")
        constants[name] = value
    for name in params.constexpr:
        if name not in constants:
            if name not in params.defaults:
                raise TypeError(f"Constexpr `{name}` needs a value")
            constants[name] = params.defaults[name]
    if len(runtime) != len(params.runtime):
        names = ", ".join(n for n, _ in params.runtime)
        raise TypeError(
            f"the kernel takes {len(params.runtime)} run-time arguments ({names}), found "
            f"{len(runtime)}"
        )
    return runtime, constants
