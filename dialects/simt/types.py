"""SIMT types: slices, the thread-index witness and its index spaces, raw and shared memory.

An index space says how a witness maps threads to elements; a disjoint slice carries the space it
is indexed in, so the verifier can check that a witness and the slice it writes agree. Types print
their parameters by hand (xDSL's type formats only spell keywords), in MLIR's `!dialect.name<...>`
shape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

SPACE_KINDS = ("1d", "2d", "2d_runtime", "warp", "tile")


def verified_params(
    parser: AttrParser, start, build: Callable[[], ParametrizedAttribute]
) -> Sequence[Attribute]:
    """The parameters of the attribute `build()` makes (which runs its verifier), with a failure
    reported as a located parse error: a verifier failing mid-parse has no source position."""
    try:
        return build().parameters
    except VerifyException as e:
        parser.raise_error(str(e), start, parser.pos)


@irdl_attr_definition
class IndexSpaceAttr(ParametrizedAttribute):
    """How a witness maps a thread to an element: `1d`, `2d<stride>`, `2d_runtime`, `warp` or
    `tile<[T0, ...], chunk, argN>` (`tile<[T0, ...], chunk, argN, order [1, 0]>` with a grid
    order, `..., reverse [1]>` with tile-grid axes walked last tile first).

    `stride` is the static row stride of `2d` and 0 for every other kind. The `tile` kind (the
    tile track's lowered outputs, `dialects/simt/tile_support.py`) carries the tile shape, the
    chunk width, the position of the kernel parameter holding the tensor's first dimension and
    the grid order (CUDA grid axis i walks tile-grid axis `order[i]`; empty for the identity, so
    that equal spaces compare equal however they were written) and the grid reversal (the
    tile-grid axes whose block `b` takes tile `n - 1 - b`, increasing; empty for none); those
    fields are empty (0) for every other kind.
    """

    name = "simt.space"

    kind: StringAttr
    stride: IntAttr
    tile_shape: ArrayAttr[IntAttr]
    chunk: IntAttr
    dims_arg: IntAttr
    grid_order: ArrayAttr[IntAttr]
    persistent: IntAttr
    """1 for a persistent tile space (`tile<..., persistent>`): a block's tile comes from the
    `simt.tile_schedule` loop its witness names, not from its block ids
    (docs/safety.md#simt-1-persistent); 0 for every other space."""
    grid_reverse: ArrayAttr[IntAttr]

    def __init__(
        self,
        kind: str | StringAttr,
        stride: int | IntAttr = 0,
        tile_shape: Sequence[int] = (),
        chunk: int = 0,
        dims_arg: int = 0,
        grid_order: Sequence[int] = (),
        persistent: bool | IntAttr = False,
        grid_reverse: Sequence[int] = (),
    ):
        if list(grid_order) == list(range(len(grid_order))):
            grid_order = ()  # the identity is the default, stored as nothing
        super().__init__(
            kind if isinstance(kind, StringAttr) else StringAttr(kind),
            stride if isinstance(stride, IntAttr) else IntAttr(stride),
            ArrayAttr(IntAttr(d) for d in tile_shape),
            IntAttr(chunk),
            IntAttr(dims_arg),
            ArrayAttr(IntAttr(d) for d in grid_order),
            persistent if isinstance(persistent, IntAttr) else IntAttr(int(persistent)),
            ArrayAttr(IntAttr(d) for d in grid_reverse),
        )

    @staticmethod
    def one_d() -> IndexSpaceAttr:
        return IndexSpaceAttr("1d")

    @staticmethod
    def two_d(stride: int) -> IndexSpaceAttr:
        return IndexSpaceAttr("2d", stride)

    @staticmethod
    def two_d_runtime() -> IndexSpaceAttr:
        return IndexSpaceAttr("2d_runtime")

    @staticmethod
    def warp() -> IndexSpaceAttr:
        return IndexSpaceAttr("warp")

    @staticmethod
    def tile(
        shape: Sequence[int],
        chunk: int,
        dims_arg: int,
        grid_order: Sequence[int] = (),
        persistent: bool = False,
        grid_reverse: Sequence[int] = (),
    ) -> IndexSpaceAttr:
        return IndexSpaceAttr(
            "tile", 0, shape, chunk, dims_arg, grid_order, persistent, grid_reverse
        )

    @property
    def is_persistent(self) -> bool:
        """A `tile<..., persistent>` space (docs/safety.md#simt-1-persistent)."""
        return self.persistent.data == 1

    def get_tile_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.tile_shape.data)

    def get_grid_order(self) -> tuple[int, ...]:
        """CUDA grid axis i walks tile-grid axis `order[i]` (the identity when none is stored)."""
        stored = tuple(d.data for d in self.grid_order.data)
        return stored or tuple(range(len(self.tile_shape.data)))

    def block_axis(self, d: int) -> int:
        """The CUDA grid axis (0, 1, 2: x, y, z) whose block id is tile coordinate `d`."""
        return self.get_grid_order().index(d)

    def get_grid_reverse(self) -> tuple[int, ...]:
        """The tile-grid axes walked last tile first: block `b` takes tile `n - 1 - b`."""
        return tuple(d.data for d in self.grid_reverse.data)

    @property
    def required_domain(self) -> int:
        """The launch-contract domain this space needs: 2 for the 2-D spaces, the tile's rank for
        `tile` (one grid axis per tile dimension), else 1."""
        if self.kind.data == "tile":
            return 1 if self.is_persistent else len(self.tile_shape.data)
        return 2 if self.kind.data in ("2d", "2d_runtime") else 1

    def verify(self) -> None:
        if self.kind.data not in SPACE_KINDS:
            raise VerifyException(
                f"unknown index space '{self.kind.data}', expected one of {', '.join(SPACE_KINDS)}"
            )
        if self.kind.data == "2d" and self.stride.data <= 0:
            raise VerifyException(f"2d index space needs a positive stride, got {self.stride.data}")
        if self.kind.data != "2d" and self.stride.data != 0:
            raise VerifyException(f"index space {self.kind.data} takes no stride")
        if self.kind.data == "tile":
            from ferrox.dialects.simt.tile_support import tile_space_problem

            order = tuple(d.data for d in self.grid_order.data)
            reverse = self.get_grid_reverse()
            problem = tile_space_problem(
                self.get_tile_shape(),
                self.chunk.data,
                self.dims_arg.data,
                order or None,
                self.is_persistent,
                reverse or None,
            )
            if problem is not None:
                raise VerifyException(problem)
        elif (
            self.tile_shape.data
            or self.chunk.data
            or self.dims_arg.data
            or self.grid_order.data
            or self.persistent.data
            or self.grid_reverse.data
        ):
            raise VerifyException(f"index space {self.kind.data} takes no tile shape")

    def __str__(self) -> str:
        if self.kind.data == "2d":
            return f"2d<{self.stride.data}>"
        if self.kind.data == "tile":
            shape = ", ".join(str(d) for d in self.get_tile_shape())
            order = ""
            if self.grid_order.data:
                order = ", order [" + ", ".join(str(d.data) for d in self.grid_order.data) + "]"
            if self.grid_reverse.data:
                order += ", reverse [" + ", ".join(str(d) for d in self.get_grid_reverse()) + "]"
            if self.is_persistent:
                order += ", persistent"
            return f"tile<[{shape}], {self.chunk.data}, arg{self.dims_arg.data}{order}>"
        return self.kind.data

    @classmethod
    def parse_space(cls, parser: AttrParser) -> IndexSpaceAttr:
        """`1d` | `2d` `<` int `>` | `2d_runtime` | `warp` | `tile<[T0, ...], chunk, argN>` (the
        lexer splits `1d` into `1`, `d`)."""
        if parser.parse_optional_keyword("warp") is not None:
            return cls.warp()
        if parser.parse_optional_keyword("tile") is not None:
            from ferrox.dialects.simt.tile_support import parse_tile_space

            return parse_tile_space(parser)
        rank = parser.parse_integer(
            allow_boolean=False, allow_negative=False, context_msg=" (index space)"
        )
        suffix = parser.parse_identifier(" (index space: 1d, 2d<stride>, 2d_runtime or warp)")
        if rank == 1 and suffix == "d":
            return cls.one_d()
        if rank == 2 and suffix == "d_runtime":
            return cls.two_d_runtime()
        if rank == 2 and suffix == "d":
            start = parser.pos
            with parser.in_angle_brackets():
                stride = parser.parse_integer(allow_boolean=False, context_msg=" (row stride)")
            if stride <= 0:
                parser.raise_error(
                    f"2d index space needs a positive stride, got {stride}", start, parser.pos
                )
            return cls.two_d(stride)
        parser.raise_error(
            f"unknown index space '{rank}{suffix}', expected 1d, 2d<stride>, 2d_runtime or warp"
        )

    def print_space(self, printer: Printer) -> None:
        printer.print_string(str(self))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            space = cls.parse_space(parser)
        return space.parameters

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self.print_space(printer)


class _ElementType(ParametrizedAttribute, TypeAttribute):
    """A type with one element-type parameter, printed `<T>`."""

    element_type: Attribute

    def get_element_type(self) -> Attribute:
        return self.element_type

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)


@irdl_attr_definition
class SliceType(_ElementType):
    """`!simt.slice<T>`: a shared, read-only view of global memory; at the ABI a (pointer,
    length)."""

    name = "simt.slice"

    def __init__(self, element_type: Attribute):
        super().__init__(element_type)


@irdl_attr_definition
class AtomicSliceType(_ElementType):
    """`!simt.atomic_slice<T>`: global memory that every thread may update, but only atomically.

    At the ABI a (pointer, length); an out-of-range atomic traps.
    """

    name = "simt.atomic_slice"

    def __init__(self, element_type: Attribute):
        super().__init__(element_type)


@irdl_attr_definition
class PtrType(_ElementType):
    """`!simt.ptr<T>`: a raw global pointer; dereferenced only inside `unsafe`."""

    name = "simt.ptr"

    def __init__(self, element_type: Attribute):
        super().__init__(element_type)


@irdl_attr_definition
class DisjointSliceType(ParametrizedAttribute, TypeAttribute):
    """`!simt.disjoint_slice<T, space>`: an output every thread writes at its own element only.

    At the ABI a (pointer, length). It is written only through `simt.get_mut` with a witness of the
    same index space; it is never read as a shared slice.
    """

    name = "simt.disjoint_slice"

    element_type: Attribute
    space: IndexSpaceAttr

    def __init__(self, element_type: Attribute, space: IndexSpaceAttr):
        super().__init__(element_type, space)

    def get_element_type(self) -> Attribute:
        return self.element_type

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            element = parser.parse_type()
            parser.parse_punctuation(",")
            space = IndexSpaceAttr.parse_space(parser)
        return (element, space)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)
            printer.print_string(", ")
            self.space.print_space(printer)


@irdl_attr_definition
class ThreadIndexType(ParametrizedAttribute, TypeAttribute):
    """`!simt.thread_index<space>`: the witness that this thread owns one element of a space.

    Only the trusted index ops make one; it is linear (used by at most one `simt.get_mut`).
    """

    name = "simt.thread_index"

    space: IndexSpaceAttr

    def __init__(self, space: IndexSpaceAttr):
        super().__init__(space)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (IndexSpaceAttr.parse_space(parser),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            self.space.print_space(printer)


@irdl_attr_definition
class SharedArrayType(ParametrizedAttribute, TypeAttribute):
    """`!simt.shared<T, [d0, d1, ...]>`: a static array in a block's shared memory (row-major)."""

    name = "simt.shared"

    element_type: Attribute
    shape: ArrayAttr[IntAttr]

    MAX_RANK: ClassVar[int] = 3

    def __init__(self, element_type: Attribute, shape: Sequence[int] | ArrayAttr[IntAttr]):
        if not isinstance(shape, ArrayAttr):
            shape = ArrayAttr(IntAttr(d) for d in shape)
        super().__init__(element_type, shape)

    def get_element_type(self) -> Attribute:
        return self.element_type

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.get_shape():
            n *= d
        return n

    def verify(self) -> None:
        shape = self.get_shape()
        if not 1 <= len(shape) <= self.MAX_RANK:
            raise VerifyException(
                f"shared array rank must be 1 to {self.MAX_RANK}, got {len(shape)}"
            )
        if any(d <= 0 for d in shape):
            raise VerifyException(f"shared array dimensions must be positive, got {list(shape)}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            element = parser.parse_type()
            parser.parse_punctuation(",")
            dims = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
            )
        return verified_params(parser, start, lambda: cls(element, dims))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)
            printer.print_string(", [")
            printer.print_list(self.get_shape(), lambda d: printer.print_string(str(d)))
            printer.print_string("]")


SLICE_TYPES = (SliceType, DisjointSliceType, AtomicSliceType)
