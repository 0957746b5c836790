"""One benchmark row: a ferrox kernel and its peers timed in the same process, as a dict that
goes into the results JSON as it is.

A row's `rate` is bytes moved per second (`unit` "TB/s") for memory-bound kernels, or FLOP per
second ("TFLOP/s") for matrix multiplies; `ratio` is the best peer's time over ferrox's (above
1: ferrox is faster). Every ferrox kernel is checked against a reference (`check` returns the
largest error, and the row fails when it is above `tolerance`) before it is timed; output
buffers are poisoned with NaN first. An exception in one row is recorded in the row (`error`),
so one broken kernel does not lose the rest of the run.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from benchmarks.common import bench

Launch = Callable[[], Any]


_PEER_TIMES: dict[tuple[str, str, str], float] = {}
"""Peer times by (group, shape, peer): rows that differ only in the ferrox variant share them."""


def _rate(unit: str, amount: float, ms: float) -> float:
    return amount / (ms * 1e-3) / 1e12


def measure(
    name: str,
    *,
    group: str,
    track: str,
    shape: str,
    unit: str,
    bytes_moved: float,
    flops: float,
    ferrox: Callable[[], Launch],
    peers: dict[str, Callable[[], Launch]],
    check: Callable[[], float] | None = None,
    tolerance: float = 0.0,
    artifact: Any = None,
    kernel: str = "",
    note: str = "",
) -> dict:
    """Time ferrox's launch and each peer's (each given as a factory, so that building one, a
    Triton compile say, that fails is recorded rather than fatal)."""
    amount = bytes_moved if unit == "TB/s" else flops
    row: dict[str, Any] = {
        "name": name,
        "group": group,
        "track": track,
        "shape": shape,
        "unit": unit,
        "bytes": bytes_moved,
        "flops": flops,
        "note": note,
        "peers": {},
    }
    if artifact is not None:
        row["kernel"] = kernel
        row["ptx"] = artifact.ptx
    try:
        launch = ferrox()
        if check is not None:
            err = check()
            row["max_err"] = err
            row["correct"] = bool(err <= tolerance)
        ms = bench(launch)
        row["ms"] = ms
        row["rate"] = _rate(unit, amount, ms)
    except Exception as exc:  # a benchmark records what broke and goes on
        row["error"] = f"{type(exc).__name__}: {exc}"
        row["traceback"] = traceback.format_exc(limit=6)
    for peer, make in peers.items():
        try:
            key = (group, shape, peer)
            if key not in _PEER_TIMES:
                _PEER_TIMES[key] = bench(make())
            pms = _PEER_TIMES[key]
            row["peers"][peer] = {"ms": pms, "rate": _rate(unit, amount, pms)}
        except Exception as exc:
            row["peers"][peer] = {"error": f"{type(exc).__name__}: {exc}"}
    timed = {p: v["ms"] for p, v in row["peers"].items() if "ms" in v}
    if timed and "ms" in row:
        best = min(timed, key=timed.__getitem__)
        row["best_peer"] = best
        row["ratio"] = timed[best] / row["ms"]
    print(one_line(row), flush=True)
    return row


def one_line(row: dict) -> str:
    if "error" in row:
        return f"{row['name']:<58} ERROR {row['error']}"
    peers = "  ".join(
        f"{p} {v['rate']:.2f}" if "rate" in v else f"{p} -" for p, v in row["peers"].items()
    )
    ratio = f"{row['ratio']:.2f}" if "ratio" in row else "-"
    ok = "" if row.get("correct", True) else "  WRONG"
    return f"{row['name']:<58} {row['rate']:8.2f} {row['unit']:<7} x{ratio:<5} ({peers}){ok}"


__all__ = ["measure", "one_line"]
