"""How a host launch binds its operands to a kernel's parameters.

The host dialect must not import the simt or tile dialects (each may be absent, and they must not
import each other in a cycle), so a kernel is found through the symbol table and read by duck
typing: its parameters are the types of its first region's entry block (or its `function_type`
inputs), classified by type name.

Binding rule (the same for every launch op): walk the kernel's parameters in order; an exclusive
output parameter takes the next `outs` operand, any other parameter the next `ins` operand.
`host.prepare` instead lists every parameter, in order, in `args`.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, SymbolRefAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.host.types import PartitionType, TensorType, format_dims


class Role(Enum):
    OUTPUT = "exclusive output"
    INPUT = "shared input"
    SCALAR = "scalar"


EXCLUSIVE_OUTPUTS: dict[str, type[TensorType] | type[PartitionType]] = {
    "simt.disjoint_slice": TensorType,
    "simt.atomic_slice": TensorType,
    "simt.ptr": TensorType,
    "tile.partition": PartitionType,
}
"""Parameter types a kernel may write through, and the host type that must be bound to them.

An atomic slice is updated by every thread and a raw pointer may be written in unsafe code, so
both take their tensor exclusively, like a disjoint slice."""

SHARED_INPUTS = {"simt.slice", "tile.tensor"}


def role_of(param: Attribute) -> Role | None:
    name = getattr(param, "name", "")
    if name in EXCLUSIVE_OUTPUTS:
        return Role.OUTPUT
    if name in SHARED_INPUTS:
        return Role.INPUT
    if isinstance(param, IntegerType | IndexType | AnyFloat):
        return Role.SCALAR
    return None


def element_type_of(param: Attribute) -> Attribute | None:
    """The element type of a slice/partition/tensor parameter, by attribute name or position."""
    found = getattr(param, "element_type", None)
    if isinstance(found, Attribute):
        return found
    for p in getattr(param, "parameters", ()):
        if isinstance(p, IntegerType | AnyFloat):
            return p
    return None


LAUNCHED_BY = {
    "simt.kernel": "host.launch or host.unsafe_launch",
    "tile.kernel": "host.tile_launch",
}


LOWERED_KERNEL_ATTR = "nvvm.kernel"
"""What `convert-simt-to-nvvm` leaves on a kernel it has turned into a `func.func`/`llvm.func`."""


LOWERED_TILE_ATTR = "tile.params"
"""What `convert-tile-to-simt` leaves on the SIMT kernel it makes of a tile kernel."""


def lookup_kernel(op: Operation, kernel: SymbolRefAttr) -> Operation | None:
    """The kernel `op` launches: SIMT kernels by the SIMT launches, tile kernels by tile_launch.

    None for a kernel already lowered past SIMT (a function marked `nvvm.kernel`): its parameters
    are the ABI's, not the ones the launch binds, and were checked before the lowering.
    """
    try:
        found = SymbolTable.lookup_symbol(op, kernel)
    except ValueError:
        found = None
    if found is None:
        raise VerifyException(f"'{kernel}' does not reference a kernel in this module")
    if LOWERED_KERNEL_ATTR in found.attributes and not found.name.endswith(".kernel"):
        return None
    if not found.name.endswith(".kernel"):
        raise VerifyException(f"{kernel} is a {found.name}, not a kernel")
    tile_op = op.name == "host.tile_launch"
    if tile_op and found.name == "simt.kernel" and LOWERED_TILE_ATTR in found.attributes:
        return None  # a tile kernel after convert-tile-to-simt: its parameters are the SIMT ABI's
    if found.name in LAUNCHED_BY and (found.name == "tile.kernel") != tile_op:
        raise VerifyException(
            f"{kernel} is a {found.name}; launch it with {LAUNCHED_BY[found.name]}"
        )
    return found


def kernel_params(kernel: Operation) -> Sequence[Attribute]:
    for region in kernel.regions:
        if region.blocks:
            return region.blocks[0].arg_types
    function_type = kernel.get_attr_or_prop("function_type")
    inputs = getattr(function_type, "inputs", None)
    if inputs is not None:
        return inputs.data
    raise VerifyException(f"'@{_sym(kernel)}' has no parameters to launch with")


def _sym(kernel: Operation) -> str:
    sym = kernel.get_attr_or_prop("sym_name")
    return getattr(sym, "data", "?")


def _describe(i: int, kernel: SymbolRefAttr, param: Attribute) -> str:
    return f"parameter #{i} of {kernel} ({param})"


def check_value(
    where: str, value: SSAValue, i: int, kernel: SymbolRefAttr, param: Attribute
) -> None:
    """`value` (named `where` in messages) may be bound to kernel parameter `i`."""
    role = role_of(param)
    got = value.type
    if role is None:
        raise VerifyException(f"{_describe(i, kernel, param)} has a type no host launch can bind")
    if role is Role.SCALAR:
        if got != param:
            raise VerifyException(
                f"{where} has type {got}, "
                f"but {_describe(i, kernel, param)} is a scalar of that type"
            )
        return
    expected_host: type[TensorType] | type[PartitionType] = TensorType
    if role is Role.OUTPUT:
        expected_host = EXCLUSIVE_OUTPUTS[param.name]
    if not isinstance(got, expected_host):
        raise VerifyException(
            f"{where} has type {got}, "
            f"but {_describe(i, kernel, param)} needs a !{expected_host.name}"
        )
    element = element_type_of(param)
    if element is not None and element != got.element_type:
        raise VerifyException(
            f"{where} has element type {got.element_type}, but {_describe(i, kernel, param)} "
            f"has element type {element}"
        )
    problem = _shape_problem(param, got)
    if problem:
        raise VerifyException(
            f"{where} has type {got}, but {_describe(i, kernel, param)} {problem}"
        )


def _shape_problem(param: Attribute, got: Attribute) -> str | None:
    """Tile parameters carry shapes: a partition's tile, a tensor's (possibly `?`) dimensions."""
    shape = getattr(param, "shape", None)
    data = getattr(shape, "data", None)
    if data is None:
        return None
    dims = tuple(getattr(d, "data", d) for d in data)
    if isinstance(got, PartitionType):
        if dims != got.get_tile():
            return f"expects tiles of {format_dims(dims)}, not {format_dims(got.get_tile())}"
        return None
    assert isinstance(got, TensorType)
    have = got.get_shape()
    if len(dims) != len(have) or any(a >= 0 and b >= 0 and a != b for a, b in zip(dims, have)):
        return f"expects a tensor of shape {format_dims(dims)}"
    return None


def bind_all(op: Operation, kernel: SymbolRefAttr, args: Sequence[SSAValue]) -> None:
    """`host.prepare`: every kernel parameter, in order, from `args`."""
    found = lookup_kernel(op, kernel)
    if found is None:
        return
    params = kernel_params(found)
    if len(args) != len(params):
        raise VerifyException(
            f"{kernel} takes {len(params)} arguments, but args(...) has {len(args)}"
        )
    for i, (value, param) in enumerate(zip(args, params)):
        check_value(f"argument #{i}", value, i, kernel, param)


def bind_ins_outs(
    op: Operation, kernel: SymbolRefAttr, ins: Sequence[SSAValue], outs: Sequence[SSAValue]
) -> None:
    """A launch: exclusive outputs from `outs`, every other parameter from `ins`, in order."""
    found = lookup_kernel(op, kernel)
    if found is None:
        return
    params = kernel_params(found)
    for i, param in enumerate(params):
        if role_of(param) is None:
            raise VerifyException(
                f"{_describe(i, kernel, param)} has a type no host launch can bind"
            )
    n_out = sum(1 for p in params if role_of(p) is Role.OUTPUT)
    n_in = len(params) - n_out
    if len(ins) != n_in or len(outs) != n_out:
        raise VerifyException(
            f"{kernel} takes {_count(n_in, 'input')} and {_count(n_out, 'exclusive output')}, "
            f"but this launch passes {_count(len(ins), 'input')} and {_count(len(outs), 'output')}"
        )
    pending = {Role.INPUT: iter(enumerate(ins)), Role.OUTPUT: iter(enumerate(outs))}
    for i, param in enumerate(params):
        is_out = role_of(param) is Role.OUTPUT
        k, value = next(pending[Role.OUTPUT if is_out else Role.INPUT])
        check_value(f"{'outs' if is_out else 'ins'} operand #{k}", value, i, kernel, param)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def is_scalar(t: Attribute) -> bool:
    return isinstance(t, IntegerType | IndexType | AnyFloat)


def has_contract(kernel: Operation) -> bool | None:
    """Whether a SIMT kernel declares a launch contract; `None` for kernels of other kinds."""
    if kernel.name != "simt.kernel":
        return None
    return kernel.get_attr_or_prop("contract") is not None
