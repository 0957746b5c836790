"""Matrix multiplies against cuBLAS (torch.matmul; TF32 off for f32) in the same process: the
tile examples `matmul_f32.mlir` (4096^3) and `matmul_bf16.mlir` (8192^3, bf16 in, f32 out) and
the SIMT example `sgemm_tiled.mlir` (4096^3). FLOP count 2 M N K. The kernels are another
part of issue 13's work; this module only measures them.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.common import compile_source, launcher
from benchmarks.reductions import kernel_only
from benchmarks.suite import measure

ROOT = Path(__file__).resolve().parent.parent


def rows(variants: bool = False) -> list[dict]:
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    out = []
    for label, path, name, size, dtype, track in (
        ("matmul f32, tile matmul_f32.mlir", "tile/matmul_f32.mlir", "matmul_f32", 4096,
         torch.float32, "tile"),
        ("SGEMM, SIMT sgemm_tiled.mlir", "simt/sgemm_tiled.mlir", "sgemm_tiled", 4096,
         torch.float32, "simt"),
        ("SGEMM, SIMT sgemm_micro.mlir (8x8 micro-tiles)", "simt/sgemm_micro.mlir",
         "sgemm_micro", 4096, torch.float32, "simt"),
        ("matmul bf16, tile matmul_bf16.mlir", "tile/matmul_bf16.mlir", "matmul_bf16", 8192,
         torch.bfloat16, "tile"),
    ):  # fmt: skip
        m = n = k = size
        a = torch.rand(m, k, device="cuda").to(dtype) - 0.5
        b = torch.rand(k, n, device="cuda").to(dtype) - 0.5
        c = torch.empty(m, n, device="cuda")
        ref = a.float() @ b.float()
        peer = lambda a=a, b=b: lambda: a @ b  # noqa: E731  (bf16: cuBLAS with a bf16 result)

        def make(path=path, name=name, a=a, b=b, c=c, m=m, n=n, k=k, track=track):
            artifact = compile_source(kernel_only(ROOT / "examples" / path))
            make.artifact = artifact  # type: ignore[attr-defined]
            if track == "tile":
                go = launcher(artifact, name, [c, a, b])
            else:
                grid = (
                    (-(-m // 128), -(-n // 128))  # one 128 x 128 tile of C a block
                    if name == "sgemm_micro"
                    else (-(-n // 16), -(-m // 16))
                )
                go = launcher(artifact, name, [a, b, c, m, n, k], grid=grid)
            c.fill_(float("nan"))
            go()
            torch.cuda.synchronize()
            return go

        def err(c=c, ref=ref) -> float:
            return ((c - ref).abs().max() / ref.abs().max()).item()

        out.append(
            measure(
                label,
                group="matmul",
                track=track,
                shape=f"{m}^3 {str(dtype).removeprefix('torch.')}",
                unit="TFLOP/s",
                bytes_moved=(m * k + k * n) * a.element_size() + 4 * m * n,
                flops=2 * m * n * k,
                ferrox=make,
                peers={"cuBLAS": peer},
                check=err,
                tolerance=1e-3,
            )
        )
        artifact = getattr(make, "artifact", None)
        if artifact is not None:
            out[-1]["kernel"], out[-1]["ptx"] = name, artifact.ptx
    return out


__all__ = ["rows"]
