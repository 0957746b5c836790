"""The tile bf16/f16 matmul (examples/tile/matmul_bf16.mlir's kernel) on the H200 beside cuBLAS
(`torch.matmul` on the same operands, 16-bit result) in the same process: 64 x 64 x 32 tiles
(`cp.async` + `mma.sync`, gemm.py), and 128 x 128, 256 x 128 and 128 x 256 (the example's own)
tiles with k 64, which sm_90 lowers to TMA + wgmma (gemm_wgmma.py); and the last's portable
twin (`@matmul_bf16__portable`, mma.sync), run directly. FLOP count 2 m n k.

    python -m benchmarks.tile_wgmma            # timing at 4096^3 and 8192^3, $OUT/tile_wgmma.json
    python -m benchmarks.tile_wgmma --small    # one small checked run (for compute-sanitizer)
    python -m benchmarks.tile_wgmma --ab 5     # AB_CONFIGS in 5 interleaved rounds, medians

The example writes an f32 C, where cuBLAS writes the inputs' 16-bit type: `--outs 16` times the
kernel with a 16-bit C as well (the f32 sums rounded once in registers, `out16`), `--outs
f32,16` both, in the same rounds against the same cuBLAS runs; `--elements bf16` leaves out
f16; `--small --outs 16` the sanitizer's runs with a 16-bit C.

Each kernel's result is checked against an f32 product of the same operands (relative error,
up to 1e-4, and 2^-8 more for a 16-bit C, its own rounding); `$OUT/tile_wgmma_<tiles>_<type>.ptx`
is its PTX (for `ptxas -v`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "tile" / "matmul_bf16.mlir"
TILES = ((64, 64, 32), (128, 128, 64), (256, 128, 64), (128, 256, 64))


def kernel_text(bm: int, bn: int, bk: int, element: str = "bf16", out16: bool = False) -> str:
    """The example's kernel (without its host program) with `[bm, bk] x [bk, bn]` tiles;
    `out16`: C in the inputs' 16-bit type, the f32 sums rounded once (`tile.astype`) and
    stored, as cuBLAS's C is."""
    text = EXAMPLE.read_text().split("func.func @main", 1)[0].rstrip() + "\n}\n"
    if out16:
        acc = "!tile.tile<f32, [128, 256]>"
        store = f"tile.store %acc, %c : {acc}, !tile.partition<f32, [128, 256]>"
        assert store in text
        rounded = "%out = tile.astype %acc : " + acc + " -> !tile.tile<bf16, [128, 256]>\n    "
        rounded += "tile.store %out, %c : !tile.tile<bf16, [128, 256]>, "
        rounded += "!tile.partition<bf16, [128, 256]>"
        text = text.replace(store, rounded)
        old = "%c: !tile.partition<f32, [128, 256]>"
        text = text.replace(old, old.replace("f32", "bf16"))
    # the example's C, A and B tiles ([128, 256], [128, 64], [64, 256]) and its k step (64)
    for old, new in (("[128, 256]", "<C>"), ("[128, 64]", "<A>"), ("[64, 256]", "<B>")):
        text = text.replace(old, new)
    text = text.replace("<C>", f"[{bm}, {bn}]").replace("<A>", f"[{bm}, {bk}]")
    text = text.replace("<B>", f"[{bk}, {bn}]")
    text = text.replace("%c64 = arith.constant 64", f"%c64 = arith.constant {bk}")
    return text.replace("bf16", element)


def _operands(torch, m: int, n: int, k: int, dtype, seed: int):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = (torch.rand(m, k, device="cuda", generator=g) - 0.5).to(dtype)
    b = (torch.rand(k, n, device="cuda", generator=g) - 0.5).to(dtype)
    return a, b


VARIANTS: dict[str, tuple[tuple[int, int, int], dict]] = {
    "4 stages, one block an SM": ((128, 128, 64), {"TWO_BLOCKS_ACCUMULATORS": 0}),
    "3 stages, 64-row slabs": ((128, 256, 64), {"MAX_STAGES": 3}),
}
"""Experiments beside the lowering's own choice (name: tiles and `gemm_wgmma` constants),
compiled without the cache:
- 128 x 128 x 64 with the stages as they were before 2026-12-05 (as many as fit 200 KiB: 4, one
  block an SM; the lowering now takes 2, so that two blocks fit an SM);
- 128 x 256 x 64 as it was before 2026-12-05's second session: 3 stages (loads 1 step ahead)
  beside a staging array of 64-row slabs; the lowering now cuts the slabs on the warpgroup bit
  too (32 rows), which leaves room for 4.
Measured and dropped on 2026-12-05 (H100, docs/performance.md): a wait for every group at each
K step (`PENDING = 0`, loads 3 steps ahead; 0.65-0.79 of cuBLAS), and the main loop's fence
without its proxy fence (TMA alone writes the stages; within the rounds' spread)."""


def _variant(tiles, element: str, settings: dict, out16: bool = False):
    """The kernel compiled with lowering constants set to `settings` (not cached, though the
    cache's key holds a flipped knob since 97fad72, lowering/knobs.py): `NAME` is
    `gemm_wgmma.NAME`, `module.NAME` that module's of `ferrox.lowering.tile_to_simt`
    (`gemm_specialized.WARP_SPECIALIZE`)."""
    import importlib

    import ferrox

    def where(name: str):
        module, _, attr = name.rpartition(".")
        package = "ferrox.lowering.tile_to_simt."
        return importlib.import_module(package + (module or "gemm_wgmma")), attr

    saved = {name: getattr(*where(name)) for name in settings}
    for name, value in settings.items():
        setattr(*where(name), value)
    try:
        return ferrox.compile(kernel_text(*tiles, element, out16), cache=False)
    finally:
        for name, value in saved.items():
            setattr(*where(name), value)


WS = {"gemm_specialized.WARP_SPECIALIZE": True}
AB_CONFIGS: tuple[tuple[str, tuple[int, int, int], dict], ...] = (
    ("default", (128, 256, 64), {}),
    ("warp-specialised", (128, 256, 64), WS),
    ("ws-pending-0", (128, 256, 64), {**WS, "gemm_specialized.CONSUMER_PENDING": 0}),
    ("ws-no-proxy-fence", (128, 256, 64), {**WS, "gemm_specialized.PROXY_FENCE": False}),
    ("ws-across-rounds", (128, 256, 64), {**WS, "gemm_specialized.ACROSS_ROUNDS": True}),
    ("3 stages", (128, 256, 64), {"MAX_STAGES": 3}),
    ("persistent", (128, 256, 64), {"PERSISTENT": True}),
    ("default", (256, 128, 64), {}),
    ("warp-specialised", (256, 128, 64), WS),
    ("persistent", (256, 128, 64), {"PERSISTENT": True}),
    ("default", (128, 128, 64), {}),
)
"""The A/B runs of `ab`: a single run of each kernel beside cuBLAS moved by a few points from
one run to the next (2026-12-05, H100), so the configurations take turns, round by round, each
round against its own cuBLAS time. `--configs` picks some by `config` name, or name and tiles
(`warp-specialised`, `default:128x256x64`). The warp-specialised schedule
(`gemm_specialized.py`): a producer warpgroup and `setmaxnreg`, no block barrier in the loop;
`ws-pending-0` retires each stage's group at once instead of once a round;
`ws-no-proxy-fence` fences each stage's products without `fence.proxy.async`;
`ws-across-rounds` keeps the round's last group in flight into the next round (no drain);
`persistent` (`gemm_wgmma.PERSISTENT`, lowering/tile_to_simt/persistent.py) launches
min(tiles, SMs) blocks, each looping over its tiles with the ring of stages running on across
them (the default schedule's; with `WARP_SPECIALIZE` on the persistent lowering does not apply,
so there is no `persistent-ws`)."""


def _picked(spec: str) -> list[tuple[str, tuple[int, int, int], dict]]:
    """The `AB_CONFIGS` that `spec` names (comma-separated `config` or `config:MxNxK`; empty:
    all)."""
    if not spec:
        return list(AB_CONFIGS)
    out = []
    for name, tiles, settings in AB_CONFIGS:
        label = f"{name}:{'x'.join(map(str, tiles))}"
        if any(want in (name, label) for want in spec.split(",")):
            out.append((name, tiles, settings))
    return out


OUT16_TOLERANCE = 2.0**-8
"""What a 16-bit C adds to the relative error it is checked with: its own rounding (bf16's unit
roundoff; f16's is smaller)."""


def _outs(outs: tuple[str, ...]) -> list[bool]:
    """`out16` for each of `outs` (`f32`, `16`)."""
    unknown = set(outs) - {"f32", "16"}
    if unknown:
        raise ValueError(f"unknown output {sorted(unknown)}: f32 or 16")
    return [o == "16" for o in outs]


def ab(
    rounds: int,
    sizes=(4096, 8192),
    elements=("bf16", "f16"),
    configs: str = "",
    outs: tuple[str, ...] = ("f32",),
) -> list[dict]:
    """Median over `rounds` of each `AB_CONFIGS` kernel (those `configs` names) 's ratio to
    cuBLAS, for each of `outs` (`f32`: the example's C; `16`: C in the inputs' type, as
    cuBLAS's), the kernels and cuBLAS taking turns (the order rotated each round); each result
    checked once."""
    import statistics

    import torch

    from benchmarks.common import bench, launcher

    picked = [(name, t, settings, o) for name, t, settings in _picked(configs) for o in _outs(outs)]
    out: list[dict] = []
    for element in elements:
        dtype = torch.bfloat16 if element == "bf16" else torch.float16
        arts = [_variant(t, element, settings, o) for _, t, settings, o in picked]
        for size in sizes:
            a, b = _operands(torch, size, size, size, dtype, size)
            cs = {o: torch.empty(size, size, device="cuda", dtype=dtype if o else None)
                  for o in {o for *_, o in picked}}  # fmt: skip
            ref = a.float() @ b.float()
            flops = 2 * size**3
            runs = [
                launcher(art, f"matmul_{element}", [cs[o], a, b])
                for art, (*_, o) in zip(arts, picked)
            ]
            errors = []
            for go, (*_, o) in zip(runs, picked):
                c = cs[o]
                c.fill_(float("nan"))
                go()
                torch.cuda.synchronize()
                errors.append(((c.float() - ref).abs().max() / ref.abs().max()).item())
            ratios: list[list[float]] = [[] for _ in runs]
            tflops: list[list[float]] = [[] for _ in runs]
            for r in range(rounds):
                order = list(range(len(runs)))
                order = order[r % len(order) :] + order[: r % len(order)]
                peer = bench(lambda a=a, b=b: a @ b)
                for i in order:
                    ms = bench(runs[i])
                    ratios[i].append(peer / ms)
                    tflops[i].append(flops / ms / 1e9)
            for (name, tiles, _, o), err, rs, ts in zip(picked, errors, ratios, tflops):
                tolerance = 1e-4 + (OUT16_TOLERANCE if o else 0.0)
                row = {"element": element, "size": size, "tiles": list(tiles), "config": name,
                       "out": element if o else "f32",
                       "max_rel_err": err, "correct": bool(err <= tolerance),
                       "ratio_median": statistics.median(rs), "ratio_min": min(rs),
                       "ratio_max": max(rs), "tflops_median": statistics.median(ts),
                       "rounds": rounds}  # fmt: skip
                out.append(row)
                print(json.dumps(row), flush=True)
    return out


def rows(sizes=(4096, 8192), elements=("bf16", "f16"), outs: tuple[str, ...] = ("f32",)):
    import torch

    import ferrox
    from benchmarks.common import bench, launcher
    from ferrox.targets.cache import portable_artifact

    out: list[dict] = []
    out_dir = Path(os.environ.get("OUT", "."))
    wanted = _outs(outs)
    for element in elements:
        dtype = torch.bfloat16 if element == "bf16" else torch.float16
        arts = {}
        for o in wanted:
            for tiles in TILES:
                art = ferrox.compile(kernel_text(*tiles, element, o))
                arts[tiles, o] = art
                label = f"{'x'.join(map(str, tiles))}_{element}{'_out16' if o else ''}"
                (out_dir / f"tile_wgmma_{label}.ptx").write_text(art.ptx)
        extra = {v: _variant(t, element, b) for v, (t, b) in VARIANTS.items()}
        for u, art in enumerate(extra.values()):
            (out_dir / f"tile_wgmma_variant{u}_{element}.ptx").write_text(art.ptx)
        for size in sizes:
            m = n = k = size
            a, b = _operands(torch, m, n, k, dtype, size)
            cs = {o: torch.empty(m, n, device="cuda", dtype=dtype if o else None) for o in wanted}
            cs[False] = cs.get(False, torch.empty(m, n, device="cuda"))
            ref = a.float() @ b.float()
            flops = 2 * m * n * k
            peer_ms = bench(lambda a=a, b=b: a @ b)
            name = f"matmul_{element}"
            runs = [(tiles, art, name, "", o) for (tiles, o), art in arts.items()]
            for o in wanted:
                twin = portable_artifact(arts[TILES[-1], o], name)  # compiled apart
                runs.append((TILES[-1], twin, f"{name}__portable", "", o))
            runs += [(VARIANTS[v][0], art, name, v.strip(), False) for v, art in extra.items()]
            for tiles, art, kernel, variant, o in runs:
                row = {"element": element, "tiles": list(tiles), "kernel": kernel, "size": size,
                       "variant": variant, "out": element if o else "f32",
                       "chip": art.chip, "cublas_ms": peer_ms,
                       "cublas_tflops": flops / peer_ms / 1e9}  # fmt: skip
                c = cs[o]
                try:
                    go = launcher(art, kernel, [c, a, b])
                    c.fill_(float("nan"))
                    go()
                    torch.cuda.synchronize()
                    err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
                    tolerance = 1e-4 + (OUT16_TOLERANCE if o else 0.0)
                    row.update(max_rel_err=err, correct=bool(err <= tolerance))
                    ms = bench(go)
                    row.update(ms=ms, tflops=flops / ms / 1e9, ratio=peer_ms / ms)
                except Exception as exc:  # record and go on
                    row["error"] = f"{type(exc).__name__}: {exc}"
                out.append(row)
                print(json.dumps(row), flush=True)
    return out


def small(out16: bool = False) -> int:
    """Checked small runs for compute-sanitizer: the 128 x 128 and 128 x 256 wgmma kernels
    (300 x 264 x 200, 300 x 280 x 200), the example's tiles on 200-byte rows (its portable
    twin), and the warp-specialised 128 x 256 and 256 x 128 kernels (`WS`); `out16`: each with
    a bf16 C (and the 256 x 128 default schedule's too)."""
    import numpy as np
    import torch

    import ferrox

    worst = 0.0
    cases = [
        ((128, 128, 64), (300, 264, 200), {}),
        ((128, 256, 64), (300, 280, 200), {}),  # 4 stages, the epilogue's slabs cut on warpgroups
        ((128, 256, 64), (300, 150, 100), {}),
        ((128, 256, 64), (300, 280, 200), WS),  # a producer warpgroup, mbarrier hand-offs
        ((256, 128, 64), (300, 264, 520), WS),
    ]
    if out16:
        cases.append(((256, 128, 64), (300, 264, 520), {}))
    for tiles, (m, n, k), settings in cases:
        if settings:
            source = _variant(tiles, "bf16", settings, out16)
        else:
            source = kernel_text(*tiles, out16=out16)
        kernel = ferrox.load(source, device="gpu")["matmul_bf16"]
        a, b = _operands(torch, m, n, k, torch.bfloat16, 7)
        dtype = torch.bfloat16 if out16 else torch.float32
        c = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
        kernel(c, a, b)  # k = 100: 200-byte rows, no TMA map: the portable twin runs
        torch.cuda.synchronize()
        x = a.float().cpu().numpy().astype(np.float64)
        y = b.float().cpu().numpy().astype(np.float64)
        exact = x @ y
        err = float(np.abs(c.float().cpu().numpy() - exact).max())
        if out16:  # relative to the largest magnitude, less the output's own rounding
            err = max(0.0, err / float(np.abs(exact).max()) - OUT16_TOLERANCE)
        worst = max(worst, err)
        label = (" warp-specialised" if settings else "") + (", bf16 C" if out16 else "")
        print(f"small tile bf16 matmul {tiles}{label} {m}x{k} @ {k}x{n}: max abs error {err:.3g}")
    return 0 if worst < 1e-3 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4096,8192")
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--ab", type=int, default=0, metavar="ROUNDS")
    parser.add_argument("--configs", default="", help="AB_CONFIGS to run (default: all)")
    parser.add_argument(
        "--outs", default="f32", help="C's types, comma-separated: f32, 16 (the inputs' type)"
    )
    parser.add_argument("--elements", default="bf16,f16", help="the inputs' types")
    args = parser.parse_args(argv)
    outs = tuple(args.outs.split(","))
    try:
        _outs(outs)
    except ValueError as problem:
        parser.error(str(problem))
    elements = tuple(args.elements.split(","))
    if args.small:
        return max(small(o) for o in _outs(outs))
    sizes = tuple(int(s) for s in args.sizes.split(","))
    if args.ab:
        result = ab(args.ab, sizes, elements, args.configs, outs)
        Path(os.environ.get("OUT", "."), "tile_wgmma_ab.json").write_text(json.dumps(result))
        return 0 if all(r["correct"] for r in result) else 1
    result = rows(sizes, elements, outs)
    Path(os.environ.get("OUT", "."), "tile_wgmma.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
