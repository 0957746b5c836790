"""No exclusive output may share memory with any other argument.

The safety argument for a disjoint output (each element written by one thread, read by none
other) and the compiler's invariant loads of shared inputs both hold only if no other argument
of the launch reaches the same memory. Equal base pointers are not enough to find that: a slice
or view of one buffer starts elsewhere and still overlaps, so the rule compares byte ranges.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ferrox.artifact import Param
from ferrox.driver.checker.args import BufferArg
from ferrox.driver.checker.names import KIND_WORDS


def overlap(a: BufferArg, b: BufferArg) -> int:
    """How many bytes the two ranges share (0: disjoint, or one of them is empty)."""
    if a.nbytes == 0 or b.nbytes == 0:
        return 0
    return max(0, min(a.end, b.end) - max(a.start, b.start))


def checked_pairs(params: Sequence[Param], args: Sequence[object]) -> list[tuple[int, int]]:
    """The argument pairs (i < j) the rule compares: two buffers, one of them exclusive. What
    `problems` checks, and what a relaunch from the memo checks again on new addresses."""
    buffers = [i for i, a in enumerate(args) if isinstance(a, BufferArg)]
    return [
        (i, j)
        for n, i in enumerate(buffers)
        for j in buffers[n + 1 :]
        if params[i].kind.is_exclusive or params[j].kind.is_exclusive
    ]


def problems(
    kernel: str,
    params: Sequence[Param],
    args: Sequence[object],
    name: Callable[[int], str],
) -> list[str]:
    """One sentence per pair of arguments that overlap where one of them is an exclusive output."""
    out = []
    for i, j in checked_pairs(params, args):
        a, b = args[i], args[j]
        assert isinstance(a, BufferArg) and isinstance(b, BufferArg)
        shared = overlap(a, b)
        if shared == 0:
            continue
        w = i if params[i].kind.is_exclusive else j
        out.append(
            f"{name(i)} (argument #{i}) and {name(j)} (argument #{j}) of {kernel} overlap "
            f"by {shared} bytes, but {name(w)} is an exclusive output "
            f"({KIND_WORDS[params[w].kind]}) and must not alias any other argument "
            "(pass a copy)"
        )
    return out


__all__ = ["checked_pairs", "overlap", "problems"]
