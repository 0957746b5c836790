"""A contract's `requires` relations, judged on the actual arguments.

Each failing relation is one sentence: the relation as written, both sides' values, the value
of every parameter a compound side reads, and which source parameter each `argN` is.
"""

from __future__ import annotations

from collections.abc import Callable

from ferrox.artifact import Relation
from ferrox.driver.checker.names import leaves


def problem(
    kernel: str,
    relation: Relation,
    scalar: Callable[[int], int],
    length: Callable[[int], int],
    name: Callable[[int], str],
) -> str | None:
    """Why `relation` fails on these arguments, or None when it holds."""
    if relation.holds(scalar, length):
        return None
    written = str(relation)
    sides = [f"{side} = {side.evaluate(scalar, length)}" for side in (relation.lhs, relation.rhs)]
    detail: list[str] = []
    for side in (relation.lhs, relation.rhs):
        if side.op in ("arg", "len", "const"):
            continue
        for leaf in leaves(side):
            value = length(leaf.value) if leaf.op == "len" else scalar(leaf.value)
            text = f"{leaf} = {value}"
            if text not in detail:
                detail.append(text)
    refs = sorted({leaf.value for side in (relation.lhs, relation.rhs) for leaf in leaves(side)})
    names = ", ".join(f"arg{i} is {name(i)}" for i in refs if name(i) != f"arg{i}")
    return (
        f"{kernel} requires {written}, but {' and '.join(sides)}"
        + (f" ({', '.join(detail)})" if detail else "")
        + (f" [{names}]" if names else "")
    )


__all__ = ["problem"]
