"""The harness every ferrox conversion shares: how an op that cannot be lowered becomes one
located diagnostic, and how the new ops are inserted and located.

A conversion must never leave a half-rewritten op behind, and must tell the user every op it
cannot lower, each once, at that op's source position, in one error. So a pattern that cannot
lower its op raises `Unsupported` before it changes anything; `Guarded` (for pattern walks) or
`ConversionState.attempt` (for lowerings that visit ops themselves) turns it into
"cannot lower '<op>' to <target>: <reason>" and the pass raises all of them at the end with
`ConversionState.diagnostics.raise_if_errors()`. `Located` gives the ops of patterns that are
not ferrox's (xDSL's) the location of the op they replace.

`Emitter` inserts the ops a lowering produces at one point, each located at the op it replaces,
so a later diagnostic (or a PTX line) points back at the source. The conversions subclass it
with their own vocabulary (SIMT values as parts, f32 arithmetic, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Self

from xdsl.dialects.builtin import LocationAttr, UnknownLoc
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter

from ferrox.diagnostics import DiagnosticEngine


class Unsupported(Exception):
    """Raised by a lowering, before it changes anything, for an op (or a type) it cannot lower;
    the message becomes a diagnostic at the op. Type conversions subclass it, so a type with no
    lowering is reported like any other unsupported op."""


@dataclass
class ConversionState:
    """One conversion run's diagnostics. `target` names what the conversion lowers to ("nvvm",
    "llvm", "SIMT") in every "cannot lower" message.

    A pattern walk retries an op until nothing changes, so an op that cannot be lowered would be
    reported once per retry; `fail` reports each op once."""

    target: str
    diagnostics: DiagnosticEngine = field(default_factory=DiagnosticEngine)
    reported: list[Operation] = field(default_factory=list[Operation])

    def fail(self, op: Operation, message: str) -> None:
        """Report `message` at `op`, unless `op` was reported already."""
        if not self.was_reported(op):
            self.reported.append(op)
            self.diagnostics.error(op, message)

    def cannot_lower(self, op: Operation, reason: object) -> None:
        """The one wording of a refusal: "cannot lower '<op>' to <target>: <reason>"."""
        self.fail(op, f"cannot lower '{op.name}' to {self.target}: {reason}")

    def was_reported(self, op: Operation) -> bool:
        # Compared by identity: ops compare by value in xDSL, and two equal ops are two reports.
        return any(seen is op for seen in self.reported)

    def attempt(self, op: Operation, lower: Callable[[], None]) -> bool:
        """Run `lower` (which lowers `op`); on `Unsupported`, report it at `op`. Whether it
        succeeded. A lowering that builds new IR it drops on failure (convert-tile-to-simt's
        kernel) may raise after emitting; one that rewrites in place must raise first."""
        try:
            lower()
        except Unsupported as e:
            self.cannot_lower(op, e)
            return False
        return True


@dataclass
class Guarded(RewritePattern):
    """Runs `pattern`, turning `Unsupported` into one diagnostic at the matched op.

    Sound only because patterns raise before any change; a pattern that has inserted ops must
    not raise."""

    pattern: RewritePattern
    state: ConversionState

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.state.attempt(op, lambda: self.pattern.match_and_rewrite(op, rewriter))


@dataclass
class Located(RewritePattern):
    """Runs `pattern`, giving every op it inserts without a location the matched op's location,
    for patterns that do not place their ops with an `Emitter` (xDSL's scf-to-cf)."""

    pattern: RewritePattern

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        location = op.location

        def stamp(new: Operation) -> None:
            if isinstance(new.location, UnknownLoc):
                new.location = location

        rewriter.operation_insertion_handler.append(stamp)
        try:
            self.pattern.match_and_rewrite(op, rewriter)
        finally:
            rewriter.operation_insertion_handler.remove(stamp)


@dataclass
class Emitter:
    """Inserts ops at `point`, each given `location` (when set).

    Inside a pattern, pass the walker's `rewriter`: the walker then sees every new op (and
    revisits it). A lowering that builds new IR outside a pattern walk leaves it None. `origin`
    is the op being lowered, for builders that read its context (the enclosing kernel, say)
    while inserting into a block not yet attached.
    """

    point: InsertPoint
    location: LocationAttr | None = None
    rewriter: PatternRewriter | None = None
    origin: Operation | None = None

    @classmethod
    def before(cls, rewriter: PatternRewriter, op: Operation) -> Self:
        """The emitter a pattern uses: ops go before `op` and carry its location."""
        return cls(InsertPoint.before(op), op.location, rewriter, op)

    def at(self, point: InsertPoint) -> Self:
        """The same emitter (same location, rewriter and vocabulary) inserting at `point`."""
        return replace(self, point=point)

    def emit(self, new: Operation) -> Operation:
        """Insert `new` and return it."""
        if self.location is not None:
            new.location = self.location
        if self.rewriter is not None:
            self.rewriter.insert(new, self.point)
        else:
            Rewriter.insert_op(new, self.point)
        return new

    def __call__(self, new: Operation, name: str | None = None) -> SSAValue:
        """Insert `new` and return its only result (named `name`, for readable IR)."""
        result = self.emit(new).results[0]
        if name:
            result.name_hint = name
        return result


__all__ = ["ConversionState", "Emitter", "Guarded", "Located", "Unsupported"]
