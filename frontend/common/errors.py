"""Diagnostics at Python lines, printed by the one renderer every tool uses (rustc's shape).

The frontend's own refusals and the verifiers' diagnostics on frontend-made IR (whose ops carry
Python locations) are both a `FrontendError`: a `DiagnosticError` with the same diagnostics and
the same words as for MLIR input. Its text is `ferrox.diagnostics.render`'s, as `ferrox-opt`
prints an MLIR file's: the human form (`error[E0382]: use of moved value: witness`, `-->` and
the Python line with the span underlined, the notes as labels, `= help:`), or under
FERROX_ERROR_FORMAT=short one line each, `file.py:line:col: error[E0382]: message`. A rule has
the same code whichever way the kernel was written: the code comes from the message
(`ferrox/diagnostic_codes.py`), and the messages are the verifiers' own.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from types import TracebackType

from ferrox.diagnostics import Diagnostic, DiagnosticError, Severity, SourceLoc
from ferrox.diagnostics import render as render_diagnostics
from ferrox.frontend.common.source import FunctionSource


class UserError(Exception):
    """A mistake in the kernel found while building one node; the builder locates it there."""


def render(diagnostic: Diagnostic, fmt: str | None = None) -> str:
    """One diagnostic and its notes as the tools print them (`fmt`: human or short; default
    FERROX_ERROR_FORMAT, else human)."""
    return render_diagnostics([diagnostic], fmt)


class FrontendError(DiagnosticError):
    """A kernel the compiler refuses, reported at its Python lines. `str()` is the rendered
    form (see the module's docstring), chosen when it is asked for; `.diagnostics` has them
    as data, and each one's `format()` is the plain `file:line:col: error: message` line."""

    def __str__(self) -> str:
        return render_diagnostics(self.diagnostics)


def error_at(
    source: FunctionSource,
    node: ast.AST,
    message: str,
    notes: Iterable[tuple[ast.AST, str]] = (),
) -> FrontendError:
    """A ready-to-raise error at an AST node of `source`; the rendered span is the node's
    whole expression when it fits on its line (`a[i] + h[i]`, not only `a[i]`)."""

    def at(n: ast.AST, severity: Severity, text: str) -> Diagnostic:
        line, col = source.position(n)
        return Diagnostic(severity, text, SourceLoc(source.file, line, col), length=_length(n))

    main = at(node, "error", message)
    main.notes = [at(n, "note", m) for n, m in notes]
    return FrontendError([main])


def _length(node: ast.AST) -> int:
    """The node's width in characters when it is on one line, else 0 (the renderer's token)."""
    line, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
    start, stop = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
    if line is None or line != end or start is None or stop is None or stop <= start:
        return 0
    return stop - start


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
