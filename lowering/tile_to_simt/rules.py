"""The table of tile ops the lowering knows: for each op, how it picks its results' layouts
(`infer`, used by the analysis in `assign.py` before anything is emitted) and how it is lowered
(`lower`). Each op-family module registers its ops here when imported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.ir import Operation

from ferrox.lowering.tile_to_simt.config import Config
from ferrox.lowering.tile_to_simt.layout import Layout

Infer = Callable[[Operation, Sequence[Layout | None], Config], list[Layout | None]]
Lower = Callable[..., None]


@dataclass(frozen=True)
class Rule:
    infer: Infer
    lower: Lower


RULES: dict[type[Operation], Rule] = {}


def rule(*op_types: type[Operation], infer: Infer) -> Callable[[Lower], Lower]:
    """Register `lower` (and `infer`) for `op_types`."""

    def register(lower: Lower) -> Lower:
        for t in op_types:
            RULES[t] = Rule(infer, lower)
        return lower

    return register


def no_results(
    op: Operation, operands: Sequence[Layout | None], config: Config
) -> list[Layout | None]:
    return [None] * len(op.results)


def first_spread(layouts: Sequence[Layout | None]) -> Layout | None:
    """Of the operands' layouts, the one that spreads its tile over the most threads (the first
    of those): elementwise ops work there and bring the other operands to it."""
    best: Layout | None = None
    for layout in layouts:
        if layout is not None and (best is None or layout.spread > best.spread):
            best = layout
    return best


__all__ = ["RULES", "Rule", "first_spread", "no_results", "rule"]
