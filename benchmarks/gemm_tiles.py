"""GEMM tile configurations of the tile lowering's pipelined main loop against cuBLAS
(torch.matmul; TF32 off for f32) in the same process: which tile shape gives the most TFLOP/s,
and each one's error against torch. Run on a GPU host: `python -m benchmarks.gemm_tiles`;
writes `$OUT/gemm_tiles.json`.

Timing: `benchmarks.common.bench` (Triton's do_bench median, L2 flushed), kernels launched on
torch's current stream. Error: max |C - ref| / max |ref|, ref = the f32 product of the same
inputs (cuBLAS, TF32 off).
"""

from __future__ import annotations

import sys
from pathlib import Path

from benchmarks.common import bench, compile_source, launcher, write_result

ROOT = Path(__file__).resolve().parent.parent
KERNEL = """builtin.module {
  tile.kernel @mm(%c: !tile.partition<f32, [BM, BN]>, %a: !tile.tensor<T, [?, ?]>,
                  %b: !tile.tensor<T, [?, ?]>) {
    %i = tile.block_id 0
    %j = tile.block_id 1
    %k = tile.dim %a, 1 : !tile.tensor<T, [?, ?]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ck = arith.constant BK : index
    %ktiles = arith.ceildivui %k, %ck : index
    %zero = tile.constant dense<0.0> : !tile.tile<f32, [BM, BN]>
    %acc = scf.for %kk = %c0 to %ktiles step %c1 iter_args(%sum = %zero)
        -> (!tile.tile<f32, [BM, BN]>) {
      %x = tile.load %a[%i, %kk] : !tile.tensor<T, [?, ?]> -> !tile.tile<T, [BM, BK]>
      %y = tile.load %b[%kk, %j] : !tile.tensor<T, [?, ?]> -> !tile.tile<T, [BK, BN]>
      %next = tile.mma %x, %y, %sum
          : !tile.tile<T, [BM, BK]>, !tile.tile<T, [BK, BN]>, !tile.tile<f32, [BM, BN]>
      scf.yield %next : !tile.tile<f32, [BM, BN]>
    }
    tile.store %acc, %c : !tile.tile<f32, [BM, BN]>, !tile.partition<f32, [BM, BN]>
    tile.return
  }
}
"""


def kernel(t: str, bm: int, bn: int, bk: int) -> str:
    text = KERNEL.replace("BM", str(bm)).replace("BN", str(bn)).replace("BK", str(bk))
    return text.replace("<T,", f"<{t},")


CONFIGS = {
    # (BM, BN, BK, threads per block; 0: the lowering's choice)
    "bf16": [
        (128, 128, 32, 0),
        (128, 256, 32, 0),
        (128, 128, 64, 0),
        (128, 256, 32, 512),
        (256, 128, 32, 512),
    ],
    # 128 x 128 x 16 is examples/tile/matmul_f32.mlir's tile (k-major x, 128 threads of 16 x 8:
    # it measured best, benchmarks/gemm_f32.py), 128 x 128 x 8, 128 x 64 x 16 and 64 x 64 x 32
    # its older ones (0 threads: the lowering's choice, 128 for the 128 x 128 tiles)
    "f32": [(128, 128, 16, 0), (128, 128, 8, 0), (128, 64, 16, 0), (64, 64, 32, 0)],
}
SIZES = {"bf16": [8192, 4096], "f32": [4096]}
SIMT = [("sgemm_micro", 128, 256), ("sgemm_tiled", 16, 0)]
"""The SIMT examples: (name, output tile side, threads: 256 a block, or 0 for 16 x 16)."""


def simt_example(name: str, side: int, threads: int, a, b, ref) -> dict:
    """The SIMT example `name` (examples/simt/) on the same inputs: TFLOP/s and error."""
    import torch

    from benchmarks.reductions import kernel_only

    m, k = a.shape
    n = b.shape[1]
    entry: dict = {"example": name}
    try:
        art = compile_source(kernel_only(ROOT / "examples" / "simt" / f"{name}.mlir"))
        c = torch.full((m, n), float("nan"), device="cuda")
        if threads:
            grid, block = (-(-m // side), -(-n // side)), (threads, 1, 1)
        else:
            grid, block = (-(-n // side), -(-m // side)), None
        go = launcher(art, name, [a, b, c, m, n, k], grid=grid, block=block)
        go()
        torch.cuda.synchronize()
        ms = bench(go)
        err = ((c - ref).abs().max() / ref.abs().max()).item()
        entry.update(ms=ms, tflops=2 * m * n * k / ms / 1e9, rel_err=err, ok=bool(err < 1e-4))
    except Exception as e:  # noqa: BLE001
        entry["error"] = f"{type(e).__name__}: {e}"[:500]
    return entry


def main(argv: list[str]) -> None:
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    types = argv or ["bf16", "f32"]
    rows = []
    for t in types:
        dtype = torch.bfloat16 if t == "bf16" else torch.float32
        for size in SIZES[t]:
            m = n = k = size
            torch.manual_seed(0)
            a = (torch.rand(m, k, device="cuda") - 0.5).to(dtype)
            b = (torch.rand(k, n, device="cuda") - 0.5).to(dtype)
            ref = a.float() @ b.float()
            peer_ms = bench(lambda a=a, b=b: a @ b)
            flops = 2 * m * n * k
            row = {"type": t, "size": size, "cublas_tflops": flops / peer_ms / 1e9, "configs": []}
            for bm, bn, bk, threads in CONFIGS[t]:
                entry = {"tile": [bm, bn, bk], "threads": threads}
                try:
                    art = compile_source(kernel(t, bm, bn, bk), threads=threads)
                    entry["threads"] = art["mm"].tile.threads
                    c = torch.full((m, n), float("nan"), device="cuda")
                    go = launcher(art, "mm", [c, a, b])
                    go()
                    torch.cuda.synchronize()
                    err = ((c - ref).abs().max() / ref.abs().max()).item()
                    ms = bench(go)
                    contract = art["mm"].contract
                    entry.update(
                        tflops=flops / ms / 1e9,
                        ratio=peer_ms / ms,
                        rel_err=err,
                        ok=bool(err < 1e-4),
                        shared_bytes=contract.shared_bytes + contract.static_shared_bytes,
                        pipelined="cp.async" in art.ptx,
                        ldmatrix="ldmatrix" in art.ptx,
                    )
                except Exception as e:  # noqa: BLE001  (a config that fails is reported, not fatal)
                    entry["error"] = f"{type(e).__name__}: {e}"[:500]
                print(t, size, entry, flush=True)
                row["configs"].append(entry)
            if t == "f32":
                row["simt"] = [simt_example(name, side, thr, a, b, ref) for name, side, thr in SIMT]
                row["simt_cublas_ms"] = peer_ms
                for e in row["simt"]:
                    e["ratio"] = peer_ms / e["ms"] if "ms" in e else None
                    print(t, size, e, flush=True)
            rows.append(row)
    write_result("gemm_tiles", {"rows": rows, "device": torch.cuda.get_device_name()})


if __name__ == "__main__":
    main(sys.argv[1:])
