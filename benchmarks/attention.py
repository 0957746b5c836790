"""Fused attention forward (`examples/python/tile_attention.py`, bf16 q/k/v, f32 out, or bf16
with the variant knob `obf16=1`, `CONSTANTS`) against torch's `scaled_dot_product_attention` on
the same bf16 tensors (FlashAttention's kernels on an H200; its output is bf16), full and
causal, head dims 64 and 128 (issue 13 item 5: target 0.8 of SDPA).

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
SHORT = 2048
"""Up to this many keys d 64 takes the BM 64 tile (`default_tile`)."""
DIMS = (64, 128)


def default_tile(dim: int, seq: int) -> tuple[int, int]:
    """Query rows and keys a block (BM, BN) by head dim and keys: the fastest measured on sm_90's
    wgmma path with the fourteenth session's defaults (q by TMA, the reciprocal epilogue, the
    output staged in 2 slabs; H100, 2026-12-07, docs/performance.md "Attention defaults,
    fourteenth session"). d 64: 64 x 64 up to `SHORT` keys (0.858-0.911 of SDPA at 1024 and 2048
    keys, full and causal, against 0.773-0.836 at 128 x 64: four blocks of one warpgroup an SM
    hide each other's prologue and epilogue), 128 x 64 beyond (full at 4096 keys 0.860 against
    64 x 64's 0.815; at 8192 0.860 / 0.859; causal would keep 64 x 64, 0.878 / 0.892 against
    0.850 / 0.872: one tile a length serves both, and the full case's loss is the larger;
    "Fourteenth session's GPU run"). d 128: 128 x 128 (0.713-0.950 at 1024-8192 keys; 128 x 64
    0.63-0.85).
    BM 256 was the mma.sync path's best for d 64."""
    if dim == 64:
        return (64, 64) if seq <= SHORT else (128, 64)
    return (128, 128)


def default_configs(seqs: list[int], dims=DIMS) -> list[tuple[int, int, int, tuple[int, ...]]]:
    """(dim, BM, BN, the seqs it serves) for `table`: each head dim's `default_tile` by length."""
    out: dict[tuple[int, int, int], list[int]] = {}
    for dim in dims:
        for seq in seqs:
            out.setdefault((dim, *default_tile(dim, seq)), []).append(seq)
    return [(*config, tuple(lengths)) for config, lengths in out.items()]


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


def _in_layout(q, k, v, ref, seq_major: bool, bf16_out: bool = False):
    """For [batch, heads, seq, D] inputs: a NaN-poisoned f32 output (bf16 with `bf16_out`, the
    example's `OUT_BF16`) in the kernel's layout ([batch * heads, seq, D], or
    [seq, batch * heads, D] when `seq_major`), the kernel's arguments (that output, then q, k,
    v as [batch * heads, seq, D]) and SDPA's output `ref` (f32) in that layout."""
    import torch

    batch, heads, seq, dim = q.shape
    bh = batch * heads
    shape = (seq, bh, dim) if seq_major else (bh, seq, dim)
    dtype = torch.bfloat16 if bf16_out else torch.float32
    o = torch.full(shape, float("nan"), device="cuda", dtype=dtype)
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
        bm, bn = default_tile(dim, SEQ)
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
`CONSTANTS` (`wgmma-cuts:rows=0`, `wgmma:recip=0`), or `NAME=N` of `INT_KNOBS`: one build per
distinct set."""
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
    "oslabs": ("ferrox.lowering.tile_to_simt.attention_wgmma", "OUTPUT_SLABS"),
    "pairs": ("ferrox.lowering.tile_to_simt.exchange_pairs", "PAIRS"),
}
"""The lowering's module-level knobs a variant may set, by short name (module, attribute):
`pipe` FlashAttention-3's overlap inside a warpgroup, `rows` the whole-tile K/V copies indexed
by the static head dim, `desc` a stage's wgmma B descriptor from its array's base with the
stage's offset added in the asm, `imm` constant copy offsets as `cp.async` immediates, `tma` the
K and V stages loaded by TMA on mbarriers, no block barrier in the loop, `pp` with `tma` and 256
threads, the warpgroups' turns at the products (named barriers), `even` with `pp` warpgroup 1's
lone sync after the loop (evens racecheck's count of waits), `tmaq` with `tma`, q loaded by
TMA too, overlapping the stages' first loads, `oslabs=N` the fused attention's output staging
in N slabs of rows (1: whole; 2 takes d 64 at 64 x 64 to four blocks an SM), `slabs=N` every
other exchange through shared memory in N slabs (1), `pairs` a bf16 output (`obf16=1`) staged
two halves a 32-bit word (`pairs=0`: a half at a time). On by default since the twelfth
session: `tma`, and `pipe` on TMA stages only (`PIPELINE` None), `even`; since the fourteenth
`tmaq` and `oslabs=2` (`tmaq=0:oslabs=1` and `recip=0`: the thirteenth session's kernel), and
`pairs`; the rest off."""
INT_KNOBS = frozenset({"slabs", "oslabs"})
"""The knobs that take a count, not 0 or 1."""
CONSTANTS = {"recip": "RECIPROCAL", "obf16": "OUT_BF16"}
"""The example's Constexpr switches a variant may set like a knob, by short name: `recip` the
output divided by its row sums as a reciprocal a row and a product an element (`RECIPROCAL`,
on since the fourteenth session; `recip=0`: the correctly rounded quotient); `obf16` the output
in bf16 (`OUT_BF16`, off by default), as SDPA's is: `wgmma,wgmma:obf16=1` times both beside
the same SDPA run (a bf16 output's check allows its own rounding, 2^-8 of SDPA's largest
magnitude, on top of `TOLERANCE`)."""
TOLERANCE = 3e-2
"""The largest difference from SDPA's output a row passes with (the bf16 probabilities before
p @ v, as SDPA's kernels round them)."""
_OFF = {**{k: False for k in KNOBS if k not in INT_KNOBS}, "oslabs": 1, "recip": False}
"""Every switch off: the presets of older kernels (before the fourteenth session's defaults)."""
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
    configs=None,
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
    example's default, each timed at every one of `seqs`, or (dim, BM, BN, seqs) at those only;
    None: `default_configs` (each head dim at its `default_tile` for each length). `variants`
    names `VARIANTS`. `timed` False: one checked launch a row, no timing, SDPA's reference
    computed on the CPU in f32 (for compute-sanitizer: the only kernels on the GPU are then
    ferrox's and torch's fills and reductions, none of cuDNN's). `seq_major`: the output as
    [seq, batch * heads, D] (`SEQ_MAJOR`). `heads_first`: blockIdx.x walks the heads
    (`HEADS_FIRST`, the old grid order) rather than one head's query blocks. `heavy_first`
    False: causal query blocks walked first to last (`CAUSAL_HEAVY_FIRST`, the walk before the
    reversal). `causals`: which of full (False) and causal (True) to time."""
    import torch
    import torch.nn.functional as F

    from benchmarks.common import bench

    kernel = example().attention
    out = []
    print(f"{'case':<30} {'max err':>8} {'ferrox':>8} {'sdpa':>8} {'ratio':>6}", flush=True)
    for dim, bm, bn, *only in default_configs(seqs) if configs is None else configs:
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
            for seq in only[0] if only else seqs:
                shape = (batch, heads, seq, dim)
                q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in "qkv")
                sdpa_out = _sdpa(q, k, v, causal, on_gpu=timed)
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
                    bf16_out = bool(parse_variant(name)[1].get("obf16"))
                    o, flat, ref = _in_layout(q, k, v, sdpa_out, seq_major, bf16_out)
                    go = launcher(artifact, "attention", flat)
                    go()
                    torch.cuda.synchronize()
                    # NaN (unwritten) compares as not close
                    err = (o.float() - ref).abs().max().item()
                    tolerance = TOLERANCE + (2.0**-8 * ref.abs().max().item() if bf16_out else 0)
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
                        "correct": bool(err <= tolerance),
                        "bf16_out": bf16_out,
                        "ferrox_tflops": flops / ms / 1e9,
                        "sdpa_tflops": flops / peer / 1e9,
                        "ratio": peer / ms,
                    }
                    out.append(row)
                    _print_row(row, bool(tiles))
    return out


def _sdpa(q, k, v, causal: bool, on_gpu: bool):
    """SDPA's output for q, k, v (on the GPU), computed there or, in f32, on the CPU."""
    import torch.nn.functional as F

    if on_gpu:
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    cpu = (t.float().cpu() for t in (q, k, v))
    return F.scaled_dot_product_attention(*cpu, is_causal=causal).to(q.device)


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
        "--configs",
        help="DIM:BM:BN,... (0: the example's default); without it each head dim at the "
        "measured default tile for each length (default_tile)",
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
    parser.add_argument("--full-only", action="store_true", help="time the full rows only")
    parser.add_argument(
        "--untimed",
        action="store_true",
        help="one checked launch a row, SDPA's reference on the CPU (compute-sanitizer)",
    )
    args = parser.parse_args()
    if args.table:
        seqs = [int(x) for x in args.seqs.split(",")]
        configs = (
            [tuple(int(x) for x in c.split(":")) for c in args.configs.split(",")]
            if args.configs
            else None
        )
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
            (True,) if args.causal_only else (False,) if args.full_only else (False, True),
        )
        write_result("attention-table", {"rows": found})
    else:
        write_result("attention", {"rows": rows()})
