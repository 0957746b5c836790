"""The tile track's types: register tiles, exclusive output partitions, shared input tensors.

Each type checks its own shape rules. Parsing reports a bad shape at the type's position in the
text (a located diagnostic); building one from Python raises `VerifyException`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BFloat16Type,
    ContainerType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntAttr,
    IntegerType,
    ShapedType,
    Signedness,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float64Type)
INT_WIDTHS = (1, 8, 16, 32, 64)
MEMORY_INT_WIDTHS = (8, 16, 32, 64)


def is_float(t: Attribute) -> bool:
    return isinstance(t, FLOAT_TYPES)


def is_int(t: Attribute, widths: Sequence[int] = INT_WIDTHS) -> bool:
    return (
        isinstance(t, IntegerType)
        and t.signedness.data == Signedness.SIGNLESS
        and t.width.data in widths
    )


def is_bool(t: Attribute) -> bool:
    return is_int(t, (1,))


def is_tile_element(t: Attribute) -> bool:
    """Tiles hold floats, signless integers and i1 (the result of a compare)."""
    return is_float(t) or is_int(t)


def is_memory_element(t: Attribute) -> bool:
    """Tensors in global memory hold floats and byte-sized signless integers (no i1)."""
    return is_float(t) or is_int(t, MEMORY_INT_WIDTHS)


def is_power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def shape_str(shape: Iterable[int]) -> str:
    """`[16, ?]`: a shape as the textual syntax writes it."""
    return "[" + ", ".join("?" if d == DYNAMIC_INDEX else str(d) for d in shape) + "]"


def tile_shape_error(shape: Sequence[int]) -> str | None:
    if all(d != DYNAMIC_INDEX and is_power_of_two(d) for d in shape):
        return None
    return f"tile shape must be static powers of two, found {shape_str(shape)}"


def _element_error(
    kind: str, t: Attribute, ok: Callable[[Attribute], bool], allowed: str
) -> str | None:
    if ok(t):
        return None
    return f"{kind} element type must be {allowed}, found {t}"


_TILE_ELEMENTS = "a float (f16, bf16, f32, f64) or a signless integer (i1, i8, i16, i32, i64)"
_MEMORY_ELEMENTS = "a float (f16, bf16, f32, f64) or a signless integer (i8, i16, i32, i64)"


def _parse_shaped(
    parser: AttrParser, kind: str, check: Callable[[Attribute, list[int]], str | None]
):
    """`<elem, [d0, d1, ...]>` with `?` for a dynamic dimension; `check` gives a located error."""
    start = parser.pos
    parser.parse_punctuation("<")
    element = parser.parse_type()
    parser.parse_punctuation(",")
    dims = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_shape_dimension)
    parser.parse_punctuation(">")
    problem = check(element, dims)
    if problem is not None:
        parser.raise_error(problem, start, parser.pos)
    return [element, ArrayAttr(IntAttr(d) for d in dims)]


class _ShapedTileType(ParametrizedAttribute, TypeAttribute, ShapedType, ContainerType[Attribute]):
    """Shared printing, accessors and checks of the three tile-track types."""

    element_type: Attribute
    shape: ArrayAttr[IntAttr]

    def __init__(self, element_type: Attribute, shape: Iterable[int | IntAttr]):
        dims = ArrayAttr(IntAttr(d) if isinstance(d, int) else d for d in shape)
        super().__init__(element_type, dims)

    @classmethod
    def problem(cls, element: Attribute, shape: Sequence[int]) -> str | None:
        raise NotImplementedError

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        return _parse_shaped(parser, cls.name, cls.problem)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.element_type)
        printer.print_string(f", {shape_str(self.get_shape())}>")

    def verify(self) -> None:
        problem = self.problem(self.element_type, self.get_shape())
        if problem is not None:
            raise VerifyException(problem)

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape)

    def get_num_dims(self) -> int:
        return len(self.shape.data)

    def get_element_type(self) -> Attribute:
        return self.element_type

    @property
    def rank(self) -> int:
        return len(self.shape.data)


@irdl_attr_definition
class TileType(_ShapedTileType):
    """`!tile.tile<f32, [16, 128]>`: an immutable register tile; rank 0 is a scalar tile."""

    name = "tile.tile"

    # Declared on each concrete type: dataclass equality only sees a class's own fields.
    element_type: Attribute
    shape: ArrayAttr[IntAttr]

    # Restated so that type checkers see the shared constructor, not one made from the fields.
    def __init__(self, element_type: Attribute, shape: Iterable[int | IntAttr]):
        super().__init__(element_type, shape)

    @classmethod
    def problem(cls, element: Attribute, shape: Sequence[int]) -> str | None:
        element_problem = _element_error("tile", element, is_tile_element, _TILE_ELEMENTS)
        return element_problem or tile_shape_error(shape)


@irdl_attr_definition
class PartitionType(_ShapedTileType):
    """`!tile.partition<f32, [128]>`: the kernel's exclusive output tile, shape given by the
    host."""

    name = "tile.partition"

    # Declared on each concrete type: dataclass equality only sees a class's own fields.
    element_type: Attribute
    shape: ArrayAttr[IntAttr]

    # Restated so that type checkers see the shared constructor, not one made from the fields.
    def __init__(self, element_type: Attribute, shape: Iterable[int | IntAttr]):
        super().__init__(element_type, shape)

    @classmethod
    def problem(cls, element: Attribute, shape: Sequence[int]) -> str | None:
        if not 1 <= len(shape) <= 3:
            return (
                "partition rank must be 1, 2 or 3 (one grid axis per dimension), "
                f"found {len(shape)}"
            )
        return _element_error("partition", element, is_memory_element, _MEMORY_ELEMENTS) or (
            tile_shape_error(shape)
        )


@irdl_attr_definition
class TileTensorType(_ShapedTileType):
    """`!tile.tensor<f32, [?, 4096]>`: a shared, read-only input tensor in global memory."""

    name = "tile.tensor"

    # Declared on each concrete type: dataclass equality only sees a class's own fields.
    element_type: Attribute
    shape: ArrayAttr[IntAttr]

    # Restated so that type checkers see the shared constructor, not one made from the fields.
    def __init__(self, element_type: Attribute, shape: Iterable[int | IntAttr]):
        super().__init__(element_type, shape)

    @classmethod
    def problem(cls, element: Attribute, shape: Sequence[int]) -> str | None:
        if len(shape) < 1:
            return "tensor rank must be at least 1"
        if any(d != DYNAMIC_INDEX and d < 1 for d in shape):
            return f"tensor dimensions must be positive or ?, found {shape_str(shape)}"
        return _element_error("tensor", element, is_memory_element, _MEMORY_ELEMENTS)
