"""An xDSL parser that gives every op and block argument its `file:line:col`.

xDSL only records locations that the text spells as `loc(...)`; diagnostics need to point at the
source, so this parser fills in a `FileLineColLoc` from the token position wherever the text has
none. An explicit `loc(...)` still wins.
"""

from __future__ import annotations

import bisect
import math
import os
import re
import struct
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    ComplexType,
    ContainerType,
    FileLineColLoc,
    IndexType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    ShapedType,
    StringAttr,
    StructPackableType,
    TypeAttribute,
    UnknownLoc,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.parser import Parser
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from ferrox.diagnostics import Diagnostic, DiagnosticError, SourceLoc, location_of, make

_K = MLIRTokenKind
_TOKEN = re.compile(
    r"""(?>(?://[^\n]*\n?|[ \t\n\r\f\v]+)*)(?:
      ([A-Za-z_][A-Za-z0-9_$.]*)
    | ([%^!#](?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*))
    | (@[A-Za-z_][A-Za-z0-9_$.]*)
    | (0x[0-9a-fA-F]+|[0-9]+(?![.0-9]))
    | ([0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?)
    | (->)
    | ([-:,()}\[\]<>=+/*?|]|\{(?!-\#))
    )""",
    re.VERBOSE,
)
"""The tokens most of a module is made of, after the whitespace and comments before them:
bare, prefixed and @ identifiers, numbers, punctuation. Group i is token kind `_KINDS[i]`."""
_KINDS: tuple[MLIRTokenKind | None, ...] = (
    None, _K.BARE_IDENT, None, _K.AT_IDENT, _K.INTEGER_LIT, _K.FLOAT_LIT, _K.ARROW, None
)  # fmt: skip
_PREFIXED = {
    "%": _K.PERCENT_IDENT,
    "^": _K.CARET_IDENT,
    "!": _K.EXCLAMATION_IDENT,
    "#": _K.HASH_IDENT,
}
_PUNCTUATION = {
    "-": _K.MINUS, ":": _K.COLON, ",": _K.COMMA, "(": _K.L_PAREN, ")": _K.R_PAREN,
    "{": _K.L_BRACE, "}": _K.R_BRACE, "[": _K.L_SQUARE, "]": _K.R_SQUARE, "<": _K.LESS,
    ">": _K.GREATER, "=": _K.EQUAL, "+": _K.PLUS, "/": _K.SLASH, "*": _K.STAR,
    "?": _K.QUESTION, "|": _K.VERTICAL_BAR,
}  # fmt: skip


_NEWLINE = re.compile("\n")
_SPACE = re.compile(r"(?://[^\n]*\n?|[ \t\n\r\f\v]+)*")
_BRACKETS = re.compile(r'->|[<>()\[\]{}"]')


def _balanced_end(content: str, start: int) -> int | None:
    """The end of the bracketed text that starts at `content[start]` (a `<`), or None where it
    holds a string (whose brackets do not count) or does not end."""
    depth = 0
    for m in _BRACKETS.finditer(content, start):
        c = m.group()
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
            if depth == 0:
                return m.end() if c == ">" else None
        elif c == '"':
            return None
    return None


class _FastLexer(MLIRLexer):
    """xDSL's MLIR lexer with one regular expression for the common tokens (a third of a
    parse went to lexing, a few Python calls a character). The tokens are the same as
    xDSL's, kind and span: everything else (strings, `...`, `{-#`, `#-}`, a `#` not followed
    by an identifier, `0x` not followed by a hex digit, non-ASCII, the end) is left to it."""

    def lex(self) -> Token[MLIRTokenKind, str]:
        m = _TOKEN.match(self.input.content, self.pos)
        if m is None:
            return super().lex()
        group = m.lastindex
        assert group is not None, "every alternative of _TOKEN is a group"
        start, end = m.span(group)
        kind: MLIRTokenKind | None
        if group == 2:
            kind = _PREFIXED[self.input.content[start]]
            if kind is _K.HASH_IDENT and self.input.content.startswith("#-}", start):
                return super().lex()
        elif group == 7:
            kind = _PUNCTUATION[self.input.content[start]]
        else:
            kind = _KINDS[group]
        assert kind is not None
        self.pos = end
        return Token(kind, Span(start, end, self.input))


_NUMBER_TYPES: dict[str, TypeAttribute] = {}
"""`LocatedParser._parse_optional_integer_or_float_type`'s types, by their spelling."""
_NUMBER_TYPES_MAX = 256


class LocatedParser(Parser):
    def __init__(
        self, ctx: Context, input: str | bytes, name: str = "<unknown>", line_offset: int = 0
    ):
        super().__init__(ctx, input, name)
        self._parsed_attributes: dict[tuple[str, bool, str], Attribute] = {}
        self._ints: dict[int, IntAttr] = {}
        self._file_attr = StringAttr(name)
        self._line_starts: list[int] | None = None
        if isinstance(input, str):
            self._line_starts = [0, *(m.end() for m in _NEWLINE.finditer(input))]
        state = self._parser_state
        if isinstance(input, str):  # the first token is lexed already
            fast = _FastLexer(state.lexer.input)
            fast.pos = state.lexer.pos
            state.lexer = fast
        self._line_offset = line_offset
        self._open_blocks: list[Block] = []
        self._order_problems: list[tuple[Block, str, Span]] = []
        self.graph_region_uses: list[tuple[str, Span]] = []
        """Uses before definition accepted because their block may be a graph region."""

    def _loc(self, span: Span) -> FileLineColLoc:
        """`span.get_location()` as a location attribute (built as `FileLineColLoc.new` would
        build it, less its verifier, which checks only that the parameters are the StringAttr
        and IntAttrs made here: a quarter of what locating every op cost)."""
        content = span.input.content
        if self._line_starts is None or not isinstance(content, str):
            where = span.get_location()
            return FileLineColLoc(
                StringAttr(where.file), IntAttr(where.line + self._line_offset), IntAttr(where.col)
            )
        line = bisect.bisect_right(self._line_starts, span.start)  # 1-based
        col = span.start - self._line_starts[line - 1] + 1
        loc = FileLineColLoc.__new__(FileLineColLoc)
        object.__setattr__(loc, "filename", self._file_attr)
        object.__setattr__(loc, "line", self._int(line + span.line_offset + self._line_offset))
        object.__setattr__(loc, "column", self._int(col))
        return loc

    def _int(self, n: int) -> IntAttr:
        found = self._ints.get(n)
        if found is None:
            found = self._ints[n] = IntAttr(n)
        return found

    def _parse_extended_type_or_attribute(  # type: ignore[override]  # xDSL's overloads
        self, attr_or_dialect_name: str, is_type: bool
    ) -> Attribute:
        """xDSL's, with each dialect type or attribute written `name<...>` parsed once per
        module: the same text again is the same (immutable) attribute, so it is looked up
        (a module names a few types many times; each took a custom parser and a verifier)."""
        token = self._current_token
        content = self.lexer.input.content
        if "." not in attr_or_dialect_name or token.kind != MLIRTokenKind.LESS:
            return self._parse_extended(attr_or_dialect_name, is_type)
        if not isinstance(content, str):
            return self._parse_extended(attr_or_dialect_name, is_type)
        end = _balanced_end(content, token.span.start)
        if end is None:
            return self._parse_extended(attr_or_dialect_name, is_type)
        key = (attr_or_dialect_name, is_type, content[token.span.start : end])
        found = self._parsed_attributes.get(key)
        if found is not None:
            self._resume_from(end)
            return found
        attr = self._parse_extended(attr_or_dialect_name, is_type)
        # Kept only where the parser took exactly the text of the key.
        space = _SPACE.match(content, end)
        if space is not None and self._current_token.span.start == space.end():
            self._parsed_attributes[key] = attr
        return attr

    def _parse_optional_integer_or_float_type(self) -> TypeAttribute | None:
        """xDSL's, each builtin number type (`i32`, `index`, `f32`) made once per process: the
        same spelling is the same immutable type in any context, and making an integer type
        verified its two parameters each time (a module names a few of them many times)."""
        token = self._current_token
        if token.kind is not MLIRTokenKind.BARE_IDENT:
            return None
        found = _NUMBER_TYPES.get(token.text)
        if found is not None:
            self._consume_token()
            return found
        made = super()._parse_optional_integer_or_float_type()
        if made is not None and len(_NUMBER_TYPES) < _NUMBER_TYPES_MAX:
            _NUMBER_TYPES[token.text] = made
        return made

    def _parse_extended(self, name: str, is_type: bool) -> Attribute:
        if is_type:
            return super()._parse_extended_type_or_attribute(name, True)
        return super()._parse_extended_type_or_attribute(name, False)

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # A type or attribute that fails its constraints while an op is being built: point
            # at the op instead of losing the location.
            self.raise_error(_one_line(e) or "invalid operation", start)
        except (AssertionError, ValueError, OverflowError, IndexError, NotImplementedError) as e:
            if not _from_xdsl_custom_parser(e):
                raise
            # Some of xDSL's custom op syntaxes check their input with `assert`, index lists
            # without checking their length, pack values of a type too wide for `struct`
            # (cf.switch on i128: NotImplementedError), or build attributes that raise
            # ValueError (the llvm dialect's `addr_space = 3 : f64`, a GEP index past i32);
            # that is malformed input, at this op.
            rest = self.lexer.input.content[start.start : start.start + 200]
            name = re.match(r'(?:[%\w#:, ]+=\s*)?"?([A-Za-z_][\w.$]*)', rest)
            shown = f"'{name[1]}' " if name else ""
            why = str(e).strip().splitlines()[0] if str(e).strip() else ""
            self.raise_error(
                f"malformed {shown}operation (xDSL's parser for it refused it{': ' if why else ''}"
                f"{why})",
                start,
            )
        if isinstance(op.location, UnknownLoc):
            op.location = self._loc(start)
        self._judge_order(op)
        return op

    def _parse_alias_def(self):
        start = self._current_token.span
        try:
            super()._parse_alias_def()
        except VerifyException as e:
            # `#a = 300 : i8` at the top level: the attribute fails its constraints outside
            # every op (parse_operation's own catch never sees it); said at the alias.
            self.raise_error(f"invalid alias definition: {_one_line(e)}", start)

    def _parse_dense_literal_type(self):
        start = self._current_token.span
        type = super()._parse_dense_literal_type()
        self._check_dense_type(type, start)
        return type

    def _check_dense_type(self, type: Attribute, span: Span) -> None:
        """xDSL expands a dense literal into one Python value per element, then packs them with
        `struct`: a huge shape is a MemoryError (or minutes), an element type wider than 64
        bits a NotImplementedError. Both are the literal's fault, said at its type."""
        shape = type.get_shape() if isinstance(type, ShapedType) else ()
        count = math.prod(max(d, 0) for d in shape)
        if count > MAX_DENSE_ELEMENTS:
            self.raise_error(
                f"dense literal of {count} elements; ferrox accepts at most {MAX_DENSE_ELEMENTS}",
                span,
            )
        element = type.get_element_type() if isinstance(type, ContainerType) else type
        self._check_packable(element, span)

    def _check_packable(self, element: Attribute, span: Span) -> None:
        if isinstance(element, ComplexType):
            element = element.element_type
        if not isinstance(element, StructPackableType):
            return
        try:
            _ = element.format  # a property that raises for f80, f128, i65 and wider
        except NotImplementedError:
            self.raise_error(
                f"dense elements of type {element} are not supported (at most 64 bits an element)",
                span,
            )

    def _parse_builtin_densearray_attr(self):
        start = self.pos
        self.parse_characters("<", " in dense array")
        at = self._current_token.span
        element = self.parse_attribute()
        self._check_packable(element, at)
        self._resume_from(start)
        return super()._parse_builtin_densearray_attr()

    def parse_dense_int_or_fp_elements_attr(self, type):
        start = self._current_token.span
        if type is not None:  # given by an op's custom syntax, not parsed after the literal
            self._check_dense_type(type, start)
        try:
            return super().parse_dense_int_or_fp_elements_attr(type)
        except (ValueError, OverflowError, struct.error) as e:
            # xDSL range-checks each element (`dense<[300]> : tensor<1xi8>`) with a plain
            # ValueError, and packs index elements with `struct`; say it at the literal.
            self.raise_error(f"bad dense literal: {e}", start)

    def _parse_tensor_literal_element(self):
        element = super()._parse_tensor_literal_element()
        if isinstance(element.value, int) and element.span.text.lower().startswith("0x"):
            return _HexElement(element.is_negative, element.value, element.span)
        return element

    def parse_optional_builtin_int_or_float_attr(self):
        start = self._current_token.span
        try:
            attr = super().parse_optional_builtin_int_or_float_attr()
        except OverflowError as e:  # an integer literal too large for a float type
            self.raise_error(f"bad number literal: {e}", start)
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, IndexType):
            # xDSL's index has no width; ferrox's is 64 bits (it lowers to i64).
            if not -(2**63) <= attr.value.data < 2**64:
                self.raise_error(
                    f"index value {attr.value.data} does not fit in 64 bits (ferrox's index)",
                    start,
                )
        return attr

    def _check_defined_before_use(self, name: str, values: Sequence[SSAValue], span: Span) -> None:
        """xDSL resolves a use that comes before its definition in the same block (or inside an
        earlier op of that block, or in the defining op itself) without a word; every analysis
        after it then meets a value that does not dominate its use. Such a use is recorded here
        and judged once the op that owns the block is parsed (`_judge_order`): only then is it
        known whether the block may be a graph region, where MLIR and xDSL allow it."""
        pending = self.forward_ssa_references.get(name)
        if not pending or not self._open_blocks or not isinstance(values[0], OpResult):
            return
        here, definer = self._open_blocks[-1], values[0].op
        for forward in pending.values():
            for use in forward.uses:
                user: Operation | None = use.operation
                if user is definer:
                    message = f"%{name} is used by the operation that defines it"
                    self._order_problems.append((here, message, span))
                    return
                while user is not None:
                    if user is definer:  # in a region of it: the op is not in `here` yet
                        message = (
                            f"%{name} is used inside the operation that defines it (at "
                            f"{location_of(use.operation)})"
                        )
                        self._order_problems.append((here, message, span))
                        return
                    if user.parent_block() is here:
                        message = (
                            f"%{name} is defined after a use of it in the same block "
                            f"(used at {location_of(use.operation)})"
                        )
                        self._order_problems.append((here, message, span))
                        return
                    user = user.parent_op()

    def _judge_order(self, owner: Operation | None) -> None:
        """Raise the first recorded use-before-definition in a block of `owner` (None: every
        block left, at the end of the input) unless that block may be a graph region."""
        for problem in list(self._order_problems):
            block, message, span = problem
            if owner is not None and block.parent_op() is not owner:
                continue
            self._order_problems.remove(problem)
            if not may_be_graph_region(block):
                self.raise_error(message, span)
            self.graph_region_uses.append((message, span))

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        module = super().parse_module(allow_implicit_module)
        self._judge_order(None)
        if self.graph_region_uses and any(
            op.name.partition(".")[0] in _SSA_ONLY_DIALECTS for op in module.walk()
        ):  # ferrox's analyses and exporter need every use dominated: no graph regions
            self.raise_error(*self.graph_region_uses[0])
        return module

    def _parse_block(self) -> Block:
        self._check_block_name()
        token = self._current_token
        name = token.text[1:]
        known = self.blocks.get(name)
        if known is not None and known[1] is None and name not in self.forward_block_references:
            # Referenced, then defined, now defined again: xDSL forgets the first definition's
            # place and fails with a KeyError.
            self.raise_error(f"re-declaration of block '{name}'", token.span)
        return super()._parse_block()

    def parse_optional_successor(self) -> Block | None:
        self._check_block_name()
        return super().parse_optional_successor()

    def _check_block_name(self) -> None:
        """xDSL names a block after its label and raises a bare ValueError for a label it cannot
        use as a name (`^32`, valid MLIR); say so at the label instead."""
        token = self._current_token
        if token.kind != MLIRTokenKind.CARET_IDENT:
            return
        name = token.text[1:]
        if not Block.is_valid_name(name):
            self.raise_error(
                f"block label `^{name}` is not supported: a block label must start with a letter, "
                "`_`, `$` or `.` (for example `^bb0`)",
                token.span,
            )

    def _parse_block_body(self, block: Block) -> None:
        self._open_blocks.append(block)
        try:
            super()._parse_block_body(block)
        finally:
            self._open_blocks.pop()

    def _register_ssa_definition(self, name: str, values: Sequence[SSAValue], span: Span) -> None:
        self._check_defined_before_use(name, values, span)
        super()._register_ssa_definition(name, values, span)
        for value in values:
            if isinstance(value, BlockArgument) and isinstance(value.location, UnknownLoc):
                value.location = self._loc(span)


_SSA_ONLY_DIALECTS = frozenset({"simt", "tile", "host", "nvvm", "llvm"})
"""ferrox's dialects and the llvm dialect its exporter reads: a module holding their ops allows
no use before its definition."""


def may_be_graph_region(block: Block) -> bool:
    """Whether `block` may use a value before its definition, as in an MLIR graph region. xDSL
    has no region kinds; what needs one: an op of unknown semantics (unregistered, or of xDSL's
    `test` dialect that stands in for such ops; MLIR's `mayBeGraphRegion` says yes for these)
    and an e-graph (a block holding `equivalence` ops, whose cycles xDSL's equality saturation
    writes as uses before definitions)."""
    owner = block.parent_op()
    if owner is not None and (isinstance(owner, UnregisteredOp) or owner.name.startswith("test.")):
        return True
    return any(op.name.startswith("equivalence.") for op in block.ops)


# The deepest bracket nesting (`(`, `[`, `{`, `<` together) that the tools accept. xDSL's parser,
# verifiers and printers recurse once or more per level; far below Python's recursion limit, far
# above any real program (regions nest one `{` per level).
MAX_NESTING = 100


class _HexElement(Parser._TensorLiteralElement):
    """A hex literal in a dense float literal: the element's bits, as MLIR reads it (and as xDSL
    prints a non-finite float: `dense<0xff800000> : tensor<4xf32>` is four -inf). xDSL 0.74 reads
    it as the integer 4286578688 instead, so -inf, inf and NaN did not survive a round trip."""

    def to_type(self, parser, type):
        if not isinstance(type, AnyFloat):
            return super().to_type(parser, type)
        width = type.bitwidth
        bits = self.value
        assert isinstance(bits, int), "a hex token is read as an integer"
        if bits >= 1 << width:
            parser.raise_error(
                f"hex literal {self.span.text} has more than the {width} bits of {type}",
                at_position=self.span,
            )
        if isinstance(type, BFloat16Type):  # the high half of an f32
            return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
        code = _FLOAT_CODES.get(width)
        if code is None:
            parser.raise_error(f"hex literals of {type} are not supported", at_position=self.span)
        size = width // 8
        return struct.unpack(f"<{code}", bits.to_bytes(size, "little"))[0]


_FLOAT_CODES = {16: "e", 32: "f", 64: "d"}


# The most elements a dense literal may have (a splat included): xDSL keeps one Python value per
# element while it parses, so `dense<1.0> : tensor<99999999999xf32>` would exhaust memory.
MAX_DENSE_ELEMENTS = 1 << 20
_OPEN, _CLOSE = "([{<", ")]}>"


_COMMENT_OR_QUOTE = re.compile(r'//[^\n]*|"')


def check_nesting(text: str, name: str = "<stdin>", line_offset: int = 0) -> None:
    """A located diagnostic where brackets nest deeper than MAX_NESTING (rather than a
    RecursionError somewhere inside xDSL). Strings and `//` comments are skipped."""
    if sum(text.count(c) for c in _OPEN) > MAX_NESTING:
        _check_nesting(text, name, line_offset)
        return
    # No deeper than the brackets there are: only the string literals to check.
    pos = 0
    while (m := _COMMENT_OR_QUOTE.search(text, pos)) is not None:
        if m.group() != '"':
            pos = m.end()
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        where = SourceLoc(name, text.count("\n", 0, m.start()) + 1 + line_offset, 0)
        pos = _check_string(text, m.start(), name, where, line_start) + 1


_NESTING_TOKENS = re.compile(r'//[^\n]*|"|->|[(\[{<)\]}>]')
"""What `_check_nesting` looks at: comments, string starts, arrows (whose `>` closes nothing)
and brackets."""


def _check_nesting(text: str, name: str, line_offset: int) -> None:
    """`check_nesting` token by token (comments, strings, arrows and brackets; a character loop
    took a third of a millisecond on a 4 KB module). Lines are counted only where a diagnostic
    may need one: at a string, and at the bracket that nests too deep."""
    depth = 0
    line, counted = 0, 0  # the newlines before text[counted]
    pos = 0
    while (m := _NESTING_TOKENS.search(text, pos)) is not None:
        i, c = m.start(), m.group()
        pos = m.end()
        if c in _OPEN:
            depth += 1
            if depth > MAX_NESTING:
                line += text.count("\n", counted, i)
                line_start = text.rfind("\n", 0, i) + 1
                loc = SourceLoc(name, line + 1 + line_offset, i - line_start + 1)
                message = f"brackets nest deeper than {MAX_NESTING} levels, the most ferrox accepts"
                raise DiagnosticError([Diagnostic("error", message, loc)])
        elif c in _CLOSE:
            depth = max(depth - 1, 0)
        elif c == '"':
            line += text.count("\n", counted, i)
            counted = i
            line_start = text.rfind("\n", 0, i) + 1
            where = SourceLoc(name, line + 1 + line_offset, 0)
            pos = _check_string(text, i, name, where, line_start) + 1
        # (a comment or `->`: nothing)


_ESCAPE = re.compile(r'["nt\\]|[0-9A-Fa-f]{2}')


def _check_string(text: str, start: int, name: str, where: SourceLoc, line_start: int) -> int:
    """The end of the string literal at `start`, or a located diagnostic when it is not closed on
    its line or holds an escape MLIR does not have. xDSL's lexer matches string literals with a
    regular expression that backtracks exponentially on both (minutes for a 40-character line)."""

    def fail(at: int, message: str) -> DiagnosticError:
        loc = SourceLoc(name, where.line, at - line_start + 1)
        return DiagnosticError([Diagnostic("error", message, loc)])

    i, n = start + 1, len(text)
    while i < n and text[i] != '"':
        c = text[i]
        if c in "\n\v\f":
            raise fail(start, "string literal is not closed before the end of its line")
        if c == "\\":
            if not _ESCAPE.match(text, i + 1):
                raise fail(i, 'bad escape in string literal (MLIR has \\", \\n, \\t, \\\\, \\XX)')
            i += 3 if text[i + 1] not in '"nt\\' else 2
            continue
        i += 1
    if i >= n:
        raise fail(start, "string literal is not closed before the end of the input")
    return i


def parse_module(
    ctx: Context, text: str | bytes, name: str = "<stdin>", line_offset: int = 0
) -> ModuleOp:
    """Parse `text` into a module (implicit if the text has no top-level `builtin.module`)."""
    check_nesting(
        text if isinstance(text, str) else text.decode("utf-8", "replace"), name, line_offset
    )
    module = LocatedParser(ctx, text, name, line_offset).parse_module()
    if isinstance(module.location, UnknownLoc):  # an implicit module: the start of its text
        module.location = FileLineColLoc(StringAttr(name), IntAttr(1 + line_offset), IntAttr(1))
    _check_resolved(module)
    return module


def _check_resolved(module: ModuleOp) -> None:
    """xDSL can leave a use that precedes its definition in another region (`%p` in a loop bound,
    defined later as a nested loop's induction variable) as a forward reference, which every
    later consumer trips over; and it resolves a use by a definition in a region that does not
    enclose the use (a top-level op naming a later function's argument). Both are uses of a
    value where it is not defined."""
    for op in module.walk():
        for i, operand in enumerate(op.operands):
            if isinstance(operand, ForwardDeclaredValue):
                message = (
                    f"operand #{i} of '{op.name}' names a value that is not defined here (its "
                    "definition comes later, in another region)"
                )
                raise DiagnosticError([make("error", op, message)])
            home = operand.block.parent if isinstance(operand, BlockArgument) else None
            if isinstance(operand, OpResult):
                home = operand.op.parent_region()
            if home is not None and not _encloses(home, op):
                message = (
                    f"operand #{i} of '{op.name}' names a value defined at "
                    f"{location_of(operand)}, in a region that does not enclose this use"
                )
                raise DiagnosticError([make("error", op, message)])


def _encloses(region: Region, op: Operation) -> bool:
    at: Operation | None = op
    while at is not None:
        parent = at.parent_region()
        if parent is region:
            return True
        at = parent.parent_op() if parent is not None else None
    return False


def _one_line(e: BaseException) -> str:
    """xDSL's constraint errors span lines ("... does not verify:\n<why>"): one line of them."""
    return " ".join(line.strip() for line in str(e).splitlines() if line.strip())


def _from_xdsl_custom_parser(e: BaseException) -> bool:
    """Whether `e` was raised inside one of xDSL's custom op parsers, below the innermost
    LocatedParser.parse_operation, with nothing but xDSL code in between (so not in a ferrox
    dialect's parser nested in an xDSL op's region)."""
    frames = traceback.extract_tb(e.__traceback__)
    ours = [i for i, f in enumerate(frames) if f.filename == __file__]
    below = frames[ours[-1] + 1 :] if ours else frames
    xdsl = f"{os.sep}xdsl{os.sep}"
    if not below or not all(xdsl in f.filename for f in below):
        return False
    return any(f.name == "parse" and f"{xdsl}dialects{os.sep}" in f.filename for f in below)


def decode_source(data: bytes, name: str = "<stdin>") -> str:
    """The text of a source file; bytes that are not UTF-8 are a diagnostic at their line and
    column that names the byte and its offset (a traceback from the decoder says neither)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        before = data[: e.start]
        line = before.count(b"\n") + 1
        col = e.start - (before.rfind(b"\n") + 1) + 1
        byte = data[e.start]
        message = f"input is not valid UTF-8: byte 0x{byte:02x} at offset {e.start} ({e.reason})"
        raise DiagnosticError([Diagnostic("error", message, SourceLoc(name, line, col))]) from None


def read_source(path: str | Path, name: str | None = None) -> str:
    """Read and decode a source file ('-' is standard input); unreadable files and bytes that are
    not UTF-8 are diagnostics."""
    shown = name or ("<stdin>" if str(path) == "-" else str(path))
    try:
        if str(path) == "-":
            stdin = getattr(sys.stdin, "buffer", None)  # a test's StringIO has no bytes
            if stdin is None:
                return sys.stdin.read()
            data = stdin.read()
        else:
            data = Path(path).read_bytes()
    except OSError as e:
        message = f"cannot read {path}: {e.strerror}"
        raise DiagnosticError([Diagnostic("error", message, SourceLoc(shown, 0, 0))]) from None
    return decode_source(data, shown)


def parse_source(ctx: Context, text: str, name: str, line_offset: int = 0) -> ModuleOp:
    """`parse_module`, with a parse error as a located DiagnosticError."""
    try:
        return parse_module(ctx, text, name, line_offset)
    except ParseError as e:
        where = e.span.get_location()
        loc = SourceLoc(name, where.line + line_offset, where.col)
        raise DiagnosticError([Diagnostic("error", e.msg, loc)]) from None
