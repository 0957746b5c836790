"""Tile-track kernels against torch in the same process: vector add (2^28 f32) and row softmax
(16384 x 4096 f32), reported as bandwidth and as the ratio to torch's time.

The kernels are the tile examples, lowered by convert-tile-to-simt; softmax is recompiled with a
[1, 4096] tile so that one tile block holds a whole row (the example's own tile is [4, 1024]).
Run on a GPU host: `python benchmarks/tile.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench, write_result  # noqa: E402


def softmax_source(rows_per_tile: int, cols: int) -> str:
    text = (ROOT / "examples" / "tile" / "softmax.mlir").read_text()
    kernel = text.split("func.func @main", 1)[0].rstrip() + "\n}\n"
    return kernel.replace("[4, 1024]", f"[{rows_per_tile}, {cols}]").replace(
        "[4, 1]", f"[{rows_per_tile}, 1]"
    )


def main() -> None:
    import torch

    import ferrox
    from ferrox.driver.runtime.launcher import LoadedModule

    stream = torch.cuda.current_stream().cuda_stream
    result: dict = {"device": torch.cuda.get_device_name()}

    # vector add
    n = 1 << 28
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    z = torch.empty(n, device="cuda")
    module = ferrox.load(ROOT / "examples" / "tile" / "vector_add.mlir", device="gpu")
    z.fill_(float("nan"))
    module["vector_add"](z, x, y)  # checked; the grid from the output partition
    torch.cuda.synchronize()
    assert torch.equal(z, x + y), "tile vector add: wrong result"
    block = module.artifact["vector_add"].contract.block
    kernel = LoadedModule.load(module.artifact).kernel("vector_add")
    packed = kernel.pack([z, n, x, n, y, n], stream=stream)
    grid = (-(-n // 1024), 1, 1)
    t_torch = bench(lambda: torch.add(x, y, out=z))
    t = bench(lambda: kernel.launch_packed(grid, block, packed, stream=stream))
    nbytes = 12 * n
    result["vector_add"] = {
        "n": n,
        "torch_TBps": nbytes / t_torch / 1e9,
        "ferrox_TBps": nbytes / t / 1e9,
        "ratio_to_torch": t_torch / t,
        "threads_per_block": block[0],
    }

    # row softmax
    m, cols = 16384, 4096
    a = torch.randn(m, cols, device="cuda")
    out = torch.empty_like(a)
    module = ferrox.load(softmax_source(1, cols), device="gpu")
    out.fill_(float("nan"))
    module["softmax"](out, a)  # checked
    torch.cuda.synchronize()
    block = module.artifact["softmax"].contract.block
    kernel = LoadedModule.load(module.artifact).kernel("softmax")
    packed = kernel.pack([out, m, cols, a, m, cols], stream=stream)
    grid = (m, 1, 1)
    ref = torch.softmax(a, dim=1)
    err = (out - ref).abs().max().item()
    assert err < 1e-5, f"tile softmax: max abs error {err}"
    t_torch = bench(lambda: torch.softmax(a, dim=1))
    t = bench(lambda: kernel.launch_packed(grid, block, packed, stream=stream))
    nbytes = 8 * m * cols
    result["softmax"] = {
        "shape": [m, cols],
        "max_abs_err": err,
        "torch_TBps": nbytes / t_torch / 1e9,
        "ferrox_TBps": nbytes / t / 1e9,
        "ratio_to_torch": t_torch / t,
        "threads_per_block": block[0],
    }
    write_result("tile", result)


if __name__ == "__main__":
    main()
