"""Per-stage wall times of one compile, for `ferrox compile --time` and the latency benchmark.

A `Timings` is passed down the compile path (`compile_cached`, `compile_module`); each stage
adds its seconds under its name, and `format` prints them in the order they ran. Without one
nothing is timed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator


class Timings:
    """(stage name, seconds) in the order the stages ran; a stage that runs twice adds up."""

    def __init__(self) -> None:
        self.stages: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.stages[name] = self.stages.get(name, 0.0) + seconds

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    @property
    def total(self) -> float:
        return sum(self.stages.values())

    def format(self) -> str:
        """One line per stage, milliseconds, then the total."""
        lines = [f"  {seconds * 1000:9.3f} ms  {name}" for name, seconds in self.stages.items()]
        lines.append(f"  {self.total * 1000:9.3f} ms  total")
        return "\n".join(lines)


def stage(timings: Timings | None, name: str) -> contextlib.AbstractContextManager[None]:
    """`timings.stage(name)`, or nothing when there is no `timings`."""
    return timings.stage(name) if timings is not None else contextlib.nullcontext()


__all__ = ["Timings", "stage"]
