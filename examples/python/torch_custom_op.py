"""A ferrox kernel as a PyTorch custom operator: y = relu(a * x + b), eager and under
`torch.compile`, checked against torch on fresh random data.

    python examples/python/torch_custom_op.py [--device auto|gpu|cpu] [--n 100000]

Needs torch. On the GPU the operator launches the compiled kernel on CUDA tensors in place (on
torch's current stream); on the CPU it runs the kernel on the reference interpreter. Either way
the launch goes through ferrox's launch checker, and `torch.compile` traces the operator through
its fake implementation (the output's shape and dtype) without running it.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from ferrox import simt, torch_op
from ferrox.simt import DisjointSlice, Slice, f32


# doc:begin kernel
@simt.kernel(block=256, requires=["len(x) >= len(y)"])
def affine_relu(a: f32, x: Slice[f32], b: f32, y: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    y[w] = max(a * x[i] + b, 0.0)  # stored only where w is in bounds of y


def register() -> torch_op.TorchOp:
    """The operator takes the kernel's inputs (a, x, b) and returns its output y, which it
    allocates like x, poisoned with NaN; the same allocation on fake tensors is what
    torch.compile sees."""
    import torch

    return torch_op.custom_op(
        "ferrox_examples::affine_relu",
        affine_relu,
        grid=lambda a, x, b, y: -(-y.numel() // 256),
        outputs=lambda a, x, b: torch.full_like(x, float("nan")),
    )


# doc:end


def main(device: str = "auto", n: int = 100_000) -> int:
    if importlib.util.find_spec("torch") is None:
        print("torch_custom_op.py needs torch (pip install torch)", file=sys.stderr)
        return 2
    import torch

    affine_relu_op = register()

    if device == "auto":
        device = "gpu" if torch.cuda.is_available() else "cpu"
    where = "cuda" if device == "gpu" else "cpu"
    # doc:begin call
    x = torch.empty(n, device=where).uniform_(-1, 1)
    a, b = 1.5, -0.25
    expected = torch.relu(a * x + b)

    y = affine_relu_op(a, x, b)  # eager: a checked launch, y allocated by the operator
    assert y.device == x.device
    torch.testing.assert_close(y, expected)  # a NaN left in y fails here

    @torch.compile(fullgraph=True)
    def model(x: torch.Tensor) -> torch.Tensor:
        return affine_relu_op(a, x, b) * 2.0  # the custom op inside a compiled graph

    torch.testing.assert_close(model(x), expected * 2.0)
    # doc:end
    print(f"torch custom op affine_relu of {n} elements on {device}, eager and compiled: matches")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n))
