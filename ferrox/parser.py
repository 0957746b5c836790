"""An xDSL parser that gives every op and block argument its `file:line:col`.

xDSL only records locations that the text spells as `loc(...)`; diagnostics need to point at the
source, so this parser fills in a `FileLineColLoc` from the token position wherever the text has
none. An explicit `loc(...)` still wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Span


class LocatedParser(Parser):
    def __init__(
        self, ctx: Context, input: str | bytes, name: str = "<unknown>", line_offset: int = 0
    ):
        super().__init__(ctx, input, name)
        self._line_offset = line_offset

    def _loc(self, span: Span) -> FileLineColLoc:
        where = span.get_location()
        return FileLineColLoc(
            StringAttr(where.file), IntAttr(where.line + self._line_offset), IntAttr(where.col)
        )

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # A type or attribute that fails its constraints while an op is being built: point
            # at the op instead of losing the location.
            lines = [line.strip() for line in str(e).splitlines() if line.strip()]
            self.raise_error(" ".join(lines) or "invalid operation", start)
        if isinstance(op.location, UnknownLoc):
            op.location = self._loc(start)
        return op

    def _register_ssa_definition(self, name: str, values: Sequence[SSAValue], span: Span) -> None:
        super()._register_ssa_definition(name, values, span)
        for value in values:
            if isinstance(value, BlockArgument) and isinstance(value.location, UnknownLoc):
                value.location = self._loc(span)


def parse_module(
    ctx: Context, text: str | bytes, name: str = "<stdin>", line_offset: int = 0
) -> ModuleOp:
    """Parse `text` into a module (implicit if the text has no top-level `builtin.module`)."""
    return LocatedParser(ctx, text, name, line_offset).parse_module()
