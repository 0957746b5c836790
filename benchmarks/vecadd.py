"""vecadd on 2^28 f32 through ferrox, beside torch.add (and CuPy) in the same process.

Bandwidth counts 3 x 4 bytes per element (two reads, one write). Part of `python -m benchmarks`;
alone, from the checkout's root on a GPU host:
`python -m benchmarks.vecadd [--log2n 28]` (a module of the package: xDSL installs another
top-level `benchmarks`, so the root must come first, as `-m` puts it).
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from benchmarks.common import compile_source, launcher, write_result
from benchmarks.suite import measure

ROOT = Path(__file__).resolve().parent.parent

KERNELS = {
    # example file, kernel, elements per thread, whether the length is a parameter
    "scalar": (ROOT / "examples" / "simt" / "vecadd.mlir", "vecadd", 1, False),
    "vec4": (ROOT / "examples" / "simt" / "vecadd_vec4.mlir", "vecadd_vec4", 4, True),
}


def rows(variants: bool = False, log2n: int = 28) -> list[dict]:
    import torch

    n = 1 << log2n
    a = torch.rand(n, device="cuda")
    b = torch.rand(n, device="cuda")
    c = torch.empty(n, device="cuda")
    peers: dict = {"torch": lambda: lambda: torch.add(a, b, out=c)}
    if importlib.util.find_spec("cupy") is not None:

        def cupy_add():
            import cupy

            ca, cb, cc = cupy.asarray(a), cupy.asarray(b), cupy.asarray(c)
            return lambda: cupy.add(ca, cb, out=cc)

        peers["cupy"] = cupy_add
    out = []
    for path, name, per_thread, takes_n in KERNELS.values():
        artifact = compile_source(path)
        block = artifact[name].contract.block
        threads = -(-n // per_thread)
        grid = -(-threads // block[0])
        values = [a, b, c, n] if takes_n else [a, b, c]

        def make(artifact=artifact, name=name, grid=grid, values=values):
            go = launcher(artifact, name, values, grid=grid)
            c.fill_(float("nan"))
            go()
            torch.cuda.synchronize()
            return go

        def err() -> float:
            return (c - (a + b)).abs().max().item()

        out.append(
            measure(
                f"vecadd, SIMT {path.stem}",
                group="vecadd",
                track="simt",
                shape=f"2^{log2n} f32",
                unit="TB/s",
                bytes_moved=12 * n,
                flops=n,
                ferrox=make,
                peers=peers,
                check=err,
                artifact=artifact,
                kernel=name,
                note=f"{per_thread} f32 a thread",
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log2n", type=int, default=28)
    args = parser.parse_args()
    results = rows(log2n=args.log2n)
    write_result("vecadd", {"rows": [{k: v for k, v in r.items() if k != "ptx"} for r in results]})


if __name__ == "__main__":
    main()
