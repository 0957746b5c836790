"""Host types: owned tensors, their partitions, streams and prepared launches.

A tensor or partition value is *owned*: `verify-ownership` tracks its moves. A stream or a prepared
launch is a plain copyable handle. Dimensions are written `[1024, ?]`; `?` (stored as
`DYNAMIC_INDEX`, as in xDSL's builtin shaped types) is resolved at run time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    IntAttr,
    IntegerType,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

Dims = ArrayAttr[IntAttr]


def dims_attr(dims: Iterable[int | IntAttr]) -> Dims:
    return ArrayAttr([d if isinstance(d, IntAttr) else IntAttr(d) for d in dims])


def format_dims(dims: Sequence[int]) -> str:
    return "[" + ", ".join("?" if d == DYNAMIC_INDEX else str(d) for d in dims) + "]"


def _parse_dims(parser: AttrParser, allow_dynamic: bool = True) -> Dims:
    dims = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_shape_dimension(allow_dynamic)
    )
    return dims_attr(dims)


def _print_dims(printer: Printer, dims: Dims) -> None:
    printer.print_string(format_dims([d.data for d in dims.data]))


def _located(
    parser: AttrParser, start: int, cls: type[ParametrizedAttribute], params: tuple
) -> tuple:
    """Run the type's verifier while the parser still knows where the type was written."""
    try:
        cls.new(params).verify()
    except VerifyException as e:
        parser.raise_error(str(e), start, parser.pos)
    return params


def _verify_element_type(element_type: Attribute, what: str) -> None:
    if not isinstance(element_type, AnyFloat | IntegerType):
        raise VerifyException(
            f"{what} element type must be an integer or float type, got {element_type}"
        )


def _verify_dims(dims: Dims, what: str) -> None:
    if not dims.data:
        raise VerifyException(f"{what} must have at least one dimension")
    for d in dims.data:
        if (d.data < 0 and d.data != DYNAMIC_INDEX) or d.data >= 2**63:
            raise VerifyException(f"{what} dimensions must be non-negative or '?', got {d.data}")


@irdl_attr_definition
class TensorType(ParametrizedAttribute, TypeAttribute):
    """`!host.tensor<f32, [1024, ?]>`: an owned, immutable array value living on the device.

    Every launch that writes a tensor consumes it and gives back a new value, so a value's
    contents never change once defined and the runtime may reuse its buffer.
    """

    name = "host.tensor"

    element_type: Attribute
    shape: Dims

    def __init__(self, element_type: Attribute, shape: Iterable[int | IntAttr]):
        super().__init__(element_type, dims_attr(shape))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[Attribute, Dims]:
        start = parser.pos
        with parser.in_angle_brackets():
            element_type = parser.parse_type()
            parser.parse_punctuation(",")
            shape = _parse_dims(parser)
        return _located(parser, start, cls, (element_type, shape))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)
            printer.print_string(", ")
            _print_dims(printer, self.shape)

    def verify(self) -> None:
        _verify_element_type(self.element_type, "tensor")
        _verify_dims(self.shape, "tensor")

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    def dynamic_count(self) -> int:
        """How many `?` dimensions: the number of size operands a creation op takes."""
        return sum(1 for d in self.get_shape() if d == DYNAMIC_INDEX)


@irdl_attr_definition
class PartitionType(ParametrizedAttribute, TypeAttribute):
    """`!host.partition<f32, [1024], [128]>`: a tensor cut into tiles, each owned by one tile block.

    The tile shape is static and made of powers of two (docs/safety.md#host-4); the launch grid
    is the ceil-division of the tensor shape by the tile shape, resolved at launch where a
    dimension is `?`.
    """

    name = "host.partition"

    element_type: Attribute
    shape: Dims
    tile: Dims

    def __init__(
        self,
        element_type: Attribute,
        shape: Iterable[int | IntAttr],
        tile: Iterable[int | IntAttr],
    ):
        super().__init__(element_type, dims_attr(shape), dims_attr(tile))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[Attribute, Dims, Dims]:
        start = parser.pos
        with parser.in_angle_brackets():
            element_type = parser.parse_type()
            parser.parse_punctuation(",")
            shape = _parse_dims(parser)
            parser.parse_punctuation(",")
            tile = _parse_dims(parser, allow_dynamic=False)
        return _located(parser, start, cls, (element_type, shape, tile))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)
            printer.print_string(", ")
            _print_dims(printer, self.shape)
            printer.print_string(", ")
            _print_dims(printer, self.tile)

    def verify(self) -> None:
        _verify_element_type(self.element_type, "partition")
        _verify_dims(self.shape, "partitioned tensor")
        tile = self.get_tile()
        if len(tile) != len(self.shape.data):
            raise VerifyException(
                f"tile shape {format_dims(tile)} must have the rank of the tensor shape "
                f"{format_dims(self.get_shape())}"
            )
        for t in tile:
            if t <= 0 or t & (t - 1):
                raise VerifyException(
                    f"tile dimensions must be static powers of two, got {t} in {format_dims(tile)}"
                )

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    def get_tile(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.tile.data)

    def grid(self) -> tuple[int | None, ...]:
        """Tiles per dimension, `None` where the tensor dimension is only known at launch."""
        return tuple(
            None if s == DYNAMIC_INDEX else -(-s // t)
            for s, t in zip(self.get_shape(), self.get_tile())
        )

    def tensor_type(self) -> TensorType:
        return TensorType(self.element_type, self.shape.data)


@irdl_attr_definition
class StreamType(ParametrizedAttribute, TypeAttribute):
    """`!host.stream`: an ordered queue of launches, done only after `host.sync_on`."""

    name = "host.stream"


@irdl_attr_definition
class PreparedType(ParametrizedAttribute, TypeAttribute):
    """`!host.prepared<@kernel>`: proof that a launch configuration of `@kernel` was checked.

    Only `host.prepare` makes one (checked by `verify-ownership`); a safe `host.launch` needs it.
    """

    name = "host.prepared"

    kernel: SymbolRefAttr

    def __init__(self, kernel: str | SymbolRefAttr):
        super().__init__(SymbolRefAttr(kernel) if isinstance(kernel, str) else kernel)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[SymbolRefAttr]:
        start = parser.pos
        with parser.in_angle_brackets():
            kernel = parser.parse_attribute()
        if not isinstance(kernel, SymbolRefAttr):
            parser.raise_error(
                f"expected a kernel symbol such as @vecadd, got {kernel}", start, parser.pos
            )
        return (kernel,)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.kernel)


OwnedType = TensorType | PartitionType
"""The types `verify-ownership` tracks: values of these are moved, never copied."""
