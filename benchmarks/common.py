"""Timing helpers shared by the benchmarks: CUDA-event medians on torch's current stream."""

from __future__ import annotations

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
