"""Run host programs from Python: `run_program(path)`, with the checks' results.

    from ferrox.run_api import run_program
    result = run_program("examples/simt/vecadd.mlir", device="cpu", params={"n": 4096})
    assert result.ok, [c.line() for c in result.failed]

`arrays` are bound to `host.from_array N` by position: NumPy arrays are copied, PyTorch and CuPy
device arrays are used in place (on the GPU). `@main`'s returned tensors come back as NumPy
arrays in `result.outputs`. Any failure is a located `DiagnosticError`; asking for the GPU where
there is none is a `BackendUnavailable`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from xdsl.dialects.builtin import ModuleOp

from ferrox.driver.host_runner import RunResult, run_host_program, select_backend


def load_program(source: str | Path | ModuleOp) -> ModuleOp:
    """Parse and verify a host program: op verifiers, `verify-disjoint`, `verify-ownership`."""
    from ferrox.parser import parse_source, read_source
    from ferrox.passes.verify_disjoint import verify_disjoint
    from ferrox.passes.verify_ownership import VerifyOwnershipPass
    from ferrox.registry import make_context
    from ferrox.verify import verify_module

    if isinstance(source, ModuleOp):
        module = source
    else:
        # read_source: an unreadable file, and bytes that are not UTF-8 (with their offset),
        # are located diagnostics; parse_source: so is a parse error.
        text = read_source(Path(source), str(source))
        module = parse_source(make_context(), text, str(source))
    verify_module(module)
    verify_disjoint(module)
    VerifyOwnershipPass().apply(make_context(), module)
    return module


class _Stdout:
    """The default `out`: whatever `sys.stdout` is when `run_program` is called."""


_STDOUT = _Stdout()


def run_program(
    source: str | Path | ModuleOp,
    device: str = "auto",
    params: Mapping[str, Any] | None = None,
    arrays: Sequence[Any] | None = None,
    *,
    entry: str = "main",
    out: IO[str] | None | _Stdout = _STDOUT,
) -> RunResult:
    """Verify and run `@entry` of a host program on `device` (`auto`, `gpu` or `cpu`).

    Check lines go to `out`: by default `sys.stdout` as it is at the call (a redirection made
    after import is honoured), None for none."""
    if isinstance(out, _Stdout):
        out = sys.stdout
    module = load_program(source)
    backend, why_cpu = select_backend(device)
    result = run_host_program(
        module, backend, entry=entry, params=params, arrays=arrays or (), out=out
    )
    result.fallback = why_cpu
    return result


__all__ = ["RunResult", "load_program", "run_program"]
