"""What the host runner raises: located diagnostics, and a backend that cannot be used here.

Every failure while a host program runs is a `HostRunError` at the op that failed (a
`DiagnosticError`, so `ferrox run` prints it as `file:line:col: error: ...` with notes, never a
traceback). A failed `host.check` is not an error: it is reported and the program goes on.
"""

from __future__ import annotations

from collections.abc import Iterable

from ferrox.diagnostics import DiagnosticError, Where, make


class HostRunError(DiagnosticError):
    """A host program stopped at an op: a refused prepare or launch, a bad caller array, ..."""

    def __init__(
        self, where: Where, messages: str | Iterable[str], notes: Iterable[tuple[Where, str]] = ()
    ):
        texts = [messages] if isinstance(messages, str) else list(messages)
        notes = list(notes)
        diagnostics = [make("error", where, text) for text in texts]
        diagnostics[-1].notes.extend(make("note", w, m) for w, m in notes)
        self.messages = texts
        super().__init__(diagnostics)


class BackendUnavailable(RuntimeError):
    """The requested device cannot run programs here (no GPU, no driver, no llvmlite ...)."""
