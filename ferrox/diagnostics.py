"""MLIR-style diagnostics with source locations, shared by verifiers, passes and drivers.

Verifier passes collect every violation in a `DiagnosticEngine` and raise one `DiagnosticError`
at the end, so a user sees all problems at once. A `Diagnostic` is data: its `format()` (and a
`DiagnosticError`'s text) is the plain `file:line:col: error: ...` line with its notes, what the
Python API raises and tests pin. The command-line tools print through `render()` instead, in
rustc's shape (`error[E0382]: ...`, `-->`, the source line with the span underlined, `help:`)
or its one-line short form (`--error-format`, FERROX_ERROR_FORMAT): diagnostic_render.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

from xdsl.utils.exceptions import DiagnosticException

if TYPE_CHECKING:  # the IR classes load with the first IR (a cache hit imports none of them)
    from xdsl.ir import Attribute, Operation, SSAValue  # noqa: F401 (named in `Where`)

Severity = Literal["error", "warning", "note", "remark"]
Where: TypeAlias = "Operation | SSAValue | Attribute | None"


@dataclass(frozen=True)
class SourceLoc:
    """A resolved position; `file` is empty when the IR carries no location."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        if not self.file:
            return "<unknown>"
        return f"{self.file}:{self.line}:{self.col}"


UNKNOWN = SourceLoc("", 0, 0)


def location_of(where: Where) -> SourceLoc:
    """The source position of an op, a value (its defining op or block argument) or a loc attr."""
    if where is None:
        return UNKNOWN
    from xdsl.dialects.builtin import CallSiteLoc, FileLineColLoc, NameLoc
    from xdsl.ir import BlockArgument, Operation, OpResult

    if isinstance(where, Operation):
        return location_of(where.location)
    if isinstance(where, BlockArgument):
        loc = location_of(where.location)
        if loc is UNKNOWN and where.block.parent_op() is not None:
            return location_of(where.block.parent_op())
        return loc
    if isinstance(where, OpResult):
        return location_of(where.op)
    if isinstance(where, FileLineColLoc):
        return SourceLoc(where.filename.data, where.line.data, where.column.data)
    if isinstance(where, NameLoc):
        return location_of(where.location)
    if isinstance(where, CallSiteLoc):
        return location_of(where.callee)
    return UNKNOWN


@dataclass
class Diagnostic:
    """One diagnostic. Beyond the MLIR form (severity, message, location, notes), optional
    details for the rendered form: a `code` (E0382; else the renderer classifies the message),
    the primary span's `label`, `help` lines, the span's `length` in characters (0: the
    renderer finds `focus`, or the token at the column), and the op or value it is about
    (`subject`, so that the renderer can say an xDSL constraint failure in the op's words)."""

    severity: Severity
    message: str
    loc: SourceLoc
    notes: list[Diagnostic] = field(default_factory=list["Diagnostic"])
    code: str = ""
    label: str = ""
    help: list[str] = field(default_factory=list[str])
    length: int = 0
    focus: str = ""
    """Text at or near the column that the span covers (`%x`, an op's name), when not the
    token at the column itself."""
    subject: object = field(default=None, compare=False, repr=False)

    def format(self) -> str:
        lines = [f"{self.loc}: {self.severity}: {self.message}"]
        lines += [note.format() for note in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


class DiagnosticError(DiagnosticException):
    """One or more diagnostics; the message is their MLIR-style text."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))


def make(
    severity: Severity,
    where: Where,
    message: str,
    notes: Iterable[tuple[Where, str]] = (),
) -> Diagnostic:
    return Diagnostic(
        severity,
        message,
        location_of(where),
        [Diagnostic("note", msg, location_of(w), subject=w) for w, msg in notes],
        subject=where,
    )


def error(where: Where, message: str, notes: Iterable[tuple[Where, str]] = ()) -> DiagnosticError:
    """A ready-to-raise error at `where`: `raise error(op, "...")`."""
    return DiagnosticError([make("error", where, message, notes)])


@dataclass
class DiagnosticEngine:
    """Collects diagnostics so that a pass can report every violation, not only the first."""

    diagnostics: list[Diagnostic] = field(default_factory=list[Diagnostic])

    def error(self, where: Where, message: str, notes: Iterable[tuple[Where, str]] = ()) -> None:
        self.diagnostics.append(make("error", where, message, notes))

    def warning(self, where: Where, message: str, notes: Iterable[tuple[Where, str]] = ()) -> None:
        self.diagnostics.append(make("warning", where, message, notes))

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def raise_if_errors(self) -> None:
        """Raise every collected diagnostic (warnings too) when at least one is an error."""
        if self.has_errors:
            raise DiagnosticError(self.diagnostics)


ErrorFormat = Literal["human", "short"]
ERROR_FORMATS: tuple[ErrorFormat, ...] = ("human", "short")
ERROR_FORMAT_ENV = "FERROX_ERROR_FORMAT"
"""The environment variable that sets the tools' error format (`--error-format` wins)."""


def error_format(explicit: str | None = None) -> ErrorFormat:
    """The error format: `explicit` (a tool's `--error-format`), else FERROX_ERROR_FORMAT, else
    `human`, as rustc. A value that is neither is a ValueError naming what is accepted."""
    import os

    value = explicit if explicit is not None else os.environ.get(ERROR_FORMAT_ENV, "") or "human"
    if value == "human":
        return "human"
    if value == "short":
        return "short"
    where = "--error-format" if explicit is not None else ERROR_FORMAT_ENV
    raise ValueError(f"{where}: unknown error format {value!r} (expected human or short)")


def render(
    diagnostics: Sequence[Diagnostic] | DiagnosticError,
    fmt: str | None = None,
    sources: dict[str, str] | None = None,
) -> str:
    """The diagnostics as the tools print them, in `fmt` (see `error_format`). `sources` maps
    a file name to its text (standard input, a split chunk); other files are read from disk."""
    from ferrox.diagnostic_render import render_all

    if isinstance(diagnostics, DiagnosticError):
        diagnostics = diagnostics.diagnostics
    return render_all(list(diagnostics), error_format(fmt), sources or {})
