"""Frontend IR as text with every op's Python location.

`simt.kernel`, `simt.func` and `tile.kernel` spell their parameters `%a: T` with no `loc(...)`
(their parser takes none), so their parameters' locations are left out; every op and every
other block argument keeps its `loc("file.py":line:col)`, and `ferrox-opt` parses the text back.
xDSL prints an op's location after its type even where a custom format (`scf.while`) prints the
type mid-op; here it comes once, at the op's end, where the parser reads it.
"""

from __future__ import annotations

import io

from xdsl.ir import BlockArgument, Operation
from xdsl.printer import Printer

_NO_PARAMETER_LOCS = ("simt.kernel", "simt.func", "tile.kernel")


class _LocatedPrinter(Printer):
    _generic = 0  # inside an op printed in the generic format, whose type ends with its loc

    def print_op_with_default_format(self, op: Operation) -> None:
        self._generic += 1
        try:
            super().print_op_with_default_format(op)
        finally:
            self._generic -= 1

    def print_operation_type(self, op: Operation) -> None:
        if self._generic:
            super().print_operation_type(op)
        else:  # a custom format (scf.while) prints the type mid-op: its loc comes at the end
            self.print_function_type(op.operand_types, op.result_types)

    def print_block_argument(self, arg: BlockArgument, print_type: bool = True) -> None:
        owner = arg.block.parent_op()
        unlocated = (
            owner is not None
            and owner.name in _NO_PARAMETER_LOCS
            and arg.block is owner.regions[0].blocks.first
        )
        if self.print_debuginfo and unlocated:
            self.print_debuginfo = False
            try:
                super().print_block_argument(arg, print_type)
            finally:
                self.print_debuginfo = True
            return
        super().print_block_argument(arg, print_type)


def print_located(op: Operation) -> str:
    """The op's text with locations (`ferrox-opt` reads it back)."""
    out = io.StringIO()
    _LocatedPrinter(stream=out, print_debuginfo=True).print_op(op)
    return out.getvalue() + "\n"
