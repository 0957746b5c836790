"""Kernel memory: global buffers behind slice and pointer parameters, per-block shared arrays,
witnesses, and the bookkeeping that turns silent GPU races into errors.

Every access is range-checked by the op that makes it (a shared-slice load traps on the GPU
too; raw pointers and shared arrays are unchecked there, but the interpreter never reads wild).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Attribute

from ferrox.driver.interpreter.values import as_storage, poison, storage_dtype


class Buffer:
    """A flat run of elements: a global slice, a raw pointer's allocation, or a shared array."""

    __slots__ = ("array", "length", "read", "write", "name", "element", "owner", "shape")

    def __init__(
        self, array: np.ndarray, element: Attribute, name: str, shape: tuple[int, ...] | None = None
    ):
        flat = as_storage(array, element)
        self.array = flat
        self.length = flat.shape[0]
        self.element = element
        self.name = name
        self.shape = shape if shape is not None else (self.length,)
        self.owner: np.ndarray | None = None
        if flat.dtype.kind == "f":
            self.read = flat.__getitem__  # a NumPy scalar of the element's own width
        else:
            self.read = flat.item  # a Python int (signed view) or bool
        self.write = flat.__setitem__

    def __repr__(self) -> str:
        return f"<buffer {self.name}: {self.length} x {self.element}>"


def shared_buffer(element: Attribute, shape: tuple[int, ...], name: str) -> Buffer:
    """A block's static shared array, filled with poison: GPU shared memory starts undefined, and
    a kernel that reads before writing should show it."""
    dtype = storage_dtype(element)
    size = 1
    for d in shape:
        size *= d
    array = np.full(size, poison(dtype), dtype=dtype)
    return Buffer(array, element, name, shape)


class Witness:
    """A thread-index witness: its raw index and whether the thread's coordinates lie inside the
    index space (`col < stride`, first lane of a warp). It is in bounds of a slice of length
    `n` when `valid and raw < n`."""

    __slots__ = ("raw", "valid")

    def __init__(self, raw: int, valid: bool):
        self.raw = raw
        self.valid = valid

    def __repr__(self) -> str:
        return f"<witness {self.raw}{'' if self.valid else ' (outside its space)'}>"


@dataclass
class AtomicScopes:
    """Which blocks used each global element atomically, and which of them only at `scope cta`
    (atomic only within the block): a second block on the same element is a race."""

    blocks: dict[tuple[int, int], set[int]] = field(default_factory=dict)
    cta: dict[tuple[int, int], set[int]] = field(default_factory=dict)

    def record(self, buffer: Buffer, index: int, block: int, cta_scope: bool) -> int | None:
        """Note the access; return another block it races with, if any."""
        key = (id(buffer), index)
        users = self.blocks.setdefault(key, set())
        narrow = self.cta.setdefault(key, set())
        users.add(block)
        if cta_scope:
            narrow.add(block)
        others = (users if cta_scope else narrow) - {block}
        return min(others) if others else None
