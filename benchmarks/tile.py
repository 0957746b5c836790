"""Tile-track elementwise and data-movement kernels against torch in the same process: vector
add (2^28 f32, `examples/tile/vector_add.mlir`) and transpose (16384^2 f32,
`examples/tile/transpose.mlir`, against `x.t().contiguous()`). Reductions and softmax are in
`reductions.py`.

Part of `python -m benchmarks`; alone, from the checkout's root on a GPU host:
`python -m benchmarks.tile`.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.common import compile_source, launcher, write_result
from benchmarks.reductions import kernel_only
from benchmarks.suite import measure

ROOT = Path(__file__).resolve().parent.parent

TILE = ROOT / "examples" / "tile"


def rows(variants: bool = False) -> list[dict]:
    import torch

    out = []
    n = 1 << 28
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    z = torch.empty(n, device="cuda")
    artifact = compile_source(kernel_only(TILE / "vector_add.mlir"))

    def make_add():
        go = launcher(artifact, "vector_add", [z, x, y])
        z.fill_(float("nan"))
        go()
        torch.cuda.synchronize()
        return go

    out.append(
        measure(
            "vector add, tile vector_add.mlir",
            group="vecadd",
            track="tile",
            shape="2^28 f32",
            unit="TB/s",
            bytes_moved=12 * n,
            flops=n,
            ferrox=make_add,
            peers={"torch": lambda: lambda: torch.add(x, y, out=z)},
            check=lambda: (z - (x + y)).abs().max().item(),
            artifact=artifact,
            kernel="vector_add",
        )
    )

    m = 16384
    a = torch.rand(m, m, device="cuda")
    t = torch.empty(m, m, device="cuda")
    artifact = compile_source(kernel_only(TILE / "transpose.mlir"))

    def make_transpose():
        go = launcher(artifact, "transpose", [t, a])
        t.fill_(float("nan"))
        go()
        torch.cuda.synchronize()
        return go

    out.append(
        measure(
            "transpose, tile transpose.mlir",
            group="transpose",
            track="tile",
            shape=f"{m}x{m} f32",
            unit="TB/s",
            bytes_moved=8 * m * m,
            flops=0,
            ferrox=make_transpose,
            peers={"torch": lambda: lambda: a.t().contiguous()},
            check=lambda: (t - a.t()).abs().max().item(),
            artifact=artifact,
            kernel="transpose",
        )
    )
    return out


def main() -> None:
    results = rows()
    write_result("tile", {"rows": [{k: v for k, v in r.items() if k != "ptx"} for r in results]})


if __name__ == "__main__":
    main()
