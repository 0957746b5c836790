"""Diagnostics at Python lines: `file.py:line:col: error: ...`, the source line, a caret.

The frontend's own refusals and the verifiers' diagnostics on frontend-made IR (whose ops carry
Python locations) are both a `FrontendError`: a `DiagnosticError` with the same diagnostics and
the same words as for MLIR input, whose text adds the Python source line under each one.
"""

from __future__ import annotations

import ast
import linecache
import sys
from collections.abc import Iterable, Sequence
from types import TracebackType

from ferrox.diagnostics import Diagnostic, DiagnosticError, SourceLoc
from ferrox.frontend.common.source import FunctionSource


class UserError(Exception):
    """A mistake in the kernel found while building one node; the builder locates it there."""


def _excerpt(loc: SourceLoc) -> list[str]:
    if not loc.file or loc.line <= 0:
        return []
    text = linecache.getline(loc.file, loc.line).rstrip("\n")
    if not text.strip():
        return []
    caret = " " * max(loc.col - 1, 0) + "^"
    return [text, caret]


def render(diagnostic: Diagnostic) -> str:
    """One diagnostic and its notes, each followed by its source line and a caret."""
    lines = [f"{diagnostic.loc}: {diagnostic.severity}: {diagnostic.message}"]
    lines += _excerpt(diagnostic.loc)
    for note in diagnostic.notes:
        lines.append(f"{note.loc}: {note.severity}: {note.message}")
        lines += _excerpt(note.loc)
    return "\n".join(lines)


class FrontendError(DiagnosticError):
    """A kernel the compiler refuses, reported at its Python lines (`str()` shows the source
    line and a caret under each diagnostic; `.diagnostics` has them as data)."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        super().__init__(diagnostics)
        self.args = ("\n".join(render(d) for d in self.diagnostics),)

    def __str__(self) -> str:
        return str(self.args[0])


def error_at(
    source: FunctionSource,
    node: ast.AST,
    message: str,
    notes: Iterable[tuple[ast.AST, str]] = (),
) -> FrontendError:
    """A ready-to-raise error at an AST node of `source`."""

    def at(n: ast.AST) -> SourceLoc:
        line, col = source.position(n)
        return SourceLoc(source.file, line, col)

    return FrontendError(
        [Diagnostic("error", message, at(node), [Diagnostic("note", m, at(n)) for n, m in notes])]
    )


def located(error: DiagnosticError) -> FrontendError:
    """A verifier's or compiler's diagnostics on frontend IR, shown at the Python lines."""
    if isinstance(error, FrontendError):
        return error
    return FrontendError(error.diagnostics)


def install_excepthook() -> None:
    """Show an uncaught `FrontendError` as what it is, the diagnostics at the Python lines,
    without a traceback through ferrox's frames (other exceptions keep the hook they had).
    Installed once, by the decorators' modules."""
    previous = sys.excepthook
    if getattr(previous, "_ferrox_frontend", False):
        return

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        if isinstance(error, FrontendError):
            print(str(error), file=sys.stderr)
            return
        previous(kind, error, tb)

    hook._ferrox_frontend = True  # type: ignore[attr-defined]
    sys.excepthook = hook
