"""Artifacts of example files compiled once for the whole test run: several tests read the same
compile (its PTX, its kernels' artifacts), others run the example, and compiling the wgmma GEMM
alone takes seconds. Only for tests that read the artifact; a test of compiling itself (that
the caller's module is unchanged, what a stage gives) still compiles its own."""

from __future__ import annotations

import functools
from pathlib import Path

from ferrox.artifact import ModuleArtifact
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.cache import compile_cached
from ferrox.targets.ptx import device_chip
from ferrox.targets.toolchain import PtxasResult, run_ptxas


@functools.cache
def compiled(path: Path, chip: str, text: str | None = None) -> ModuleArtifact:
    """`path` (or `text`, named as `path`) compiled for `chip` at -O3 through the test run's
    kernel cache, under the key the host runner uses for the same file (the parsed module's
    text, the chip the module asks for): one compile for the whole run of the tests that read
    an example's artifact and of those that run it. Callers must not change the artifact they
    are given (each gets the same object)."""
    source = path.read_text() if text is None else text
    module = parse_module(make_context(), source, str(path))
    return compile_cached(module, chip=device_chip(module, chip))


@functools.cache
def assembled(ptx: str, chip: str) -> PtxasResult:
    """`run_ptxas(ptx, chip)` once per process for the same PTX (ptxas takes seconds on the wgmma
    GEMM, which three tests assemble); callers only read the result."""
    return run_ptxas(ptx, chip)
