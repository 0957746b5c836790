"""`LaunchError`: every way a launch breaks its kernel's contract, the device or its arguments.

Each problem is a sentence naming the rule and both values; the rule's code (E1301-E1307, the
`launch-*` rules of docs/safety.md) comes from the same table as every other diagnostic's
(`ferrox/diagnostic_codes.py`, by the message), so `render(error.diagnostics)` prints a refused
launch in the tools' shape: `error[E1307]: ...` and the fix under `= help:`. A launch has no
source place of its own (it is a call with values), so the diagnostics carry none; `str()`
stays the sentences themselves, joined by `; `, as Python's API has always given them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded when asked: ferrox.diagnostics imports xDSL, which a launch never needs
    from ferrox.diagnostics import Diagnostic


class LaunchError(ValueError):
    """A refused launch. `problems` holds one sentence per broken rule, each naming the rule
    and both values; `codes` the code of each (None for a problem no rule's code covers);
    nothing was launched and nothing was written."""

    def __init__(self, kernel: str, problems: Sequence[str]):
        self.kernel = kernel
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))

    @property
    def codes(self) -> list[str | None]:
        from ferrox.diagnostic_codes import classify

        return [code.code if (code := classify(p)) is not None else None for p in self.problems]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """One error per problem, without a place, for `ferrox.diagnostics.render`."""
        from ferrox.diagnostics import UNKNOWN, Diagnostic

        return [Diagnostic("error", p, UNKNOWN) for p in self.problems]


__all__ = ["LaunchError"]
