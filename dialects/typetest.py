"""Tests of an object's class, answered once per class.

`isinstance` against xDSL's op and attribute classes goes through `ABCMeta.__instancecheck__`,
about a microsecond each; the lowerings, the checks and the kernel facts ask such questions of
every op of a module. The answer depends on the object's class alone, so it is kept per class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def class_test(decide: Callable[[Any], bool]) -> Callable[[object], bool]:
    """`lambda x: decide(type(x))`, remembered per type of `x`."""
    known: dict[type, bool] = {}

    def test(x: object) -> bool:
        t = type(x)
        found = known.get(t)
        if found is None:
            if len(known) >= 1024:  # (classes made at run time, a test's, add one each)
                known.clear()
            found = known[t] = decide(t)
        return found

    return test


def type_test(types: type | tuple[type, ...]) -> Callable[[object], bool]:
    """`lambda x: isinstance(x, types)`, remembered per type of `x`."""
    return class_test(lambda t: issubclass(t, types))


def dialect_test(*dialects: str) -> Callable[[object], bool]:
    """`lambda op: op.dialect_name() in dialects`, remembered per class of `op` (an op's dialect
    is its class's name's)."""
    return class_test(lambda t: t.dialect_name() in dialects)


__all__ = ["class_test", "dialect_test", "type_test"]
