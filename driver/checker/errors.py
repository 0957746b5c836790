"""`LaunchError`: every way a launch breaks its kernel's contract, the device or its arguments."""

from __future__ import annotations

from collections.abc import Sequence


class LaunchError(ValueError):
    """A refused launch. `problems` holds one sentence per broken rule, each naming the rule
    and both values; nothing was launched and nothing was written."""

    def __init__(self, kernel: str, problems: Sequence[str]):
        self.kernel = kernel
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


__all__ = ["LaunchError"]
