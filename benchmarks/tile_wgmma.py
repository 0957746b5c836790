"""The tile bf16/f16 matmul (examples/tile/matmul_bf16.mlir's kernel) on the H200 beside cuBLAS
(`torch.matmul` on the same operands, 16-bit result) in the same process: the example's own tiles
(64 x 64 x 32: `cp.async` + `mma.sync`, gemm.py) and 128 x 128, 256 x 128 and 128 x 256 tiles
with k 64, which sm_90 lowers to TMA + wgmma (gemm_wgmma.py). FLOP count 2 m n k.

    python -m benchmarks.tile_wgmma            # timing at 4096^3 and 8192^3, $OUT/tile_wgmma.json
    python -m benchmarks.tile_wgmma --small    # one small checked run (for compute-sanitizer)

Each kernel's result is checked against an f32 product of the same operands (relative error);
`$OUT/tile_wgmma_<tiles>_<type>.ptx` is its PTX (for `ptxas -v`).
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


def kernel_text(bm: int, bn: int, bk: int, element: str = "bf16") -> str:
    """The example's kernel (without its host program) with `[bm, bk] x [bk, bn]` tiles."""
    text = EXAMPLE.read_text().split("func.func @main", 1)[0].rstrip() + "\n}\n"
    text = text.replace("[64, 64]", f"[{bm}, {bn}]").replace("[64, 32]", f"[{bm}, {bk}]")
    text = text.replace("[32, 64]", f"[{bk}, {bn}]")
    text = text.replace("%c32 = arith.constant 32", f"%c32 = arith.constant {bk}")
    return text.replace("bf16", element)


def _operands(torch, m: int, n: int, k: int, dtype, seed: int):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = (torch.rand(m, k, device="cuda", generator=g) - 0.5).to(dtype)
    b = (torch.rand(k, n, device="cuda", generator=g) - 0.5).to(dtype)
    return a, b


def rows(sizes=(4096, 8192), elements=("bf16", "f16")) -> list[dict]:
    import torch

    import ferrox
    from benchmarks.common import bench, launcher

    out: list[dict] = []
    out_dir = Path(os.environ.get("OUT", "."))
    for element in elements:
        dtype = torch.bfloat16 if element == "bf16" else torch.float16
        arts = {}
        for tiles in TILES:
            art = ferrox.compile(kernel_text(*tiles, element))
            arts[tiles] = art
            (out_dir / f"tile_wgmma_{'x'.join(map(str, tiles))}_{element}.ptx").write_text(art.ptx)
        for size in sizes:
            m = n = k = size
            a, b = _operands(torch, m, n, k, dtype, size)
            c = torch.empty(m, n, device="cuda")
            ref = a.float() @ b.float()
            flops = 2 * m * n * k
            peer_ms = bench(lambda a=a, b=b: a @ b)
            for tiles, art in arts.items():
                row = {"element": element, "tiles": list(tiles), "size": size, "chip": art.chip,
                       "cublas_ms": peer_ms, "cublas_tflops": flops / peer_ms / 1e9}  # fmt: skip
                try:
                    go = launcher(art, f"matmul_{element}", [c, a, b])
                    c.fill_(float("nan"))
                    go()
                    torch.cuda.synchronize()
                    err = ((c - ref).abs().max() / ref.abs().max()).item()
                    row.update(max_rel_err=err, correct=bool(err <= 1e-4))
                    ms = bench(go)
                    row.update(ms=ms, tflops=flops / ms / 1e9, ratio=peer_ms / ms)
                except Exception as exc:  # record and go on
                    row["error"] = f"{type(exc).__name__}: {exc}"
                out.append(row)
                print(json.dumps(row), flush=True)
    return out


def small() -> int:
    """One checked 300 x 264 x 200 run of the wgmma kernel (bf16), for compute-sanitizer."""
    import numpy as np
    import torch

    import ferrox

    kernel = ferrox.load(kernel_text(128, 128, 64), device="gpu")["matmul_bf16"]
    m, n, k = 300, 264, 200
    a, b = _operands(torch, m, n, k, torch.bfloat16, 7)
    c = torch.full((m, n), float("nan"), device="cuda")
    kernel(c, a, b)
    torch.cuda.synchronize()
    x, y = a.float().cpu().numpy().astype(np.float64), b.float().cpu().numpy().astype(np.float64)
    err = np.abs(c.cpu().numpy() - x @ y).max()
    print(f"small tile wgmma matmul {m}x{k} @ {k}x{n}: max abs error {err:.3g}")
    return 0 if err < 1e-3 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4096,8192")
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args(argv)
    if args.small:
        return small()
    result = rows(tuple(int(s) for s in args.sizes.split(",")))
    Path(os.environ.get("OUT", "."), "tile_wgmma.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
