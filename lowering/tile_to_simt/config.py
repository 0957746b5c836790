"""The two numbers the lowering chooses per kernel: threads per tile block and chunk width.

- **Elements per thread** (`elems`, the chunk width `w`): each thread loads and stores runs of
  `w` consecutive elements. By default 16 bytes' worth (`16 // size`: 4 f32, 8 bf16), the
  widest access a thread can make in one instruction; the pass option sets it for every type.
  It is capped by the tile's last dimension, which a chunk may not cross.
- **Threads** (`threads`, `P`): by default one thread per chunk of the largest tile the kernel
  handles, clamped to 32 (a warp, the unit reductions shuffle in) .. 256 (enough to hide memory
  latency while leaving registers for tiles of a few thousand elements). A bigger tile gives each
  thread several chunks. A kernel with a reduction and no `mma` takes one thread per *two*
  chunks, clamped to 32 .. 512: fewer warps to combine across, two loads in flight a thread.
  Measured on the H200 (issue 13; docs/performance.md): row softmax [1, 4096] 3.94 TB/s at 256
  threads, 4.01 at 512; [1, 1024] 3.60 at 256, 4.08 at 128; [4, 1024] 3.96 at 256, 4.07 at 512;
  row sum [1, 1024] 3.60 at 256, 3.72 at 128. The default itself, timed against Triton in rounds
  (docs/performance.md, "Softmax and SGEMM (H4)"): softmax [1, 4096] 0.996, [1, 1024] 0.999-1.002,
  the best of the thread counts and rows per tile tried.

Both are powers of two; both are recorded on the produced kernel (`tile.lowering`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Attribute

MIN_THREADS = 32
MAX_THREADS = 256
REDUCTION_MAX_THREADS = 512
REDUCTION_CHUNKS_PER_THREAD = 2
VECTOR_BYTES = 16


def element_bytes(t: Attribute) -> int:
    """The size of one tile element in memory (i1 as a byte)."""
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    if isinstance(t, AnyFloat):
        return t.bitwidth // 8
    return 8  # index


def is_pow2(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def floor_pow2(n: int) -> int:
    return 1 << (max(1, n).bit_length() - 1)


@dataclass(frozen=True)
class Config:
    """The choices for one kernel: `threads` per block and the forced chunk width (0: auto),
    and the target `chip` ("": none named; `gemm_wgmma.py` takes sm_90's GEMM loops)."""

    threads: int
    elems: int = 0
    chip: str = ""
    persistent: bool = False
    """One loop over the tiles (`persistent.py`): the output's space is persistent."""

    def width(self, element: Attribute, last_dim: int) -> int:
        """The chunk width for tiles of `element` whose last dimension is `last_dim`."""
        w = self.elems or max(1, VECTOR_BYTES // element_bytes(element))
        return max(1, min(w, last_dim, 16))


def choose_threads(
    tiles: list[tuple[int, Attribute, int]], elems: int, reduction: bool = False
) -> int:
    """One thread per chunk of the largest tile, clamped; one per two chunks for a `reduction`
    kernel (module docstring). `tiles` lists (element count, element type, last dimension) of
    every tile in the kernel."""
    probe = Config(MAX_THREADS, elems)
    chunks = max((n // probe.width(e, last) for n, e, last in tiles), default=MIN_THREADS)
    if reduction:
        per = floor_pow2(chunks // REDUCTION_CHUNKS_PER_THREAD)
        return max(MIN_THREADS, min(REDUCTION_MAX_THREADS, per))
    return max(MIN_THREADS, min(MAX_THREADS, floor_pow2(chunks)))


__all__ = ["Config", "MAX_THREADS", "MIN_THREADS", "choose_threads", "element_bytes", "is_pow2"]
