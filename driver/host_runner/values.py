"""What host-program values are at run time: tensors, partitions, streams, prepared launches.

A `Tensor` is immutable once defined (docs/dialects/host.md, "Run-time model"): a launch that
writes it consumes it, and the value it gives back shares the old one's buffer, so `data` (a
NumPy array on the CPU, a `DeviceArray` on the GPU) is reused, never copied. Scalars are Python
ints (integers, `index`) and NumPy scalars of their width (floats), as in the SIMT interpreter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import Attribute

from ferrox.dialects.host import TensorType

Dim3 = tuple[int, int, int]


@dataclass(eq=False)
class Tensor:
    """A tensor value: its backend storage, element type, run-time shape and host dtype."""

    data: Any
    element_type: Attribute
    shape: tuple[int, ...]
    dtype: np.dtype

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def given_back(self) -> Tensor:
        """The new value a launch gives back: the same buffer under a new name."""
        return Tensor(self.data, self.element_type, self.shape, self.dtype)

    def __repr__(self) -> str:
        return f"<tensor {self.element_type} {list(self.shape)}>"


@dataclass(eq=False)
class Partition:
    """A tensor cut into tiles (a view: the same buffer); `grid` is the ceil-division."""

    tensor: Tensor
    tile: tuple[int, ...]

    @property
    def grid(self) -> tuple[int, ...]:
        return tuple(-(-s // t) for s, t in zip(self.tensor.shape, self.tile))


@dataclass(eq=False)
class Stream:
    """A `!host.stream`: the backend's queue and the launch ops enqueued since the last sync."""

    handle: Any
    pending: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class Prepared:
    """A `!host.prepared<@k>`: the checked configuration and each argument's shape or value.

    `signature[i]` is a tensor's shape (a tuple) or a scalar's value; a safe launch must pass
    arguments that agree with it, since those are what `requires` and coverage were checked on.
    """

    kernel: str
    grid: Dim3
    block: Dim3
    shared: int
    signature: tuple[Any, ...] = field(default=())


def arg_signature(value: Any) -> Any:
    """What `Prepared.signature` records for one argument."""
    return value.shape if isinstance(value, Tensor) else value


def resolve_shape(tensor_type: TensorType, sizes: Sequence[int]) -> tuple[int, ...]:
    """The run-time shape: each `?` takes the next size; a negative size is an error."""
    pending = iter(sizes)
    shape = []
    for d in tensor_type.get_shape():
        if d == DYNAMIC_INDEX:
            d = int(next(pending))
            if d < 0:
                raise ValueError(f"a tensor dimension cannot be negative, got {d}")
        shape.append(d)
    return tuple(shape)


def dim3(values: Sequence[int], what: str) -> Dim3:
    """(x, y, z) from 1 to 3 run-time sizes; every one must be at least 1."""
    dims = [int(v) for v in values]
    if any(d < 1 for d in dims):
        raise ValueError(f"{what} dimensions must be at least 1, got {tuple(dims)}")
    dims += [1] * (3 - len(dims))
    return dims[0], dims[1], dims[2]
