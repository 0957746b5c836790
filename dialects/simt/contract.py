"""The launch contract: the launch shape a kernel promises to run under, as one attribute.

`#simt.contract<domain = 2, block = [16, 16], shared_bytes = 0, min_cc = 80,
                requires = [len(arg0) >= arg3 * arg4]>`

- `domain`: the number of grid/block dimensions a launch may use (1, 2 or 3); the index spaces a
  kernel uses must fit it (1d and warp need 1, 2d and 2d_runtime need 2).
- `block`: the exact block shape (x[, y[, z]]), emitted as `.reqntid`.
- `shared_bytes`: dynamic shared memory the launch must provide (default 0, omitted when 0).
- `min_cc`: minimum compute capability as major*10+minor, e.g. 80 for sm_80 (0: any; omitted).
- `requires`: size relations the host checks on the real arguments before a safe launch.

Relations name kernel parameters by position, `argN` (the N-th kernel parameter, 0-based), so the
attribute stays meaningful whatever SSA names a printer picks. `len(argN)` is the length of a slice
parameter; a bare `argN` is the value of an integer or index parameter. Expressions use integer
literals, `+`, `-`, `*` and parentheses; relations are `>=`, `<=`, `==`, `>`, `<`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.types import verified_params

_ARG = re.compile(r"arg(\d+)$")
EXPR_KINDS = ("const", "arg", "len", "+", "-", "*")
RELATIONS = (">=", "<=", "==", ">", "<")


@irdl_attr_definition
class SizeExprAttr(ParametrizedAttribute):
    """One node of a size expression: `const` (value), `arg`/`len` (value = parameter index), or a
    binary `+`, `-`, `*` over two operands. Printed standalone as
    `#simt.size_expr<len(arg0) * 2>`."""

    name = "simt.size_expr"

    kind: StringAttr
    value: IntAttr
    operands: ArrayAttr[Attribute]

    def __init__(self, kind: str, value: int = 0, operands: Sequence[SizeExprAttr] = ()):
        super().__init__(StringAttr(kind), IntAttr(value), ArrayAttr(operands))

    @staticmethod
    def const(v: int) -> SizeExprAttr:
        return SizeExprAttr("const", v)

    @staticmethod
    def arg(i: int) -> SizeExprAttr:
        return SizeExprAttr("arg", i)

    @staticmethod
    def len_of(i: int) -> SizeExprAttr:
        return SizeExprAttr("len", i)

    def binary(self, op: str, other: SizeExprAttr) -> SizeExprAttr:
        return SizeExprAttr(op, 0, (self, other))

    def verify(self) -> None:
        kind = self.kind.data
        if kind not in EXPR_KINDS:
            raise VerifyException(f"unknown size expression kind '{kind}'")
        arity = 2 if kind in ("+", "-", "*") else 0
        if len(self.operands.data) != arity:
            raise VerifyException(f"size expression '{kind}' takes {arity} operands")
        if any(not isinstance(o, SizeExprAttr) for o in self.operands.data):
            raise VerifyException("size expression operands must be size expressions")
        if kind in ("arg", "len") and self.value.data < 0:
            raise VerifyException("parameter index must be non-negative")

    @property
    def lhs(self) -> SizeExprAttr:
        return self.operands.data[0]  # type: ignore[return-value]

    @property
    def rhs(self) -> SizeExprAttr:
        return self.operands.data[1]  # type: ignore[return-value]

    def walk(self):
        yield self
        for o in self.operands.data:
            assert isinstance(o, SizeExprAttr)
            yield from o.walk()

    def evaluate(self, arg: Callable[[int], int], length: Callable[[int], int]) -> int:
        """The value, given the scalar parameter `arg(i)` and the slice length `length(i)`."""
        kind = self.kind.data
        if kind == "const":
            return self.value.data
        if kind == "arg":
            return arg(self.value.data)
        if kind == "len":
            return length(self.value.data)
        a, b = self.lhs.evaluate(arg, length), self.rhs.evaluate(arg, length)
        return a + b if kind == "+" else a - b if kind == "-" else a * b

    # -- text ------------------------------------------------------------------------------------
    def __str__(self) -> str:
        kind = self.kind.data
        if kind == "const":
            return str(self.value.data)
        if kind == "arg":
            return f"arg{self.value.data}"
        if kind == "len":
            return f"len(arg{self.value.data})"
        left, right = str(self.lhs), str(self.rhs)
        if kind == "*":
            left = f"({left})" if self.lhs.kind.data in ("+", "-") else left
            right = f"({right})" if self.rhs.kind.data in ("+", "-") else right
        elif kind == "-" and self.rhs.kind.data in ("+", "-"):
            right = f"({right})"
        return f"{left} {kind} {right}"

    @classmethod
    def parse_expr(cls, parser: AttrParser) -> SizeExprAttr:
        lhs = cls._parse_term(parser)
        while (
            op := parser.parse_optional_punctuation("+") or parser.parse_optional_punctuation("-")
        ) is not None:
            lhs = lhs.binary(op, cls._parse_term(parser))
        return lhs

    @classmethod
    def _parse_term(cls, parser: AttrParser) -> SizeExprAttr:
        lhs = cls._parse_atom(parser)
        while parser.parse_optional_punctuation("*") is not None:
            lhs = lhs.binary("*", cls._parse_atom(parser))
        return lhs

    @classmethod
    def _parse_atom(cls, parser: AttrParser) -> SizeExprAttr:
        if parser.parse_optional_punctuation("(") is not None:
            inner = cls.parse_expr(parser)
            parser.parse_punctuation(")")
            return inner
        value = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
        if value is not None:
            return cls.const(value)
        if parser.parse_optional_keyword("len") is not None:
            parser.parse_punctuation("(")
            index = cls._parse_arg(parser)
            parser.parse_punctuation(")")
            return cls.len_of(index)
        return cls.arg(cls._parse_arg(parser))

    @staticmethod
    def _parse_arg(parser: AttrParser) -> int:
        name = parser.parse_optional_identifier()
        m = _ARG.match(name or "")
        if m is None:
            parser.raise_error("expected a size expression: an integer, argN or len(argN)")
        return int(m.group(1))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            e = cls.parse_expr(parser)
        return (e.kind, e.value, e.operands)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(str(self))


@irdl_attr_definition
class SizeRelationAttr(ParametrizedAttribute):
    """`lhs REL rhs` over size expressions; standalone
    `#simt.requires<len(arg0) >= arg1 * arg2>`."""

    name = "simt.requires"

    lhs: SizeExprAttr
    relation: StringAttr
    rhs: SizeExprAttr

    def __init__(self, lhs: SizeExprAttr, relation: str, rhs: SizeExprAttr):
        super().__init__(lhs, StringAttr(relation), rhs)

    def verify(self) -> None:
        if self.relation.data not in RELATIONS:
            raise VerifyException(
                f"unknown relation '{self.relation.data}', expected one of {' '.join(RELATIONS)}"
            )

    def holds(self, arg: Callable[[int], int], length: Callable[[int], int]) -> bool:
        a, b = self.lhs.evaluate(arg, length), self.rhs.evaluate(arg, length)
        return {">=": a >= b, "<=": a <= b, "==": a == b, ">": a > b, "<": a < b}[
            self.relation.data
        ]

    def arg_refs(self) -> list[tuple[str, int]]:
        """Every parameter reference, as ("arg" | "len", index)."""
        return [
            (e.kind.data, e.value.data)
            for side in (self.lhs, self.rhs)
            for e in side.walk()
            if e.kind.data in ("arg", "len")
        ]

    def __str__(self) -> str:
        return f"{self.lhs} {self.relation.data} {self.rhs}"

    @classmethod
    def parse_relation(cls, parser: AttrParser) -> SizeRelationAttr:
        lhs = SizeExprAttr.parse_expr(parser)
        if parser.parse_optional_punctuation(">") is not None:
            rel = ">=" if parser.parse_optional_punctuation("=") is not None else ">"
        elif parser.parse_optional_punctuation("<") is not None:
            rel = "<=" if parser.parse_optional_punctuation("=") is not None else "<"
        elif parser.parse_optional_punctuation("=") is not None:
            parser.parse_punctuation("=", " (relation ==)")
            rel = "=="
        else:
            parser.raise_error("expected a relation: >=, <=, ==, > or <")
        return cls(lhs, rel, SizeExprAttr.parse_expr(parser))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            r = cls.parse_relation(parser)
        return (r.lhs, r.relation, r.rhs)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(str(self))


@irdl_attr_definition
class LaunchContractAttr(ParametrizedAttribute):
    """The launch contract of a `simt.kernel` (see the module docstring for the fields)."""

    name = "simt.contract"

    domain: IntAttr
    block: ArrayAttr[IntAttr]
    shared_bytes: IntAttr
    min_cc: IntAttr
    requires: ArrayAttr[SizeRelationAttr]

    def __init__(
        self,
        domain: int,
        block: Sequence[int],
        shared_bytes: int = 0,
        min_cc: int = 0,
        requires: Sequence[SizeRelationAttr] = (),
    ):
        super().__init__(
            IntAttr(domain),
            ArrayAttr(IntAttr(d) for d in block),
            IntAttr(shared_bytes),
            IntAttr(min_cc),
            ArrayAttr(requires),
        )

    @property
    def block_shape(self) -> tuple[int, ...]:
        """The block shape as written (rank 1 to 3)."""
        return tuple(d.data for d in self.block.data)

    @property
    def block_xyz(self) -> tuple[int, int, int]:
        """The block shape padded with 1s to (x, y, z), as `.reqntid` and the launch take it."""
        s = self.block_shape + (1, 1, 1)
        return (s[0], s[1], s[2])

    @property
    def threads_per_block(self) -> int:
        x, y, z = self.block_xyz
        return x * y * z

    @property
    def relations(self) -> tuple[SizeRelationAttr, ...]:
        return tuple(self.requires.data)

    def verify(self) -> None:
        if not 1 <= self.domain.data <= 3:
            raise VerifyException(
                f"launch contract domain must be 1, 2 or 3, got {self.domain.data}"
            )
        shape = self.block_shape
        if not 1 <= len(shape) <= 3:
            raise VerifyException(
                f"launch contract block must have 1 to 3 dimensions, got {len(shape)}"
            )
        if any(d <= 0 for d in shape):
            raise VerifyException(
                f"launch contract block dimensions must be positive, got {list(shape)}"
            )
        if self.shared_bytes.data < 0:
            raise VerifyException("launch contract shared_bytes must be non-negative")
        if self.min_cc.data < 0:
            raise VerifyException("launch contract min_cc must be non-negative")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        fields: dict[str, object] = {}

        def parse_field() -> None:
            key = parser.parse_identifier(" (contract field)")
            if key in fields:
                parser.raise_error(f"duplicate launch contract field '{key}'")
            parser.parse_punctuation("=")
            if key in ("domain", "shared_bytes", "min_cc"):
                fields[key] = parser.parse_integer(allow_boolean=False)
            elif key == "block":
                fields[key] = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
                )
            elif key == "requires":
                fields[key] = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, lambda: SizeRelationAttr.parse_relation(parser)
                )
            else:
                parser.raise_error(
                    f"unknown launch contract field '{key}', "
                    "expected domain, block, shared_bytes, min_cc or requires"
                )

        start = parser.pos
        with parser.in_angle_brackets():
            parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_field)
        for key in ("domain", "block"):
            if key not in fields:
                parser.raise_error(f"launch contract needs '{key} = ...'", start, parser.pos)
        return verified_params(
            parser,
            start,
            lambda: cls(
                fields["domain"],  # type: ignore[arg-type]
                fields["block"],  # type: ignore[arg-type]
                fields.get("shared_bytes", 0),  # type: ignore[arg-type]
                fields.get("min_cc", 0),  # type: ignore[arg-type]
                fields.get("requires", ()),  # type: ignore[arg-type]
            ),
        )

    def print_parameters(self, printer: Printer) -> None:
        parts = [
            f"domain = {self.domain.data}",
            f"block = [{', '.join(map(str, self.block_shape))}]",
        ]
        if self.shared_bytes.data:
            parts.append(f"shared_bytes = {self.shared_bytes.data}")
        if self.min_cc.data:
            parts.append(f"min_cc = {self.min_cc.data}")
        if self.requires.data:
            parts.append(f"requires = [{', '.join(str(r) for r in self.relations)}]")
        with printer.in_angle_brackets():
            printer.print_string(", ".join(parts))
