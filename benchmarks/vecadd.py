"""vecadd on 2^28 f32 through ferrox, side by side with torch.add in the same process.

Reports bandwidth (3 x 4 bytes per element: two reads, one write) and the ratio to torch.add.
Run on a GPU host: `python benchmarks/vecadd.py [--log2n 28]`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench, write_result  # noqa: E402

KERNELS = {
    # example file, kernel, elements per thread, whether the length is a parameter
    "scalar": (ROOT / "examples" / "simt" / "vecadd.mlir", "vecadd", 1, False),
    "vec4": (ROOT / "examples" / "simt" / "vecadd_vec4.mlir", "vecadd_vec4", 4, True),
}


def main() -> None:
    import torch

    import ferrox
    from ferrox.driver.runtime.launcher import LoadedModule

    parser = argparse.ArgumentParser()
    parser.add_argument("--log2n", type=int, default=28)
    args = parser.parse_args()
    n = 1 << args.log2n
    a = torch.rand(n, device="cuda")
    b = torch.rand(n, device="cuda")
    c = torch.empty(n, device="cuda")
    nbytes = 3 * 4 * n
    stream = torch.cuda.current_stream().cuda_stream

    t_torch = bench(lambda: torch.add(a, b, out=c))
    result = {
        "device": torch.cuda.get_device_name(),
        "n": n,
        "torch_add_ms": t_torch,
        "torch_add_TBps": nbytes / t_torch / 1e9,
    }
    for label, (path, name, per_thread, takes_n) in KERNELS.items():
        if not path.exists():
            result[f"{label}_skipped"] = f"{path.name} not found"
            continue
        module = ferrox.load(path, device="gpu")
        checked = module[name]
        contract = checked.artifact.contract
        block = contract.block if contract is not None else (256, 1, 1)
        threads = -(-n // per_thread)
        grid = -(-threads // block[0])
        values = [a, b, c, n] if takes_n else [a, b, c]
        c.fill_(float("nan"))
        checked[grid](*values)  # the checked launch, on torch's current stream
        torch.cuda.synchronize()
        assert torch.equal(c, a + b), f"{label}: wrong result"
        # timed: the pre-packed fast path, as a framework would call it in a loop
        kernel = LoadedModule.load(module.artifact).kernel(name)
        packed = kernel.pack(values, stream=stream)
        t = bench(
            lambda k=kernel, g=grid, bl=block, p=packed: k.launch_packed(g, bl, p, stream=stream)
        )
        result[f"{label}_ms"] = t
        result[f"{label}_TBps"] = nbytes / t / 1e9
        result[f"{label}_ratio_to_torch"] = t_torch / t
    write_result("vecadd", result)


if __name__ == "__main__":
    main()
