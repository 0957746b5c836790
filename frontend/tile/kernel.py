"""A tile kernel's module from its Python function: parameters from annotations (which may use
the kernel's `Constexpr` parameters, so tile shapes are compile-time constants), the body from
`TileBuilder`, then the tile dialect's verifiers, whose diagnostics land at the Python lines."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block

from ferrox.dialects.tile import KernelOp, PartitionType, ReturnOp, TileTensorType
from ferrox.frontend.common.errors import UserError
from ferrox.frontend.common.source import FunctionSource
from ferrox.frontend.common.types import Constexpr
from ferrox.frontend.tile.builder import TileBuilder, param_type
from ferrox.verify import verify_module


@dataclass
class Parameters:
    """A tile kernel's parameters in order, which are compile-time, and their defaults."""

    order: list[str] = field(default_factory=list)
    constexpr: list[str] = field(default_factory=list)
    defaults: dict[str, Any] = field(default_factory=dict)

    @property
    def runtime(self) -> list[str]:
        return [n for n in self.order if n not in self.constexpr]


@dataclass(frozen=True)
class TileParam:
    """One run-time parameter as a launch sees it: `kind` is "partition" (an output, `outs` of a
    `host.tile_launch`), "tensor" or "scalar" (`ins`); `type` its IR type."""

    name: str
    kind: str
    type: Attribute


def evaluate(source: FunctionSource, node: ast.expr, constants: Mapping[str, Any]) -> Any:
    """An annotation evaluated in the function's namespace plus its compile-time constants."""
    expr = ast.Expression(body=node)
    ast.fix_missing_locations(expr)
    namespace = dict(getattr(source.fn, "__globals__", {}))
    namespace.update(source.closure)
    namespace.update(constants)
    return eval(compile(expr, source.file, "eval"), namespace)  # noqa: S307 - the user's own code


def parameters(source: FunctionSource) -> Parameters:
    """Which parameters are `Constexpr` (an annotation that names another parameter is read
    once the constants are known, so it is a run-time one)."""
    tree = source.tree
    probe = TileBuilder(source, Block())
    args = tree.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise probe.fail(tree, "a kernel takes plain positional parameters")
    names = {a.arg for a in args.args}
    found = Parameters()
    first_default = len(args.args) - len(args.defaults)
    for i, arg in enumerate(args.args):
        if arg.annotation is None:
            raise probe.fail(
                arg,
                f"parameter `{arg.arg}` needs an annotation (Partition[f32, (1024,)], "
                "Tensor[f32, (None,)], f32, Constexpr, ...)",
            )
        found.order.append(arg.arg)
        uses = {n.id for n in ast.walk(arg.annotation) if isinstance(n, ast.Name)}
        annotation = None if uses & names else _evaluate(probe, source, arg.annotation, {})
        if annotation is Constexpr:
            found.constexpr.append(arg.arg)
            if i >= first_default:
                found.defaults[arg.arg] = source.evaluate(args.defaults[i - first_default])
        elif i >= first_default:
            raise probe.fail(arg, f"only Constexpr parameters take defaults (`{arg.arg}`)")
    return found


def _evaluate(probe: TileBuilder, source: FunctionSource, node: ast.expr, constants) -> Any:
    try:
        return evaluate(source, node, constants)
    except Exception as e:
        raise probe.fail(node, f"cannot evaluate the annotation: {e}") from None


def signature(source: FunctionSource, constants: Mapping[str, Any]) -> list[TileParam]:
    """The run-time parameters' kinds and IR types for these constants."""
    probe = TileBuilder(source, Block())
    params = parameters(source)
    nodes = {a.arg: a for a in source.tree.args.args}
    out = []
    for name in params.runtime:
        node = nodes[name].annotation
        assert node is not None
        try:
            ty = param_type(_evaluate(probe, source, node, constants))
        except UserError as e:
            raise probe.fail(node, str(e)) from None
        assert ty is not None
        kind = (
            "partition"
            if isinstance(ty, PartitionType)
            else "tensor"
            if isinstance(ty, TileTensorType)
            else "scalar"
        )
        out.append(TileParam(name, kind, ty))
    return out


def build_kernel(source: FunctionSource, constants: Mapping[str, Any]) -> ModuleOp:
    """The module holding the tile kernel (named after the function), every op located at its
    Python line, verified. Raises `FrontendError`."""
    tree = source.tree
    params = parameters(source)
    sig = signature(source, constants)
    kernel = KernelOp(source.name, [p.type for p in sig])
    kernel.location = source.loc(tree)
    builder = TileBuilder(source, kernel.body.block)
    nodes = {a.arg: a for a in tree.args.args}
    for p, arg in zip(sig, kernel.body.block.args):
        builder.bind_arg(p.name, arg)
        arg.location = source.loc(nodes[p.name])
    for name in params.constexpr:
        builder.scopes[-1][name] = constants[name]
    body = list(tree.body)
    if body and isinstance(body[-1], ast.Return) and body[-1].value is None:
        body.pop()
    builder.body(body)
    builder.here(tree)
    builder.emit.emit(ReturnOp())
    if builder.grid_order is not None:
        kernel.set_grid_order(builder.grid_order)
        kernel.set_grid_reverse(builder.grid_reverse)
    module = ModuleOp([kernel])
    module.location = source.loc(tree)
    verify_module(module)
    return module


def specialisation(
    params: Parameters, name: str, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[list[Any], dict[str, Any]]:
    """Split a call's arguments: the run-time ones in order, and the compile-time constants
    (by position or keyword, else their defaults)."""
    if len(args) > len(params.order):
        raise TypeError(f"{name} takes {len(params.order)} arguments, found {len(args)}")
    runtime: list[Any] = []
    constants: dict[str, Any] = {}
    for pname, value in zip(params.order, args):
        if pname in params.constexpr:
            constants[pname] = value
        else:
            runtime.append(value)
    for pname, value in kwargs.items():
        if pname not in params.constexpr:
            raise TypeError(
                f"`{pname}` is not a Constexpr parameter of {name} (run-time arguments go by "
                "position)"
            )
        if pname in constants:
            raise TypeError(f"Constexpr `{pname}` of {name} given twice")
        constants[pname] = value
    for pname in params.constexpr:
        if pname not in constants:
            if pname not in params.defaults:
                raise TypeError(f"Constexpr `{pname}` of {name} needs a value")
            constants[pname] = params.defaults[pname]
    if len(runtime) != len(params.runtime):
        raise TypeError(
            f"{name} takes {len(params.runtime)} run-time arguments "
            f"({', '.join(params.runtime)}), found {len(runtime)}"
        )
    return runtime, constants


__all__ = ["Parameters", "TileParam", "build_kernel", "parameters", "signature", "specialisation"]
