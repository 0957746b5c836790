"""Fused attention forward (`examples/python/tile_attention.py`, bf16 q/k/v, f32 out) against
torch's `scaled_dot_product_attention` on the same bf16 tensors (FlashAttention's kernels on an
H200), full and causal, head dims 64 and 128 (issue 13 item 5: target 0.8 of SDPA).

FLOPs counted as FlashAttention's papers count them: 4 * heads * seq^2 * dim for full attention
(two matrix products), half of that when causal.

Part of `python -m benchmarks`; alone on a GPU host: `python benchmarks/attention.py`.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not __package__:  # run as a script: find the package `benchmarks` after the installed ferrox
    sys.path.append(str(ROOT))

from benchmarks.common import launcher, write_result  # noqa: E402
from benchmarks.suite import measure  # noqa: E402

EXAMPLE = ROOT / "examples" / "python" / "tile_attention.py"
BATCH, HEADS, SEQ = 4, 16, 4096
TILES = {64: (128, 64), 128: (128, 128)}
"""Query rows and keys a block (BM, BN) by head dim: the fastest measured on sm_90's wgmma path
(H100, 2026-12-06, docs/performance.md "Eighth session's GPU runs": d 64 128 x 64 0.68 of
SDPA, d 128 128 x 128 0.59; BM 256 was the mma.sync path's best for d 64)."""


SEQ_MAJOR = False
"""Whether the kernel table times the example writing its output as [seq, heads, D]
(`SEQ_MAJOR`: the grid's first axis walks one head's query blocks, which share its K and V in
L2) rather than [heads, seq, D]. Either way the example's grid order puts that axis on
blockIdx.x now; `HEADS_FIRST` below is the old order of the [heads, seq, D] layout."""

HEADS_FIRST = False
"""Whether the kernel table times the example with its grid's first axis over the heads
(`HEADS_FIRST`: the blocks resident at a time span every head's K and V, the order before
`tile.grid_order`) rather than one head's query blocks: the A/B of the grid order."""

CAUSAL_HEAVY_FIRST = True
"""Whether the causal rows time the example walking its query blocks heaviest first (the
example's `CAUSAL_HEAVY_FIRST`, its default: the query-block axis reversed, the blocks with the
most keys launched first) rather than first to last: the A/B of the reversal."""


def _in_layout(q, k, v, ref, seq_major: bool):
    """For [batch, heads, seq, D] inputs: a NaN-poisoned f32 output in the kernel's layout
    ([batch * heads, seq, D], or [seq, batch * heads, D] when `seq_major`), the kernel's
    arguments (that output, then q, k, v as [batch * heads, seq, D]) and SDPA's output `ref`
    in that layout."""
    import torch

    batch, heads, seq, dim = q.shape
    bh = batch * heads
    shape = (seq, bh, dim) if seq_major else (bh, seq, dim)
    o = torch.full(shape, float("nan"), device="cuda", dtype=torch.float32)
    ref = ref.float().reshape(bh, seq, dim)
    return (
        o,
        [o, *(t.view(bh, seq, dim) for t in (q, k, v))],
        ref.transpose(0, 1) if seq_major else ref,
    )


def example():
    spec = importlib.util.spec_from_file_location("tile_attention", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows(variants: bool = False) -> list[dict]:
    import torch
    import torch.nn.functional as F

    kernel = example().attention
    out = []
    for dim, causal in ((64, False), (64, True), (128, False), (128, True)):
        shape = (BATCH, HEADS, SEQ, dim)
        q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        sdpa_out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        o, flat, ref = _in_layout(q, k, v, sdpa_out, SEQ_MAJOR)
        bm, bn = TILES[dim]
        constants = {
            "D": dim,
            "CAUSAL": causal,
            "BM": bm,
            "BN": bn,
            "SEQ_MAJOR": SEQ_MAJOR,
            "HEADS_FIRST": HEADS_FIRST,
            "CAUSAL_HEAVY_FIRST": CAUSAL_HEAVY_FIRST,
        }

        def make(flat=flat, o=o, constants=constants):
            artifact = kernel.artifact("sm_90", **constants)
            make.artifact = artifact  # type: ignore[attr-defined]
            go = launcher(artifact, "attention", flat)
            o.fill_(float("nan"))
            go()
            torch.cuda.synchronize()
            return go

        def err(o=o, ref=ref) -> float:
            return (o - ref).abs().max().item()

        def sdpa(q=q, k=k, v=v, causal=causal):
            return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)

        flops = 4 * BATCH * HEADS * SEQ * SEQ * dim / (2 if causal else 1)
        row = measure(
            f"attention {'causal' if causal else 'full'} d{dim}, tile tile_attention.py",
            group="attention",
            track="tile",
            # causal in the shape: the suite shares a peer's time between rows of one shape, and
            # SDPA's causal kernel is another problem than its full one (the causal rows had
            # reused the full rows' SDPA time until 2026-12-04)
            shape=f"{BATCH}x{HEADS}x{SEQ}x{dim} bf16{' causal' if causal else ''}",
            unit="TFLOP/s",
            bytes_moved=2 * 3 * BATCH * HEADS * SEQ * dim + 4 * BATCH * HEADS * SEQ * dim,
            flops=flops,
            ferrox=make,
            peers={"torch sdpa": sdpa},
            check=err,
            tolerance=3e-2,  # bf16 probabilities before p @ v, as SDPA's kernels round them
            artifact=getattr(make, "artifact", None),
            kernel="attention",
        )
        if "ptx" not in row and getattr(make, "artifact", None) is not None:
            row["kernel"], row["ptx"] = "attention", make.artifact.ptx  # type: ignore[attr-defined]
        out.append(row)
    return out


VARIANTS = {
    "wgmma": "sm_90",
    "wgmma-sync": "sm_90",
    "wgmma-pipe": "sm_90",
    "wgmma-f55553c": "sm_90",
    "wgmma-cuts": "sm_90",
    "wgmma-tma": "sm_90",
    "wgmma-tma-pp": "sm_90",
    "wgmma-tma-pipe": "sm_90",
    "wgmma-tma-pipe-pp": "sm_90",
    "mma": "sm_80",
}
"""The kernel's paths by the chip it is compiled for: sm_90 takes wgmma where the loop fits
(lowering/tile_to_simt/attention_wgmma.py, as sm_90a; `wgmma` as the lowering chooses, every
knob at its default, `wgmma-sync` with its `PIPELINE` knob off, each product retired at once,
`wgmma-pipe` with it on, `wgmma-f55553c` synchronous with every knob off: main's kernel at
f55553c, `wgmma-cuts` synchronous with the ninth session's instruction cuts (`desc`, `rows`,
`imm`), `wgmma-tma` those with K and V loaded by TMA (lowering/tile_to_simt/attention_tma.py),
`wgmma-tma-pp` that with the two warpgroups taking turns at the products, `wgmma-tma-pipe` and
`wgmma-tma-pipe-pp` the pipelined loop on TMA stages, without and with turns), sm_80 keeps
mma.sync (its PTX, JIT-compiled by the driver for the GPU at hand), so all run in one process on
a Hopper GPU. A name may add knobs after colons, `NAME=0` or `NAME=1` of `KNOBS` or
`CONSTANTS` (`wgmma-cuts:rows=0`, `wgmma:recip=1`): one build per distinct set."""
KNOBS = {
    "pipe": ("ferrox.lowering.tile_to_simt.attention_wgmma", "PIPELINE"),
    "rows": ("ferrox.lowering.tile_to_simt.attention_wgmma", "STATIC_ROWS"),
    "desc": ("ferrox.lowering.simt_to_nvvm.wgmma", "STAGE_OFFSET_IN_ASM"),
    "imm": ("ferrox.lowering.simt_to_nvvm.pipeline", "IMMEDIATE_OFFSETS"),
    "tma": ("ferrox.lowering.tile_to_simt.attention_tma", "TMA"),
    "pp": ("ferrox.lowering.tile_to_simt.attention_tma", "PINGPONG"),
    "even": ("ferrox.lowering.tile_to_simt.attention_tma", "EVEN_WAITS"),
    "tmaq": ("ferrox.lowering.tile_to_simt.attention_tma", "TMA_Q"),
    "slabs": ("ferrox.lowering.tile_to_simt.exchange_slabs", "SLABS"),
}
"""The lowering's module-level knobs a variant may set, by short name (module, attribute):
`pipe` FlashAttention-3's overlap inside a warpgroup, `rows` the whole-tile K/V copies indexed
by the static head dim, `desc` a stage's wgmma B descriptor from its array's base with the
stage's offset added in the asm, `imm` constant copy offsets as `cp.async` immediates, `tma` the
K and V stages loaded by TMA on mbarriers, no block barrier in the loop, `pp` with `tma` and 256
threads, the warpgroups' turns at the products (named barriers), `even` with `pp` warpgroup 1's
lone sync after the loop (evens racecheck's count of waits), `tmaq` with `tma`, q loaded by
TMA too, overlapping the stages' first loads (off), `slabs=N` the output's staging in N slabs
of rows (1: whole; 2 takes d 64 at 64 x 64 to four blocks an SM). On by default since the
twelfth session: `tma`, and `pipe` on TMA stages only (`PIPELINE` None), `even`; the rest off."""
INT_KNOBS = frozenset({"slabs"})
"""The knobs that take a count, not 0 or 1."""
CONSTANTS = {"recip": "RECIPROCAL"}
"""The example's Constexpr switches a variant may set like a knob, by short name: `recip` the
output divided by its row sums as a reciprocal a row and a product an element (`RECIPROCAL`,
off)."""
_OFF = {k: False for k in KNOBS if k not in INT_KNOBS}
_CUTS = {"desc": True, "rows": True, "imm": True}
PRESETS = {
    "wgmma-sync": {"pipe": False},
    "wgmma-pipe": {"pipe": True},
    "wgmma-f55553c": _OFF,
    "wgmma-cuts": {**_OFF, **_CUTS},
    "wgmma-tma": {**_OFF, **_CUTS, "tma": True},
    "wgmma-tma-pp": {**_OFF, **_CUTS, "tma": True, "pp": True},
    "wgmma-tma-pipe": {**_OFF, **_CUTS, "tma": True, "pipe": True},
    "wgmma-tma-pipe-pp": {**_OFF, **_CUTS, "tma": True, "pipe": True, "pp": True},
}


def parse_variant(name: str) -> tuple[str, dict[str, int]]:
    """(base variant, knob settings) of `name` (`VARIANTS`, then `:knob=N` parts: 0 or 1 for
    a switch, a count for `INT_KNOBS`)."""
    base, *parts = name.split(":")
    if base not in VARIANTS:
        raise ValueError(f"unknown variant {base!r}: choose from {list(VARIANTS)}")
    knobs: dict[str, int] = dict(PRESETS.get(base, {}))
    for part in parts:
        key, _, value = part.partition("=")
        known = key in KNOBS or key in CONSTANTS
        if not known or not value.isdigit() or key not in INT_KNOBS and value not in ("0", "1"):
            names = [*KNOBS, *CONSTANTS]
            raise ValueError(f"bad knob {part!r} in {name!r}: NAME=0|1 (or N) of {names}")
        knobs[key] = int(value) if key in INT_KNOBS else value == "1"
    return base, knobs


def variant_artifact(kernel, variant: str, **constants):
    """The kernel compiled as `variant` (`VARIANTS`, `parse_variant`), its knobs set for the
    compile only (a flipped knob is part of the compile cache's key, `lowering/knobs.py`)."""
    base, knobs = parse_variant(variant)
    constants.update({CONSTANTS[k]: on for k, on in knobs.items() if k in CONSTANTS})
    knobs = {k: on for k, on in knobs.items() if k in KNOBS}
    if not knobs:
        return kernel.artifact(VARIANTS[base], **constants)
    import importlib

    import ferrox

    text = str(kernel.module(**constants))
    targets = {k: importlib.import_module(KNOBS[k][0]) for k in knobs}
    saved = {k: getattr(targets[k], KNOBS[k][1]) for k in knobs}
    try:
        for k, on in knobs.items():
            setattr(targets[k], KNOBS[k][1], on)
        return ferrox.compile(text, chip=VARIANTS[base])
    finally:
        for k, was in saved.items():
            setattr(targets[k], KNOBS[k][1], was)


def table(
    seqs: list[int],
    batch: int,
    heads: int,
    configs=((64, 128, 64), (128, 128, 128)),
    variants=("wgmma",),
    timed: bool = True,
    seq_major: bool = False,
    heads_first: bool = False,
    heavy_first: bool = True,
    causals: tuple[bool, ...] = (False, True),
) -> list[dict]:
    """One compact row per (head dim, tile shape, causal, seq, variant): the max error against
    SDPA's bf16 output (poisoned output first), ferrox's and SDPA's TFLOP/s (do_bench medians,
    SDPA timed once per shape) and their ratio. `configs` lists (dim, BM, BN), 0 for the
    example's default; `variants` names `VARIANTS`. `timed` False: one checked launch a row, no
    timing (for compute-sanitizer). `seq_major`: the output as [seq, batch * heads, D]
    (`SEQ_MAJOR`). `heads_first`: blockIdx.x walks the heads (`HEADS_FIRST`, the old grid
    order) rather than one head's query blocks. `heavy_first` False: causal query blocks walked
    first to last (`CAUSAL_HEAVY_FIRST`, the walk before the reversal). `causals`: which of
    full (False) and causal (True) to time."""
    import torch
    import torch.nn.functional as F

    from benchmarks.common import bench

    kernel = example().attention
    out = []
    print(f"{'case':<30} {'max err':>8} {'ferrox':>8} {'sdpa':>8} {'ratio':>6}", flush=True)
    for dim, bm, bn in configs:
        tiles = {k: v for k, v in (("BM", bm), ("BN", bn)) if v}
        for causal in causals:
            artifacts = {
                name: variant_artifact(
                    kernel,
                    name,
                    D=dim,
                    CAUSAL=causal,
                    SEQ_MAJOR=seq_major,
                    HEADS_FIRST=heads_first,
                    CAUSAL_HEAVY_FIRST=heavy_first,
                    **tiles,
                )
                for name in variants
            }
            for seq in seqs:
                shape = (batch, heads, seq, dim)
                q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in "qkv")
                sdpa_out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                peer = (
                    bench(
                        lambda q=q, k=k, v=v, c=causal: F.scaled_dot_product_attention(
                            q, k, v, is_causal=c
                        )
                    )
                    if timed
                    else float("nan")
                )
                for name, artifact in artifacts.items():
                    o, flat, ref = _in_layout(q, k, v, sdpa_out, seq_major)
                    go = launcher(artifact, "attention", flat)
                    go()
                    torch.cuda.synchronize()
                    err = (o - ref).abs().max().item()  # NaN (unwritten) compares as not close
                    ms = bench(go) if timed else float("nan")
                    flops = 4 * batch * heads * seq * seq * dim / (2 if causal else 1)
                    row = {
                        "variant": name,
                        "chip": artifact.chip,
                        "dim": dim,
                        "bm": bm,
                        "bn": bn,
                        "causal": causal,
                        "seq": seq,
                        "batch": batch,
                        "heads": heads,
                        "seq_major": seq_major,
                        "heads_first": heads_first,
                        "heavy_first": heavy_first,
                        "max_err": err,
                        "correct": bool(err <= 3e-2),
                        "ferrox_tflops": flops / ms / 1e9,
                        "sdpa_tflops": flops / peer / 1e9,
                        "ratio": peer / ms,
                    }
                    out.append(row)
                    _print_row(row, bool(tiles))
    return out


def _print_row(row: dict, tiles: bool) -> None:
    tag = f" {row['bm']}x{row['bn']}" if tiles else ""
    kind = "causal" if row["causal"] else "full"
    name = f"d{row['dim']}{tag} {kind} s{row['seq']} {row['variant']}"
    print(
        f"{name:<30} {row['max_err']:8.1e} {row['ferrox_tflops']:8.1f} "
        f"{row['sdpa_tflops']:8.1f} {row['ratio']:6.3f}" + ("" if row["correct"] else "  WRONG"),
        flush=True,
    )


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="attention against torch SDPA")
    parser.add_argument("--table", action="store_true", help="the compact table over --seqs")
    parser.add_argument("--seqs", default="1024,2048,4096")
    parser.add_argument("--batch", type=int, default=BATCH)
    parser.add_argument("--heads", type=int, default=HEADS)
    parser.add_argument(
        "--configs", default="64:128:64,128:128:128", help="DIM:BM:BN,... (0: default)"
    )
    parser.add_argument(
        "--variants",
        default="wgmma",
        help=f"paths to time beside SDPA, comma-separated, of {','.join(VARIANTS)}, each "
        f"with optional :KNOB=0|1 of {','.join([*KNOBS, *CONSTANTS])}",
    )
    parser.add_argument(
        "--seq-major", action="store_true", help="the output as [seq, heads, D] (SEQ_MAJOR)"
    )
    parser.add_argument(
        "--heads-first",
        action="store_true",
        help="blockIdx.x walks the heads (HEADS_FIRST: the grid order before tile.grid_order)",
    )
    parser.add_argument(
        "--causal-light-first",
        action="store_true",
        help="causal query blocks walked first to last (CAUSAL_HEAVY_FIRST=False: the walk "
        "before the reversal)",
    )
    parser.add_argument("--causal-only", action="store_true", help="time the causal rows only")
    parser.add_argument(
        "--untimed", action="store_true", help="one checked launch a row (compute-sanitizer)"
    )
    args = parser.parse_args()
    if args.table:
        seqs = [int(x) for x in args.seqs.split(",")]
        configs = [tuple(int(x) for x in c.split(":")) for c in args.configs.split(",")]
        variants = tuple(args.variants.split(","))
        for name in variants:
            try:
                parse_variant(name)
            except ValueError as problem:
                parser.error(str(problem))
        found = table(
            seqs,
            args.batch,
            args.heads,
            configs,
            variants,
            not args.untimed,
            args.seq_major,  # type: ignore[arg-type]
            args.heads_first,
            not args.causal_light_first,
            (True,) if args.causal_only else (False, True),
        )
        write_result("attention-table", {"rows": found})
    else:
        write_result("attention", {"rows": rows()})
