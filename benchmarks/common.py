"""Timing helpers shared by the benchmarks: CUDA-event medians on torch's current stream."""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
from collections.abc import Callable
from pathlib import Path


def bench(fn: Callable[[], None], warmup: int = 10, reps: int = 50) -> float:
    """Median milliseconds of `fn`, timed with CUDA events; L2 flushed between runs by Triton's
    `do_bench` when it is importable, else by hand."""
    import torch

    try:
        from triton.testing import do_bench

        return float(do_bench(fn, warmup=warmup * 5, rep=reps * 5, return_mode="median"))
    except ImportError:
        pass
    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def write_result(name: str, result: dict) -> None:
    out = Path(os.environ.get("OUT", "."))
    (out / f"{name}.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


# -- shared by `python -m benchmarks` -------------------------------------------------------------


def compile_source(source: str | Path, threads: int = 0, name: str = "kernel.mlir"):
    """The artifact of `source` (a path or IR text). `threads` > 0 lowers its tile kernels with
    that many threads per tile block (convert-tile-to-simt's option) before the usual pipeline,
    to compare the lowering's own choice with others; 0 compiles as `ferrox.compile` does."""
    import ferrox

    if not threads:
        return ferrox.compile(source)
    from ferrox.lowering.tile_to_simt.convert import ConvertTileToSimtPass
    from ferrox.parser import parse_module
    from ferrox.registry import make_context
    from ferrox.targets.compile import compile_module
    from ferrox.verify import verify_module

    text = source.read_text() if isinstance(source, Path) else source
    ctx = make_context()
    module = parse_module(ctx, text, name)
    verify_module(module)
    ConvertTileToSimtPass(threads=threads).apply(ctx, module)
    variant = compile_module(module)
    # The pre-lowered module's kernels are SIMT kernels to the artifact; the tile facts (how a
    # launch's arguments map to the lowered parameters, the grid) are the default compile's,
    # with this thread count.
    base = ferrox.compile(text)
    kernels = {}
    for kname, facts in base.kernels.items():
        lowered = variant[kname]
        assert facts.tile is not None and lowered.entry_params == facts.entry_params
        kernels[kname] = dataclasses.replace(
            facts,
            contract=lowered.contract,
            tile=dataclasses.replace(facts.tile, threads=threads),
        )
    return dataclasses.replace(variant, kernels=kernels)


def launcher(artifact, name: str, args: list, grid=None, block=None):
    """A zero-argument function that launches kernel `name` of `artifact` with `args` through
    the pre-packed fast path on torch's current stream, as a framework calls a kernel in a loop.

    For a tile kernel `args` are the tile kernel's arguments (tensors and scalars) and the SIMT
    arguments and grid follow the artifact's `TileLaunch` map; a SIMT kernel takes `args` as
    they are, with `grid` (and `block`, default the contract's)."""
    import torch

    from ferrox.driver.runtime.launcher import LoadedModule

    facts = artifact[name]
    tile = facts.tile
    if tile is not None:
        simt_args = [args[i] if d is None else args[i].shape[d] for i, d in tile.sources]
        shape = args[tile.grid_partition].shape
        tiles = tile.tile_counts(shape)
        sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
        dims = list(tile.launch_grid(tiles, sms))
        grid = tuple(dims + [1] * (3 - len(dims)))
        block = (tile.threads, 1, 1)
    else:
        simt_args = list(args)
        grid = tuple(grid) + (1,) * (3 - len(grid)) if isinstance(grid, tuple) else (grid, 1, 1)
        block = block or facts.contract.block
    shared = facts.contract.shared_bytes if facts.contract is not None else 0
    stream = torch.cuda.current_stream().cuda_stream
    kernel = LoadedModule.load(artifact).kernel(name)
    packed = kernel.pack(simt_args, stream=stream)

    def launch() -> None:
        kernel.launch_packed(grid, block, packed, shared_bytes=shared, stream=stream)

    return launch
