"""Frontend IR as text with every op's Python location.

Every op and every block argument, a kernel's or function's parameters included, keeps its
`loc("file.py":line:col)`, and `ferrox-opt` parses the text back. xDSL prints an op's location
after its type even where a custom format (`scf.while`) prints the type mid-op; here it comes
once, at the op's end, where the parser reads it.
"""

from __future__ import annotations

import io

from xdsl.ir import Operation
from xdsl.printer import Printer


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


def print_located(op: Operation) -> str:
    """The op's text with locations (`ferrox-opt` reads it back)."""
    out = io.StringIO()
    _LocatedPrinter(stream=out, print_debuginfo=True).print_op(op)
    return out.getvalue() + "\n"
