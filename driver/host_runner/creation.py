"""The creation ops' data, built in NumPy exactly as docs/dialects/host.md specifies.

Both backends build inputs here and only then copy them to where kernels run, so the CPU
interpreter and the GPU see bit-identical data from the same seed. Each `host.random` op has its
own generator, so the data do not depend on the order ops run in.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Attribute

from ferrox.dialects.host import Distribution
from ferrox.driver.host_runner.dtypes import cast, numpy_dtype


def zeros(shape: tuple[int, ...], element_type: Attribute) -> np.ndarray:
    return cast(np.zeros(shape), element_type)


def full(shape: tuple[int, ...], value, element_type: Attribute) -> np.ndarray:
    return cast(np.full(shape, value), element_type)


def arange(
    shape: tuple[int, ...], start: float, step: float, element_type: Attribute
) -> np.ndarray:
    size = int(np.prod(shape, dtype=np.int64))
    return cast((start + step * np.arange(size, dtype=np.float64)).reshape(shape), element_type)


def random(
    shape: tuple[int, ...],
    distribution: Distribution,
    low: float,
    high: float,
    seed: int,
    element_type: Attribute,
) -> np.ndarray:
    """`uniform(low, high)` or `normal(mean=low, std=high)`; integers floor (uniform) or round."""
    rng = np.random.default_rng(seed)
    integer = numpy_dtype(element_type).kind in "iub"
    if distribution is Distribution.UNIFORM:
        values = rng.uniform(low, high, size=shape)
        values = np.floor(values) if integer else values
    else:
        values = rng.normal(low, high, size=shape)
        values = np.rint(values) if integer else values
    return cast(values, element_type)


def poison(shape: tuple[int, ...], element_type: Attribute) -> np.ndarray:
    """NaN for floats, the largest value for integers, True for i1: what no kernel writes by
    luck."""
    dtype = numpy_dtype(element_type)
    if dtype.kind == "b":
        return np.ones(shape, dtype=dtype)
    if dtype.kind in "iu":
        return np.full(shape, np.iinfo(dtype).max, dtype=dtype)
    return cast(np.full(shape, np.nan), element_type)
