"""`tile.kernel` and `tile.return`: the unit that runs once per tile block.

A kernel's parameters are its signature: exclusive output partitions, shared input tensors and
scalars. The first partition fixes the launch grid; every partition is indexed by the block id.
An optional grid order (`grid_order [1, 0, 2]`) says which tile-grid axis each CUDA grid axis
walks: CUDA axis i (x, y, z) walks tile-grid axis `order[i]`. It changes only the order blocks
are launched in (which blocks share the L2 cache), never which tile a block owns. An optional
grid reversal (`grid_reverse [1]`) walks the listed tile-grid axes last tile first: the block
whose id along the CUDA axis walking axis d is b takes tile `n_d - 1 - b` (n_d the tile count,
the ragged last tile included), so block 0 starts with the last tile.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    IndexType,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.tile_support import (
    grid_order_problem,
    grid_reverse_problem,
    parse_axes,
)
from ferrox.dialects.tile.types import PartitionType, TileTensorType


def _parameter(parser: Parser) -> Parser.Argument:
    """`%name: type`, then the `loc(...)` a printer with debug info writes after it."""
    arg = parser.parse_argument()
    arg.location = parser.parse_optional_location()
    return arg


def is_kernel_scalar(t: Attribute) -> bool:
    return isinstance(t, AnyFloat | IntegerType | IndexType)


@irdl_op_definition
class KernelOp(IRDLOperation):
    """`tile.kernel @name(%out: !tile.partition<..>, %x: !tile.tensor<..>, %a: f32)
    grid_order [1, 0] grid_reverse [1] {...}` (the grid order only where it is not the identity,
    the reversal only where it names an axis)."""

    name = "tile.kernel"

    sym_name = prop_def(SymbolNameConstraint())
    grid_order = opt_prop_def(DenseArrayBase)
    grid_reverse = opt_prop_def(DenseArrayBase)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(self, name: str, arg_types: list[Attribute], body: Region | None = None):
        if body is None:
            body = Region(Block(arg_types=arg_types))
        super().__init__(properties={"sym_name": StringAttr(name)}, regions=[body])

    @property
    def args(self) -> tuple[BlockArgument, ...]:
        return tuple(self.body.block.args)

    @property
    def partitions(self) -> list[BlockArgument]:
        """The exclusive outputs, in parameter order; the first fixes the grid."""
        return [a for a in self.args if isinstance(a.type, PartitionType)]

    @property
    def grid_rank(self) -> int:
        parts = self.partitions
        return parts[0].type.rank if parts else 0  # type: ignore[attr-defined]

    def get_grid_order(self) -> tuple[int, ...]:
        """CUDA grid axis i walks tile-grid axis `order[i]` (the identity unless one is set)."""
        if self.grid_order is None:
            return tuple(range(self.grid_rank))
        return tuple(int(v) for v in self.grid_order.get_values())

    def set_grid_order(self, order: Sequence[int]) -> None:
        """Set the order (the identity is stored as none, so it prints as none)."""
        if list(order) == list(range(len(order))):
            self.properties.pop("grid_order", None)
        else:
            self.properties["grid_order"] = DenseArrayBase.from_list(i64, list(order))

    def get_grid_reverse(self) -> tuple[int, ...]:
        """The tile-grid axes walked last tile first (none unless a reversal is set)."""
        if self.grid_reverse is None:
            return ()
        return tuple(int(v) for v in self.grid_reverse.get_values())

    def set_grid_reverse(self, axes: Sequence[int]) -> None:
        """Set the reversal (none is stored as none, so it prints as none)."""
        if not axes:
            self.properties.pop("grid_reverse", None)
        else:
            self.properties["grid_reverse"] = DenseArrayBase.from_list(i64, list(axes))

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        name = parser.parse_symbol_name()
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: _parameter(parser))
        order = reverse = None
        if parser.parse_optional_keyword("grid_order") is not None:
            order = parse_axes(parser)
        if parser.parse_optional_keyword("grid_reverse") is not None:
            reverse = parse_axes(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword(_RESERVED)
        body = parser.parse_region(args)
        op = cls(name.data, [a.type for a in args], body)
        if order is not None:
            op.set_grid_order(order)
        if reverse is not None:
            op.set_grid_reverse(reverse)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        printer.print_list(self.body.block.args, printer.print_block_argument)
        printer.print_string(")")
        if self.grid_order is not None:
            order = ", ".join(str(int(v)) for v in self.grid_order.get_values())
            printer.print_string(f" grid_order [{order}]")
        if self.grid_reverse is not None:
            axes = ", ".join(str(d) for d in self.get_grid_reverse())
            printer.print_string(f" grid_reverse [{axes}]")
        printer.print_op_attributes(
            self.attributes, reserved_attr_names=_RESERVED, print_keyword=True
        )
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        for i, arg in enumerate(self.args):
            t = arg.type
            if not isinstance(t, PartitionType | TileTensorType) and not is_kernel_scalar(t):
                raise VerifyException(
                    f"kernel parameter {i} has type {t}; a tile kernel takes output partitions "
                    "(!tile.partition), input tensors (!tile.tensor) and scalars"
                )
        parts = self.partitions
        if not parts:
            raise VerifyException(
                f"tile kernel @{self.sym_name.data} has no output partition; "
                "the first !tile.partition parameter fixes the launch grid"
            )
        first = parts[0].type
        assert isinstance(first, PartitionType)
        for p in parts[1:]:
            assert isinstance(p.type, PartitionType)
            if p.type.rank != first.rank:
                raise VerifyException(
                    f"output partitions must share the grid's rank: parameter {p.index} is rank "
                    f"{p.type.rank}, the first output partition is rank {first.rank}"
                )
        if self.grid_order is not None:
            order = tuple(int(v) for v in self.grid_order.get_values())
            what = f"the grid order of @{self.sym_name.data}"
            if (problem := grid_order_problem(order, first.rank, what)) is not None:
                raise VerifyException(problem)
        if self.grid_reverse is not None:
            what = f"the grid reversal of @{self.sym_name.data}"
            problem = grid_reverse_problem(self.get_grid_reverse(), first.rank, what)
            if problem is not None:
                raise VerifyException(problem)
        last = self.body.block.last_op
        if not isinstance(last, ReturnOp):
            raise VerifyException("tile.kernel body must end with tile.return")


_RESERVED = ("sym_name", "grid_order", "grid_reverse")


def enclosing_kernel(op: Operation) -> KernelOp | None:
    """The tile kernel an op is nested in, at any depth (through scf regions)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp):
        parent = parent.parent_op()
    return parent


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`tile.return`: ends the kernel; a tile kernel returns nothing (it writes its partitions)."""

    name = "tile.return"

    traits = traits_def(IsTerminator(), HasParent(KernelOp))
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()
