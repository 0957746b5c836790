"""`type_test`: an `isinstance` test answered once per class.

`isinstance` against xDSL's op and attribute classes goes through `ABCMeta.__instancecheck__`,
about a microsecond each; the lowerings, the checks and the kernel facts ask it of every op of
a module. The answer depends on the object's class alone, so it is kept per class.
"""

from __future__ import annotations

from collections.abc import Callable


def type_test(types: type | tuple[type, ...]) -> Callable[[object], bool]:
    """`lambda x: isinstance(x, types)`, remembered per type of `x`."""
    known: dict[type, bool] = {}

    def test(x: object) -> bool:
        t = type(x)
        found = known.get(t)
        if found is None:
            if len(known) >= 1024:  # (classes made at run time, a test's, add one each)
                known.clear()
            found = known[t] = isinstance(x, types)
        return found

    return test


__all__ = ["type_test"]
