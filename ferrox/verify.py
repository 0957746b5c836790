"""Module verification that reports every failing op at its source location."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from ferrox.diagnostics import DiagnosticEngine, DiagnosticError


def verify_module(root: Operation) -> None:
    """Run each op's own verifier (not recursively) so that all failures are collected."""
    engine = DiagnosticEngine()
    for op in root.walk():
        try:
            op.verify(verify_nested_ops=False)
        except DiagnosticError as e:
            engine.diagnostics.extend(e.diagnostics)
        except VerifyException as e:
            # xDSL's constraint errors span lines ("operand 'x' ... does not verify:\n<why>").
            lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
            engine.error(op, " ".join(lines) if lines else type(e).__name__)
    engine.raise_if_errors()
