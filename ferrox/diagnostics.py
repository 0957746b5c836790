"""MLIR-style diagnostics with source locations, shared by verifiers, passes and drivers.

Verifier passes collect every violation in a `DiagnosticEngine` and raise one `DiagnosticError`
at the end, so a user sees all problems at once, each as `file:line:col: error: ...` with notes.
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
    severity: Severity
    message: str
    loc: SourceLoc
    notes: list[Diagnostic] = field(default_factory=list["Diagnostic"])

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
        [Diagnostic("note", msg, location_of(w)) for w, msg in notes],
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
