"""How a tile's elements sit in the threads of a block: a layout maps bits to bits.

Tile dimensions and the block's thread count `P` are powers of two, so an element's row-major
flat index has `n = log2(prod(shape))` bits and a thread index `log2(P)` bits. A layout says,
for each bit of a thread's **register number** and each bit of its **thread index** (its
`lane` bits, thread bit 0 lowest), which element bit it sets:

    element(t, r) = sum(bit_i(r) << regs[i]) + sum(bit_q(t) << lanes[q])

Every element bit is set by exactly one register or thread bit. A thread bit that sets none
(`None`) means threads that differ in it hold the same elements (a *replicated* tile: the
result of a reduction, a small tile over many threads); a register bit that sets none means
registers that differ in it hold the same element (only in the layouts a broadcast asks of its
source). Elementwise ops work register by register in one layout. Changing layouts is free
when both give every thread the same elements (`lanes` equal: only registers are renamed), else
it goes through shared memory (`exchange.py`).

The layouts the lowering picks:
- `chunked(shape, P, w)`: thread `t`'s register `j + w*k` holds flat element `(k*P + t)*w + j`,
  exactly what `simt.tile_index` gives chunk `k` of thread `t`: loads and stores of `w`
  consecutive elements (16 bytes for `w*size = 16`), consecutive threads on consecutive chunks
  (coalesced). Where the tile has fewer than `P*w` elements the high thread bits are replicated.
- `replicated(shape, P)`: every thread holds every element (rank 0 and tiny tiles).
- transposes, reshapes and permutes rename element bits (`relabel`), reductions drop the axis'
  bits (`reduction.py`), `mma` uses a 2-D blocked layout (`matrix.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import prod


def log2(n: int) -> int:
    assert n >= 1 and n & (n - 1) == 0, f"{n} is not a power of two"
    return n.bit_length() - 1


def dim_offsets(shape: Sequence[int]) -> list[int]:
    """The lowest flat-index bit of each dimension (row-major: the last dimension is lowest)."""
    offsets = [0] * len(shape)
    acc = 0
    for d in reversed(range(len(shape))):
        offsets[d] = acc
        acc += log2(shape[d])
    return offsets


def bit_owner(shape: Sequence[int], bit: int) -> tuple[int, int]:
    """(dimension, bit within that dimension) of a flat-index bit."""
    for d, off in enumerate(dim_offsets(shape)):
        if off <= bit < off + log2(shape[d]):
            return d, bit - off
    raise ValueError(f"bit {bit} is outside a tile of shape {list(shape)}")


Bits = tuple[int | None, ...]


@dataclass(frozen=True)
class Layout:
    """Which element each register of each thread holds (module docstring)."""

    shape: tuple[int, ...]
    threads: int
    regs: Bits
    lanes: Bits

    def __post_init__(self) -> None:
        assert len(self.lanes) == log2(self.threads)
        used = [b for b in (*self.regs, *self.lanes) if b is not None]
        assert sorted(used) == list(range(self.bits)), f"layout does not cover {self.shape}: {self}"

    @property
    def bits(self) -> int:
        return sum(log2(d) for d in self.shape)

    @property
    def num_elements(self) -> int:
        return prod(self.shape)

    @property
    def num_regs(self) -> int:
        return 1 << len(self.regs)

    def static_element(self, r: int) -> int:
        """The part of register `r`'s flat element index set by register bits."""
        return sum(1 << b for i, b in enumerate(self.regs) if b is not None and r >> i & 1)

    def distinct_regs(self) -> list[int]:
        """The registers that are not duplicates (every duplicate register bit is 0)."""
        dup = sum(1 << i for i, b in enumerate(self.regs) if b is None)
        return [r for r in range(self.num_regs) if not r & dup]

    @property
    def replica_mask(self) -> int:
        """The thread bits along which the tile is replicated."""
        return sum(1 << q for q, b in enumerate(self.lanes) if b is None)

    @property
    def spread(self) -> int:
        """How many thread bits carry elements (more: more threads share the work)."""
        return sum(1 for b in self.lanes if b is not None)

    def chunk_width(self) -> int:
        """The number of consecutive elements the low registers hold (a vector access)."""
        m = 0
        while m < len(self.regs) and self.regs[m] == m:
            m += 1
        last = log2(self.shape[-1]) if self.shape else 0
        return 1 << min(m, last)

    def register_of(self, element_bits: int) -> int:
        """The register holding the element whose register-set bits are `element_bits`."""
        return sum(
            1 << i for i, b in enumerate(self.regs) if b is not None and element_bits >> b & 1
        )

    def with_shape(self, shape: Sequence[int]) -> Layout:
        """The same bits for a tile of another shape with as many elements (a reshape)."""
        return Layout(tuple(shape), self.threads, self.regs, self.lanes)

    def relabel(self, shape: Sequence[int], new_bit: Callable[[int], int | None]) -> Layout:
        """Every element bit renamed by `new_bit` (a transpose, a broadcast's source view)."""
        regs = tuple(None if b is None else new_bit(b) for b in self.regs)
        lanes = tuple(None if b is None else new_bit(b) for b in self.lanes)
        return Layout(tuple(shape), self.threads, regs, lanes)

    def __str__(self) -> str:
        def show(bits: Bits) -> str:
            return "[" + ", ".join("-" if b is None else str(b) for b in bits) + "]"

        regs, lanes = show(self.regs), show(self.lanes)
        return f"layout<{list(self.shape)}, threads {self.threads}, regs {regs}, lanes {lanes}>"


def assign(
    shape: Sequence[int], threads: int, reg_order: Sequence[int], lane_order: Sequence[int]
) -> Layout:
    """Register bits take `reg_order`'s element bits, thread bits `lane_order`'s, in order; thread
    bits left over are replicated."""
    p = log2(threads)
    lanes = tuple(lane_order[q] if q < len(lane_order) else None for q in range(p))
    assert len(lane_order) <= p
    return Layout(tuple(shape), threads, tuple(reg_order), lanes)


def chunked(shape: Sequence[int], threads: int, width: int) -> Layout:
    """Chunks of `width` consecutive elements, chunk `k*P + t` in thread `t` (module docstring)."""
    n = sum(log2(d) for d in shape)
    last = log2(shape[-1]) if shape else 0
    lw = min(log2(width), last)
    p = log2(threads)
    lane_bits = list(range(lw, min(n, lw + p)))
    reg_bits = list(range(lw)) + list(range(lw + p, n))
    return assign(shape, threads, reg_bits, lane_bits)


def replicated(shape: Sequence[int], threads: int) -> Layout:
    """Every thread holds every element."""
    n = sum(log2(d) for d in shape)
    return assign(shape, threads, list(range(n)), [])


def same_elements(a: Layout, b: Layout) -> bool:
    """Whether each thread holds the same elements in both, so converting renames registers."""
    return a.shape == b.shape and a.lanes == b.lanes


__all__ = [
    "Layout",
    "assign",
    "bit_owner",
    "chunked",
    "dim_offsets",
    "log2",
    "replicated",
    "same_elements",
]
