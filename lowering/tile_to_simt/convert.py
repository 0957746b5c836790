"""`convert-tile-to-simt`: every `tile.kernel` becomes a `simt.kernel` that the SIMT chain
lowers to PTX, and that `verify-disjoint` accepts.

Per kernel: choose the threads per tile block and the chunk width (`config.py`; the pass options
`threads` and `elems` override them), decide every tile value's layout (`assign.py`), build the
SIMT kernel's signature, contract and host attributes (`kernel.py`), and lower the body op by op
(one module per tile op family, mirroring `dialects/tile/`), refusing at the tile op a reduction,
mma or exchange whose barriers or shuffles would sit under divergent control flow
(`uniform.py`). The produced kernels are then
checked by `verify-disjoint`: the tile track's safety is the SIMT track's, so a lowering that
produced an unsafe kernel fails here rather than running.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from ferrox.diagnostics import DiagnosticError, error
from ferrox.dialects import simt, tile
from ferrox.dialects.simt.tma import TmaLoadOp
from ferrox.lowering.conversion import ConversionState
from ferrox.lowering.tile_to_simt import (  # noqa: F401  (each module registers its rules)
    creation,
    dynamic_shared,
    elementwise,
    grid,
    matrix,
    memory,
    persistent,
    reduction,
    shape,
    uniform,
)
from ferrox.lowering.tile_to_simt.assign import analyse
from ferrox.lowering.tile_to_simt.attention_wgmma import kernel_threads as attention_threads
from ferrox.lowering.tile_to_simt.config import Config, choose_threads, is_pow2
from ferrox.lowering.tile_to_simt.context import Lowering
from ferrox.lowering.tile_to_simt.control_flow import lower_op
from ferrox.lowering.tile_to_simt.gemm import fma_threads
from ferrox.lowering.tile_to_simt.gemm_wgmma import (
    accumulator_tile,
    kernel_threads,
    module_chip,
)
from ferrox.lowering.tile_to_simt.helpers import Helpers
from ferrox.lowering.tile_to_simt.kernel import (
    LOWERING_ATTR,
    PORTABLE_ATTR,
    PORTABLE_KEY,
    TWIN_OF_KEY,
    bind_params,
    kernel_tiles,
    new_kernel,
)
from ferrox.passes.disjoint.common import type_test, walk
from ferrox.passes.verify_disjoint import collect, verify_disjoint

REDUCTIONS = (tile.ReduceSumOp, tile.ReduceProdOp, tile.ReduceMaxOp, tile.ReduceMinOp)
"""A kernel with one of these takes fewer threads (`config.choose_threads`)."""


def lower_kernel(
    kernel: tile.KernelOp,
    threads: int,
    elems: int,
    state: ConversionState,
    helpers: Helpers | None = None,
    chip: str = "",
) -> simt.KernelOp | None:
    """The SIMT kernel for `kernel`, or None after reporting (in `state`) the first op that
    cannot be lowered. The device functions its calls name go into `helpers` (the caller
    inserts them into the module)."""
    threads = threads or default_threads(kernel, elems, chip)
    config = Config(threads, elems, chip, persistent.applies(kernel, chip))
    if (too_big := _too_big_for_registers(kernel, config.threads)) is not None:
        state.diagnostics.error(*too_big)
        return None
    simt_kernel, _ = new_kernel(kernel, config)
    ctx = Lowering(config, analyse(kernel, config), simt_kernel.body.blocks[0])
    if helpers is not None:
        ctx.helpers = helpers
    ctx.control = uniform.analyse(kernel, config.threads)
    bind_params(ctx, kernel, simt_kernel)
    if config.persistent:
        ctx.persistent = persistent.begin(ctx)
    for op in kernel.body.block.ops:
        try:
            if not state.attempt(op, partial(lower_op, ctx, op)):
                return None
        except uniform.Divergent as d:
            state.diagnostics.error(d.op, d.message, d.notes)
            return None
    dynamic_shared.place(simt_kernel, ctx.shared_bytes)
    return simt_kernel


def default_threads(kernel: tile.KernelOp, elems: int = 0, chip: str = "") -> int:
    """The threads a tile block of `kernel` gets where the pass names none: what its wgmma or
    fused attention loop needs (sm_90), else 16 x 8 accumulators a thread of a deep f32 GEMM
    loop where every tile fits those threads (`MAX_ELEMENTS_PER_THREAD`), else
    `config.choose_threads`."""
    reduces = any(isinstance(op, REDUCTIONS) for op in kernel.walk())
    if reduces and any(isinstance(op, tile.MmaOp) for op in kernel.walk()):
        reduces = False  # mma layouts are laid out for the usual count
    tiles = kernel_tiles(kernel)
    default = choose_threads(tiles, elems, reduces)
    fewer = fma_threads(kernel, default)  # deep f32 GEMM loops (`gemm.fma_threads`)
    if fewer and max(n for n, _, _ in tiles) > MAX_ELEMENTS_PER_THREAD * fewer:
        fewer = None  # another tile would not fit the fewer threads' registers
    # first: sm_90's wgmma loops and fused attention loops
    return kernel_threads(kernel, chip) or attention_threads(kernel, chip) or fewer or default


MAX_ELEMENTS_PER_THREAD = 256
"""A tile may spread at most this many elements over each thread of the block (a thread has 255
registers). The lowering emits each thread's elements one by one, so a bigger tile only makes
the compile run for minutes (a 4096 x 128 f32 tile) or, in effect, forever (a 16 x 2^31 one)."""


def _too_big_for_registers(kernel: tile.KernelOp, threads: int) -> tuple[Operation, str] | None:
    """The first tile or partition (its op, the message) that would hold more than
    MAX_ELEMENTS_PER_THREAD elements in each of the block's `threads` threads, if any."""
    for op in kernel.walk():
        values = list(op.results) + [a for r in op.regions for b in r.blocks for a in b.args]
        for v in values:
            t = v.type
            if not isinstance(t, tile.TileType | tile.PartitionType) or not t.get_shape():
                continue
            count = math.prod(t.get_shape())
            if -(-count // threads) > MAX_ELEMENTS_PER_THREAD:
                return op, (
                    f"cannot lower '{op.name}' to SIMT: its {t} of {count} elements spreads "
                    f"{-(-count // threads)} over each of the block's {threads} threads, more "
                    f"than the {MAX_ELEMENTS_PER_THREAD} a thread may hold; use smaller tiles"
                )
    return None


def convert_tile_to_simt(
    module: ModuleOp, threads: int = 0, elems: int = 0, chip: str = ""
) -> None:
    """Replace every tile kernel in `module` by its SIMT kernel; raise one `DiagnosticError`
    with every problem (bad options, ops that cannot be lowered, an unsafe result). `chip`: the
    target ("": the module's `"ferrox.chip"`, if any).

    A kernel whose loads go through TMA names its portable twin (`PORTABLE_KEY`), which is not
    made here: a module whose `PORTABLE_ATTR` names tile kernels is lowered to those kernels'
    twins alone, every other kernel dropped (the twin's own compile, when a launch needs it)."""
    chip = chip or module_chip(module)
    twins = portable_request(module)
    state = ConversionState("SIMT")
    diagnostics = state.diagnostics
    if threads and not (is_pow2(threads) and 32 <= threads <= 1024):
        raise _option_error(
            module, f"threads must be a power of two from 32 to 1024, got {threads}"
        )
    if elems and not (is_pow2(elems) and elems <= 16):
        raise _option_error(module, f"elems must be a power of two up to 16, got {elems}")
    lowered: list[simt.KernelOp | simt.FuncOp] = []
    # Helper names avoid every symbol the module has (a source may use any name).
    helpers = Helpers(names={op.sym_name.data for op in module.ops if _symbol(op)})
    first: Operation | None = None
    for op in list(module.walk()):
        if isinstance(op, tile.KernelOp):
            if twins is None:
                new = lower_kernel(op, threads, elems, state, helpers, chip)
                if new is not None and _uses_tma(new):
                    _name_twin(new, _twin_name(op, helpers))
            elif op.sym_name.data in twins:
                twin_threads = threads or _twin_threads(op, chip)
                new = _portable(op, twin_threads, elems, state, helpers)
            else:
                Rewriter.erase_op(op)  # (the twin's compile: the kernel itself is the other's)
                continue
            if new is None:
                continue
            Rewriter.replace_op(op, new)
            lowered.append(new)
            first = first or new
        elif twins is not None and isinstance(op, simt.KernelOp):
            Rewriter.erase_op(op)
    diagnostics.raise_if_errors()
    if first is not None:
        for fn in helpers.settle():
            name = fn.sym_name.data
            if SymbolTable.lookup_symbol(module, name) is not None:
                raise AssertionError(f"internal error: the module names @{name} already")
            Rewriter.insert_op(fn, InsertPoint.before(first))
            lowered.append(fn)
    seen: set[str] = set()
    for made in lowered:
        for d in collect(made):  # one report per tile op, however many SIMT ops it became
            if d.format() not in seen:
                seen.add(d.format())
                diagnostics.diagnostics.append(d)
    diagnostics.raise_if_errors()


PORTABLE_SUFFIX = "__portable"
"""The portable twin of kernel `@k` is `@k__portable` (or that with a number, if taken)."""


def portable_request(module: ModuleOp) -> frozenset[str] | None:
    """The tile kernels whose twins alone `module`'s lowering makes (`PORTABLE_ATTR`), or None
    (every kernel lowered itself)."""
    attr = module.attributes.get(PORTABLE_ATTR)
    if attr is None:
        return None
    names = attr.data if isinstance(attr, ArrayAttr) else ()
    if not names or not all(isinstance(n, StringAttr) for n in names):
        raise _option_error(
            module, f'"{PORTABLE_ATTR}" must be an array of tile kernel names, got {attr}'
        )
    return frozenset(n.data for n in names)


def _uses_tma(kernel: simt.KernelOp) -> bool:
    return any(map(_is_tma_load, walk(kernel)))


_is_tma_load = type_test(TmaLoadOp)


TWIN_ACCUMULATORS = 64
"""f32 accumulators a thread of the portable twin: its threads are the GEMM tile over this (a
128 x 256 tile: 512 threads, 128 registers, where the default 256 threads took 242 registers
and 1.4x the PTX, and 1.2 s more of the compile, for a path that only odd shapes take)."""


def _twin_threads(kernel: tile.KernelOp, chip: str) -> int:
    """The portable twin's threads: the default choice, or more where its GEMM tile would give
    a thread more than TWIN_ACCUMULATORS accumulators (0: the default)."""
    acc = accumulator_tile(kernel, chip)
    if acc is None:
        return 0
    wanted = acc[0] * acc[1] // TWIN_ACCUMULATORS
    default = choose_threads(kernel_tiles(kernel), 0, False)
    return min(1024, wanted) if wanted > default else 0


def _twin_name(kernel: tile.KernelOp, helpers: Helpers) -> str:
    """`@k__portable`, or that with a number where the module names it already; taken from
    then on. The same in both compiles of a module: its symbols and the twins named before
    decide it (the helper functions' `__ferrox_` names never end so)."""
    name = kernel.sym_name.data + PORTABLE_SUFFIX
    n = 1
    while name in helpers.names:
        n += 1
        name = f"{kernel.sym_name.data}{PORTABLE_SUFFIX}{n}"
    helpers.names.add(name)
    return name


def _name_twin(lowered: simt.KernelOp, name: str) -> None:
    """Name the portable twin in the TMA kernel's `tile.lowering` (`TileLaunch.portable`)."""
    attrs = dict(lowered.attributes[LOWERING_ATTR].data)  # type: ignore[attr-defined]
    attrs[PORTABLE_KEY] = StringAttr(name)
    lowered.attributes[LOWERING_ATTR] = DictionaryAttr(attrs)


def _portable(
    kernel: tile.KernelOp, threads: int, elems: int, state: ConversionState, helpers: Helpers
) -> simt.KernelOp | None:
    """The tile kernel lowered without TMA (`cp.async` + `mma.sync`), for the launches whose
    tensors no TMA map can describe (a row not a multiple of 16 bytes, an address not 16-byte
    aligned): the runtime launches this twin instead of refusing, and compiles it, apart, the
    first time a launch needs it (`targets.cache.portable_artifact`). Named as the TMA kernel
    names it (`_twin_name`), linked back to `kernel` (`TWIN_OF_KEY`). None after reporting
    (in `state`) what could not be lowered: such launches are refused, as without a twin."""
    twin = kernel.clone()
    twin.sym_name = StringAttr(_twin_name(kernel, helpers))
    made = lower_kernel(twin, threads, elems, state, helpers, chip="")
    if made is None:
        return None
    attrs = dict(made.attributes[LOWERING_ATTR].data)  # type: ignore[attr-defined]
    attrs[TWIN_OF_KEY] = kernel.sym_name
    made.attributes[LOWERING_ATTR] = DictionaryAttr(attrs)
    return made


def _symbol(op: Operation) -> bool:
    return isinstance(op.properties.get("sym_name"), StringAttr)


def _option_error(module: ModuleOp, message: str) -> DiagnosticError:
    return error(module, f"convert-tile-to-simt: {message}")


@dataclass(frozen=True)
class ConvertTileToSimtPass(ModulePass):
    """Lower tile kernels to SIMT kernels (`threads` per tile block, `elems` per chunk; 0: auto;
    `chip`: the target, else the module's `"ferrox.chip"`)."""

    name = "convert-tile-to-simt"

    threads: int = 0
    elems: int = 0
    chip: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # SIMT kernels beside the tile ones must be safe before anything is lowered: check the
        # verify-disjoint rules here too, so no composition of passes skips them.
        verify_disjoint(op)
        convert_tile_to_simt(op, self.threads, self.elems, self.chip)
