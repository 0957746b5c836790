"""Did-you-mean: the known name closest to a misspelt one (an op, a type, an attribute, a pass,
a pass option, a `--param`), for the `help:` line of the diagnostic that refuses it.

Names are compared with difflib's ratio; an op or attribute name is looked up first in its own
dialect (`arith.addii` among arith's ops), then among every dialect's names, so a suggestion
loads at most the one dialect the user named, plus the others only when that finds nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6


def closest(name: str, candidates: Iterable[str], cutoff: float = CUTOFF) -> str | None:
    """The candidate most like `name` (difflib), or None when none is close enough."""
    found = difflib.get_close_matches(name, list(dict.fromkeys(candidates)), n=1, cutoff=cutoff)
    return found[0] if found else None


def did_you_mean(name: str, candidates: Iterable[str], what: str = "") -> str | None:
    """`did you mean `x`?` (with `what`: `did you mean the pass `x`?`), or None."""
    match = closest(name, candidates)
    if match is None:
        return None
    return f"did you mean {what + ' ' if what else ''}`{match}`?"


def _dialect_names(dialect: str, kind: str) -> list[str]:
    from ferrox import registry

    factory = registry.all_dialects().get(dialect)
    if factory is None:
        return []
    loaded = factory()
    if kind == "op":
        return [op.name for op in loaded.operations]
    return [attr.name for attr in loaded.attributes]


def suggest_registered(name: str, kind: str) -> str | None:
    """The registered op (`kind` "op") or type/attribute ("attr") closest to `name`: in its own
    dialect, else in the (at most three) dialects whose names are closest to its dialect's."""
    from ferrox import registry

    dialect, _, _ = name.partition(".")
    near = closest(name, _dialect_names(dialect, kind))
    if near is not None:
        return near
    dialects = list(registry.all_dialects())
    others = difflib.get_close_matches(dialect, dialects, n=3, cutoff=CUTOFF)
    names = [n for other in others if other != dialect for n in _dialect_names(other, kind)]
    return closest(name, names)
