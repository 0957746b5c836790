"""A ferrox kernel as a PyTorch custom operator (`torch.library`), usable under `torch.compile`.

    from ferrox import torch_op

    vecadd_op = torch_op.custom_op(
        "ferrox_examples::vecadd", vecadd, grid=lambda a, b, out: -(-out.numel() // 256)
    )
    c = vecadd_op(a, b)                      # eager: allocates `out`, checked launch, returns it
    f = torch.compile(lambda a, b: vecadd_op(a, b) * 2, fullgraph=True)

The operator's inputs are the kernel's parameters that are not exclusive outputs (slices and
tile tensors as `Tensor`, integer scalars as `int`, float scalars as `float`), in order; its
results are the kernel's exclusive outputs (disjoint and atomic slices, tile partitions), which
the operator allocates with
`outputs(*inputs)` (default: `torch.empty_like` of the first tensor input for each) and returns.
The same `outputs` function on fake tensors is the operator's fake (meta) implementation, so
`torch.compile` traces shapes without running anything; at run time the launch goes through
ferrox's launch checker like every direct launch (contract, `requires`, coverage, aliasing),
CUDA tensors on the GPU in place on torch's current stream, CPU tensors on the interpreter.

Nothing here imports torch until an operator is registered, so `schema_of` (the operator's
schema from the kernel's parameters) works where torch is not installed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType
from xdsl.ir import Attribute

from ferrox.dialects.host.kernels import Role, role_of


@dataclass(frozen=True)
class OpSignature:
    """The operator's view of a kernel: every runtime parameter with its role, and the schema."""

    names: tuple[str, ...]
    roles: tuple[Role, ...]
    schema: str

    @property
    def inputs(self) -> tuple[str, ...]:
        return tuple(n for n, r in zip(self.names, self.roles) if r is not Role.OUTPUT)

    @property
    def outputs(self) -> tuple[str, ...]:
        return tuple(n for n, r in zip(self.names, self.roles) if r is Role.OUTPUT)


def _schema_type(name: str, t: Attribute, role: Role | None) -> str:
    if role is Role.INPUT:
        return "Tensor"
    if isinstance(t, IntegerType | IndexType):
        return "int"
    if isinstance(t, AnyFloat):
        return "float"
    raise TypeError(f"parameter `{name}` ({t}) cannot be an operator argument")


_TILE_ROLES = {"partition": Role.OUTPUT, "tensor": Role.INPUT, "scalar": Role.SCALAR}


def _is_tile(kernel: Any) -> bool:
    return callable(getattr(kernel, "signature", None))


def _parameters(kernel: Any) -> list[tuple[str, Attribute, Role | None]]:
    """(name, IR type, role) of each run-time parameter of a SIMT or tile kernel."""
    params = kernel._params()
    if params.constexpr:
        raise TypeError(
            f"{kernel.name} has Constexpr parameters ({', '.join(params.constexpr)}); "
            "an operator is one specialisation: bind them first"
        )
    if _is_tile(kernel):
        return [(p.name, p.type, _TILE_ROLES.get(p.kind)) for p in kernel.signature()]
    return [(name, t, role_of(t)) for name, t in params.runtime]


def schema_of(kernel: Any) -> OpSignature:
    """The operator schema of a `@ferrox.simt.kernel` or `@ferrox.tile.kernel` without
    `Constexpr` parameters: `(Tensor a, Tensor b) -> Tensor`."""
    names, roles, args = [], [], []
    for name, t, role in _parameters(kernel):
        if role is None:
            raise TypeError(f"parameter `{name}` ({t}) cannot be an operator argument")
        names.append(name)
        roles.append(role)
        if role is not Role.OUTPUT:
            args.append(f"{_schema_type(name, t, role)} {name}")
    outs = sum(1 for r in roles if r is Role.OUTPUT)
    if outs == 0:
        raise TypeError(
            f"{kernel.name} writes no exclusive output: an operator returns its outputs"
        )
    returns = "Tensor" if outs == 1 else "(" + ", ".join(["Tensor"] * outs) + ")"
    return OpSignature(tuple(names), tuple(roles), f"({', '.join(args)}) -> {returns}")


class TorchOp:
    """A registered operator: call it like the `torch.ops` function it is (`op.op`)."""

    def __init__(self, qualname: str, op: Any, signature: OpSignature):
        self.qualname = qualname
        self.op = op
        self.signature = signature

    def __call__(self, *args: Any) -> Any:
        return self.op(*args)

    def __repr__(self) -> str:
        return f"<ferrox torch op {self.qualname}{self.signature.schema}>"


def custom_op(
    qualname: str,
    kernel: Any,
    *,
    grid: Callable[..., Any] | None = None,
    block: Any = None,
    outputs: Callable[..., Sequence[Any]] | None = None,
) -> TorchOp:
    """Register `kernel` as the operator `qualname` ("namespace::name").

    For a SIMT kernel, `grid(*args)` gives the launch grid from the kernel's arguments in
    parameter order (the allocated outputs included) and `block` defaults to the contract's
    block; a tile kernel takes neither (its grid is its output partition's tile grid).
    `outputs` allocates the outputs from the operator's inputs (it must work on fake tensors
    too)."""
    import torch

    signature = schema_of(kernel)
    tile = _is_tile(kernel)
    if tile and (grid is not None or block is not None):
        raise TypeError(f"{kernel.name} is a tile kernel: its grid is its output's tile grid")
    if not tile and grid is None:
        raise TypeError(f"{kernel.name} is a SIMT kernel: custom_op needs grid=")
    allocate = outputs or _like_first_tensor(signature)

    def arguments(inputs: Sequence[Any], outs: Sequence[Any]) -> list[Any]:
        ins, produced = iter(inputs), iter(outs)
        return [next(produced) if r is Role.OUTPUT else next(ins) for r in signature.roles]

    def allocated(inputs: Sequence[Any]) -> list[Any]:
        made = allocate(*inputs)
        made = [made] if isinstance(made, torch.Tensor) else list(made)
        if len(made) != len(signature.outputs):
            raise TypeError(
                f"outputs() of {qualname} gave {len(made)} tensor(s) for the kernel's "
                f"{len(signature.outputs)} output(s) ({', '.join(signature.outputs)})"
            )
        return made

    def impl(*given: Any) -> Any:
        inputs = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in given]
        outs = allocated(inputs)
        args = arguments(inputs, outs)
        device = "gpu" if any(isinstance(a, torch.Tensor) and a.is_cuda for a in args) else "cpu"
        if tile:
            kernel.on(device)(*args)
        else:
            assert grid is not None
            kernel.on(device)[grid(*args), block](*args)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def fake(*inputs: Any) -> Any:
        outs = allocated(inputs)
        return outs[0] if len(outs) == 1 else tuple(outs)

    op = torch.library.custom_op(qualname, impl, mutates_args=(), schema=signature.schema)
    op.register_fake(fake)
    return TorchOp(qualname, op, signature)


def _like_first_tensor(signature: OpSignature) -> Callable[..., list[Any]]:
    count = len(signature.outputs)
    first = next(
        (i for i, r in enumerate(r for r in signature.roles if r is not Role.OUTPUT)
         if r is Role.INPUT),
        None,
    )  # fmt: skip
    if first is None:
        raise TypeError("the kernel takes no tensor input: give custom_op an outputs= allocator")

    def allocate(*inputs: Any) -> list[Any]:
        import torch

        return [torch.empty_like(inputs[first]) for _ in range(count)]

    return allocate


__all__ = ["OpSignature", "TorchOp", "custom_op", "schema_of"]
