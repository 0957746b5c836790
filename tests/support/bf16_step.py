"""The bf16 next to a bf16 value, for checks that must refuse a value just past a bound."""

from __future__ import annotations

import numpy as np


def bf16_step(value: float, up: bool) -> np.float32:
    """The bf16 next to `value` (a bf16, as float32) towards +inf (`up`) or -inf: one unit in
    bf16's 8-bit significand is 2**16 units of float32's bit pattern."""
    if value == 0:
        return np.float32(2.0**-133 if up else -(2.0**-133))  # the least bf16 subnormal
    bits = int(np.float32(value).view(np.uint32))
    bits += (1 << 16) if up == (value > 0) else -(1 << 16)
    return np.uint32(bits).view(np.float32)
