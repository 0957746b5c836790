"""Compile a module: the `lower-to-llvm` chain on a copy, the LLVM export, NVPTX, and ptxas.

`compile_module` returns the typed `ModuleArtifact` (`ferrox/artifact.py`): the PTX, the cubin
when ptxas ran, and per kernel everything a launcher needs, read from the verified IR by
`kernel_facts` (never from the PTX).
"""

from __future__ import annotations

import dataclasses
import gc
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr

from ferrox.artifact import AbiSlot, KernelArtifact, ModuleArtifact
from ferrox.diagnostics import DiagnosticEngine, DiagnosticError
from ferrox.dialects import simt, tile
from ferrox.dialects.simt import KernelOp
from ferrox.lowering.pipeline import (
    COMPILE_STAGES,
    COMPILE_STAGES_CHECKED_BESIDE,
    ExtractDeviceCodePass,
    lower_to_llvm,
)
from ferrox.lowering.simt_to_nvvm.tma import artifact_maps
from ferrox.lowering.simt_to_nvvm.wgmma import check_target as check_wgmma_target
from ferrox.lowering.tile_to_simt.gemm_wgmma import target_chip
from ferrox.passes.disjoint.common import walk
from ferrox.passes.verify_disjoint import verify_disjoint
from ferrox.registry import plugin_lowerings
from ferrox.targets import kernel_facts
from ferrox.targets.ptx import CHIP_ATTR, device_chip, resolve_target, submit_module
from ferrox.targets.ptxas_job import start_ptxas
from ferrox.targets.timing import Timings, stage
from ferrox.targets.toolchain import FunctionResources, find_ptxas, run_ptxas
from ferrox.verify import verify_module


def _compute_capability(chip: str) -> int | None:
    m = re.fullmatch(r"sm_(\d+)[a-z]?", chip)
    return int(m.group(1)) if m else None


def _check_min_cc(module: ModuleOp, chip: str) -> None:
    cc = _compute_capability(chip)
    diag = DiagnosticEngine()
    for op in module.ops:
        if isinstance(op, KernelOp) and op.contract is not None and cc is not None:
            needed = op.contract.min_cc.data
            if needed > cc:
                diag.error(
                    op,
                    f"kernel @{op.sym_name.data} needs compute capability "
                    f"{needed // 10}.{needed % 10} (its contract's min_cc = {needed}), "
                    f"but the target is {chip}",
                )
    diag.raise_if_errors()


def compile_module(
    module: ModuleOp,
    *,
    chip: str | None = None,
    features: str | None = None,
    opt: int = 3,
    cubin: bool | None = None,
    ctx: Context | None = None,
    timings: Timings | None = None,
    verified: bool = True,
    rest: Callable[[], None] | None = None,
    ptx: bool = True,
    source: str | None = None,
    fresh: bool = False,
) -> ModuleArtifact:
    """The artifact of `module` (left unchanged; it must have passed the op verifiers, unless
    `verified` is False: see `_compile_unverified`; `rest` completes a module parsed in two
    parts, `ferrox.parse_deferred.parse_split`, and needs `verified=False`).

    `chip` and `features` default to the module's `ferrox.chip`/`ferrox.features` attributes,
    else `sm_90` and that chip's PTX version. `cubin`: True assembles one with ptxas (a
    `ToolchainError` without it), None does where ptxas is found, False never. Host code is not
    compiled, but stays in `source`. Raises a located `DiagnosticError` for anything unsafe or
    that cannot be compiled. `timings` gets each stage's time (each pass by its name, then
    `llvm-export`, `llvm` for NVPTX, `ptxas`, `artifact`, and `verify` when not `verified`,
    `parse-host` for `rest`).

    `ptx=False`: the artifact the CPU interpreter runs. The whole of ferrox's compile runs (the
    verifiers, every lowering and its refusals, down to the llvm dialect, and the entry's ABI
    check), but not LLVM's NVPTX code generation nor ptxas, whose output the interpreter never
    reads: the artifact's `ptx` is empty, it has no cubin, and a GPU refuses to load it.

    `source`: `str(module)`, where the caller has printed it already (the artifact's source
    text, printed once instead of twice).

    `fresh`: `module` is the parser's, as it made it, so that no op outside it uses its values
    (an op built and never inserted still counts as a use, and the copy the lowering works on
    has none): with `verified=False`, `verify-disjoint` then checks `module` itself while LLVM
    works, instead of the copy before the lowering (see `_compile_unverified`).
    """
    if source is not None and rest is not None:
        raise ValueError("the text of a module parsed in two parts is printed once it is whole")
    with _collector_paused():
        if verified:
            if rest is not None:
                raise ValueError("a module parsed in two parts is verified inside the compile")
            return _compile_module(
                module, chip, features, opt, cubin, ctx, timings, None, None, ptx, source
            )
        return _compile_unverified(
            module, chip, features, opt, cubin, ctx, timings, rest, ptx, source, fresh
        )


def _compile_unverified(
    module: ModuleOp,
    chip: str | None,
    features: str | None,
    opt: int,
    cubin: bool | None,
    ctx: Context | None,
    timings: Timings | None,
    rest: Callable[[], None] | None,
    ptx: bool = True,
    source: str | None = None,
    fresh: bool = False,
) -> ModuleArtifact:
    """`compile_module` of a module whose op verifiers have not run yet: they run while ptxas
    (else LLVM) works on the PTX, where this process would only wait, instead of before the
    lowering (a cache miss of `ferrox.compile`: a few percent of a SIMT kernel's compile).
    Likewise `rest`, the parse of the module's host code, runs while LLVM works, before
    anything reads the module's text; its errors come before the verifiers'. And for a `fresh`
    module `verify-disjoint`, the lowering's first stage otherwise, checks the module itself
    while LLVM works (after `rest`; a SIMT kernel's 0.2-1.1 ms less before LLVM): its errors
    come after the op verifiers', as when it runs first (a failing stage is followed by the
    verifiers, whose errors replace its own).

    The outcome is the same as verifying first. A module that fails them gets their located
    errors, whatever the lowering or the tools did with it meanwhile: on any failure of the
    compile the verifiers run (if they have not) and their errors replace it; a compile that
    succeeds returns only once they have passed. What an invalid module costs is a lowering
    (on a copy) and LLVM's work; its artifact is never returned."""
    pending = [rest is not None, True, fresh]  # host code parse, op verifiers, SIMT rules here
    unparsed: list[BaseException] = []  # what `rest` raised: it comes before everything else

    def complete() -> None:
        if unparsed:
            raise unparsed[0]
        if pending[0]:
            pending[0] = False
            assert rest is not None
            try:
                with stage(timings, "parse-host"):
                    rest()
            except BaseException as e:
                unparsed.append(e)
                raise

    def once(step: int, name: str, check: Callable[[ModuleOp], None]) -> None:
        if pending[step]:
            pending[step] = False
            with stage(timings, name):
                check(module)

    def safe() -> None:
        """The module made whole, then (a fresh one) `verify-disjoint` on it, once."""
        complete()
        once(2, "verify-disjoint", verify_disjoint)

    def verify() -> None:
        complete()
        once(1, "verify", verify_module)
        safe()

    try:
        artifact = _compile_module(
            module, chip, features, opt, cubin, ctx, timings, safe, verify, ptx, source, fresh
        )
    except Exception:
        try:
            verify()  # a mistake of the user's explains any failure: it is reported instead
        except DiagnosticError as mistake:
            raise mistake from None
        raise
    verify()  # (run already, unless nothing waited for ptxas or LLVM)
    return artifact


_paused = threading.local()
"""`active`: this thread's compile paused the collector (`_collector_paused`)."""


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic collector paused for one compile. A big kernel's lowering makes hundreds of
    thousands of short-lived IR objects, and the collector's passes over them were up to 14% of
    the compile's CPU (tile matmul_f32: 579 -> 500 ms); nothing a compile makes needs collecting
    before it ends. A process that turned the collector off itself keeps it off.

    Where it was paused here, the compile collects its own garbage while ptxas works
    (`_collect_beside`), where this process would otherwise only wait: left to the first
    collection after `gc.enable()`, that was at the end of the compile, on its path (tile
    softmax: about 4 ms, 10,900 objects; SIMT transpose 0.8 ms)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    _paused.active = True
    try:
        yield
    finally:
        _paused.active = False
        gc.enable()


def _collect_beside() -> None:
    """Collect the youngest generation, which holds every object made since the compile paused
    the collector (nothing was promoted meanwhile); nothing where this compile did not pause it
    (a process that turned the collector off has its reasons)."""
    if getattr(_paused, "active", False):
        gc.collect(0)


def _compile_module(
    module: ModuleOp,
    chip: str | None,
    features: str | None,
    opt: int,
    cubin: bool | None,
    ctx: Context | None,
    timings: Timings | None,
    complete: Callable[[], None] | None,
    meanwhile: Callable[[], None] | None,
    ptx: bool = True,
    printed: str | None = None,
    checked_beside: bool = False,
) -> ModuleArtifact:
    """`complete`: what makes `module` whole, done while LLVM works before its text is read;
    `meanwhile`: work to do while ptxas assembles the PTX (else while LLVM makes it), after the
    module's text is read; `printed`: that text, where the caller has it; `checked_beside`:
    `complete` runs `verify-disjoint` on `module`, so the lowering leaves it out."""
    chip, features = resolve_target(module, chip, features)
    chip = device_chip(module, chip)  # a module's opt-in to sm_90a holds on an sm_90 request
    chip = target_chip(module, chip)  # sm_90 tile GEMMs on wgmma (gemm_wgmma.py) need sm_90a
    _check_min_cc(module, chip)
    check_wgmma_target(module, chip)

    def source_text() -> str:  # the artifact's source: the caller's print of it, if any
        return str(module) if printed is None else printed

    with stage(timings, "clone"):
        lowered = module.clone()
    lowered.attributes[CHIP_ATTR] = StringAttr(chip)  # the tile lowering's target
    copy = [lowered]  # (emptied once it is garbage, for the collection beside ptxas)
    del lowered
    kernels: dict[str, KernelArtifact] = {}
    last = [time.perf_counter()]
    # The kernels' facts: read from `module` itself while LLVM works, where extracting the
    # device code changes no kernel (no tile kernel to lower, no plugin lowering); else from
    # the copy just after that stage.
    facts_beside = not (plugin_lowerings() or any(op.dialect_name() == "tile" for op in module.ops))
    stages = COMPILE_STAGES_CHECKED_BESIDE if checked_beside else COMPILE_STAGES

    extracted, read = [False], [not facts_beside]

    def snapshot(ran, current: ModuleOp, _following) -> None:
        now = time.perf_counter()
        if timings is not None and ran is not None:
            timings.add(ran.name, now - last[0])
        if isinstance(ran, ExtractDeviceCodePass):
            extracted[0] = True
            if not facts_beside:
                # The facts of the SIMT kernels (tile ones lowered), read before the next stage
                # lowers them: what a copy of the module here would give.
                with stage(timings, "artifact"):
                    kernels.update(kernel_artifacts(module, current))
        last[0] = time.perf_counter()

    def read_facts() -> None:
        if not read[0]:
            read[0] = True
            with stage(timings, "artifact"):
                kernels.update(kernel_artifacts(module, module))

    def lower() -> Callable[[], str] | None:
        """The lowering, and the PTX's wait where there is PTX to make. A stage that fails
        after the device code's extraction does so after the facts are read (what they raise
        comes first, as it did when they were read there)."""
        try:
            lower_to_llvm(copy[0], ctx, snapshot, stages)
            return submit_module(copy[0], chip, features, opt, timings) if ptx else None
        except Exception:
            if extracted[0]:
                read_facts()
            raise

    def facts() -> None:
        """The kernels' facts not read yet, and the check of their ABI against the entry;
        after `complete`, which checks the SIMT rules where the lowering did not."""
        read_facts()
        with stage(timings, "artifact"):
            _check_abi(kernels, copy[0])

    if not ptx:  # the interpreter's artifact: ferrox's whole compile, then no NVPTX, no ptxas
        lower()
        if complete is not None:
            complete()
        facts()
        with stage(timings, "artifact"):
            text = source_text()
        if meanwhile is not None:
            meanwhile()
        return ModuleArtifact(chip, features, opt, "", kernels, None, text)

    assemble = bool(cubin or (cubin is None and find_ptxas() is not None))
    # A ptxas started ahead, waiting for its input (ptxas_job.py), where it can be.
    job = start_ptxas(chip) if assemble else None
    try:
        wait_ptx = lower()
        assert wait_ptx is not None
        # The rest of the artifact (its source text) and `meanwhile` are done while ptxas works,
        # where a spare ptxas waits for the PTX, else while LLVM works; the module is made whole
        # (`complete`) while LLVM works. Each wait is then only what the other process has left.
        source: list[str] = []
        spent = [0.0]  # seconds spent on that work

        def beside() -> None:
            if source:
                return
            start = time.perf_counter()
            with stage(timings, "artifact"):
                source.append(source_text())
            if meanwhile is not None:
                meanwhile()
            spent[0] += time.perf_counter() - start

        failed: BaseException | None = None
        try:
            if complete is not None:
                complete()
            facts()
            if job is None:
                beside()
        except BaseException as e:  # raised once LLVM has answered (the worker waits for it)
            failed = e
        try:
            text = wait_ptx()
        except BaseException:
            if failed is None:
                raise
            # What failed meanwhile (the host code's parse, the verifiers) explains an invalid
            # module, whose IR LLVM may refuse too: it is the error, as it is when LLVM succeeds.
            raise failed from None
        if failed is not None:
            raise failed
        # The lowered copy is garbage from here (its facts are read and checked, and LLVM has
        # answered): let go, so that the collection beside ptxas frees it.
        copy.clear()
        del wait_ptx  # (its closure holds the copy too)

        def beside_then_collect() -> None:
            beside()
            start = time.perf_counter()
            with stage(timings, "collect"):
                _collect_beside()
            spent[0] += time.perf_counter() - start

        image = None
        if assemble:
            start, before = time.perf_counter(), spent[0]
            if job is not None:
                assembled = job.finish(text, beside_then_collect)
            else:
                assembled = run_ptxas(text, chip)
            if timings is not None:  # ptxas's stage: the wall time less the work done beside it
                timings.add("ptxas", time.perf_counter() - start - (spent[0] - before))
            image = assembled.cubin
            kernels = _with_resources(kernels, assembled.resources)
        beside()  # (done already, unless the early ptxas failed before its input was fed)
    finally:
        if job is not None:
            job.close()
    return ModuleArtifact(chip, features, opt, text, kernels, image, source[0])


def _with_resources(
    kernels: dict[str, KernelArtifact], resources: Mapping[str, FunctionResources]
) -> dict[str, KernelArtifact]:
    """Each contract's static shared memory as ptxas counts it (the lowering's own included)."""
    out = {}
    for name, k in kernels.items():
        if k.contract is not None and name in resources:
            shared = resources[name].shared_memory
            k = dataclasses.replace(
                k, contract=dataclasses.replace(k.contract, static_shared_bytes=shared)
            )
        out[name] = k
    return out


def kernel_artifacts(
    module: ModuleOp, device: ModuleOp, resources: Mapping[str, FunctionResources] | None = None
) -> dict[str, KernelArtifact]:
    """Each kernel's artifact: `module` is the caller's (tile kernels as written), `device` the
    same after `extract-device-code` (every kernel a verified SIMT kernel)."""
    funcs = {op.sym_name.data: op for op in device.ops if isinstance(op, simt.FuncOp)}
    tiles = {op.sym_name.data: op for op in module.ops if isinstance(op, tile.KernelOp)}
    for op in device.ops:  # a portable twin takes its tile kernel's parameters
        if isinstance(op, simt.KernelOp) and (of := kernel_facts.twin_of(op)) in tiles:
            tiles[op.sym_name.data] = tiles[of]
    kernels: dict[str, KernelArtifact] = {}
    for op in device.ops:
        if not isinstance(op, simt.KernelOp):
            continue
        name = op.sym_name.data
        shared = kernel_facts.static_shared_bytes(op, funcs)
        if resources and name in resources:
            shared = resources[name].shared_memory  # ptxas counts the lowering's own, too
        params = kernel_facts.simt_params(op)
        contract = kernel_facts.contract(op.contract, shared)
        ops = walk(op)  # one walk for the writes and the tensor maps
        writes = kernel_facts.writes(op, ops)
        # TMA loads' tensor maps (lowering/simt_to_nvvm/tma.py): a SIMT kernel's own, or the
        # tile wgmma GEMM's (lowering/tile_to_simt/gemm_wgmma.py)
        maps = artifact_maps(op, ops)
        if name in tiles:
            kernels[name] = KernelArtifact(
                name,
                kernel_facts.tile_params(tiles[name]),
                contract,
                writes,
                kernel_facts.tile_launch(op),
                params,
                maps,
            )
        else:
            kernels[name] = KernelArtifact(name, params, contract, writes, tensor_maps=maps)
    return kernels


_LLVM_SLOTS = {
    "!llvm.ptr<1>": AbiSlot.U64,
    "i64": AbiSlot.I64,
    "i32": AbiSlot.I32,
    "i16": AbiSlot.I16,
    "i8": AbiSlot.I8,
    "f16": AbiSlot.F16,
    "bf16": AbiSlot.BF16,
    "f32": AbiSlot.F32,
    "f64": AbiSlot.F64,
    "!llvm.ptr": AbiSlot.TENSOR_MAP,  # the only by-value (byval) kernel parameter
}


def _check_abi(kernels: Mapping[str, KernelArtifact], lowered: ModuleOp) -> None:
    """The PTX entry takes exactly the slots the artifact says (else a bug of ours)."""
    for op in lowered.ops:
        if isinstance(op, llvm.FuncOp) and op.sym_name.data in kernels:
            entry = tuple(_LLVM_SLOTS.get(str(t)) for t in op.function_type.inputs)
            expected = kernels[op.sym_name.data].abi
            if entry != expected:
                raise AssertionError(
                    f"internal error: @{op.sym_name.data}'s entry takes {entry}, but its "
                    f"artifact says {expected}"
                )


__all__ = [
    "compile_module",
    "kernel_artifacts",
]
