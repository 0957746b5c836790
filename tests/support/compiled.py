"""Artifacts of example files compiled once for the whole test run: several tests read the same
compile (its PTX, its kernels' artifacts), others run the example, and compiling the wgmma GEMM
alone takes seconds. Only for tests that read the artifact; a test of compiling itself (that
the caller's module is unchanged, what a stage gives) still compiles its own.

Also ptxas's answers for PTX already assembled in this process: a compile runs ptxas on its
PTX (`targets/ptxas_job.py`), and a test that then asks ptxas about the same PTX (its spills,
its registers) reads that run's answer through `assembled` instead of running ptxas again
(a second to three a tensor-core kernel)."""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from pathlib import Path

from parsed_once import parse_once

from ferrox.artifact import ModuleArtifact
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
    module = parse_once(make_context(), source, str(path))
    return compile_cached(module, chip=device_chip(module, chip))


def assembled(ptx: str, chip: str) -> PtxasResult:
    """`run_ptxas(ptx, chip)` once per process for the same PTX, where a compile of this process
    (or an earlier call) assembled it already (ptxas takes seconds on the wgmma GEMM, which
    several tests assemble); callers only read the result."""
    key = _key(ptx, chip)
    result = _ASSEMBLED.get(key)
    if result is None:
        result = run_ptxas(ptx, chip)
        _remember(key, result)
    return result


_ASSEMBLED: OrderedDict[tuple[str, str], PtxasResult] = OrderedDict()
"""The latest ptxas answers of this process, by the PTX's digest and the chip."""
_KEPT = 48  # a test asks right after its compile: the latest few dozen are plenty


def _key(ptx: str, chip: str) -> tuple[str, str]:
    return hashlib.blake2b(ptx.encode(), digest_size=16).hexdigest(), chip


def _remember(key: tuple[str, str], result: PtxasResult) -> None:
    _ASSEMBLED[key] = result
    _ASSEMBLED.move_to_end(key)
    while len(_ASSEMBLED) > _KEPT:
        _ASSEMBLED.popitem(last=False)


def remember_compiles_ptxas() -> None:
    """From now on in this process, each compile's own ptxas run (`PtxasJob.finish`: the same
    ptxas, arguments and text as `run_ptxas(ptx, chip)`, which its tests check byte for byte) is
    kept for `assembled`. Only recorded: what the compile gets back is unchanged, and tests that
    call `run_ptxas` or a job themselves still run ptxas."""
    from ferrox.targets import ptxas_job

    finish = ptxas_job.PtxasJob.finish
    if getattr(finish, "remembered", False):
        return

    def remembered_finish(job, ptx, meanwhile=None):
        result = finish(job, ptx, meanwhile)
        _remember(_key(ptx, job.chip), result)
        return result

    remembered_finish.remembered = True  # type: ignore[attr-defined]
    ptxas_job.PtxasJob.finish = remembered_finish  # type: ignore[method-assign]
