"""What the interpreter raises: a located fault inside a kernel, or a launch refused up front.

A fault is a `DiagnosticError`, so `ferrox run` prints it like any other diagnostic
(`file:line:col: error: ...`, with notes), and it also carries the block and thread that hit
it, because a kernel's bug is usually in one thread's arithmetic.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.ir import Operation

from ferrox.diagnostics import DiagnosticError, SourceLoc, location_of, make

Dim3 = tuple[int, int, int]


class InterpreterError(Exception):
    """Base of everything the reference interpreter raises on purpose."""


class LaunchError(InterpreterError, ValueError):
    """The launch itself is wrong (unknown kernel, bad configuration or argument): nothing ran."""


class KernelFault(InterpreterError, DiagnosticError):
    """A kernel went wrong at an op; `location` is that op's `file:line:col`."""

    def __init__(
        self,
        op: Operation | None,
        message: str,
        block: Dim3 | None = None,
        thread: Dim3 | None = None,
        notes: Iterable[tuple[Operation | None, str]] = (),
    ):
        where = ""
        if block is not None:
            where = f" (block {block}" + (f", thread {thread})" if thread is not None else ")")
        self.op = op
        self.reason = message
        self.block = block
        self.thread = thread
        self.location: SourceLoc = location_of(op)
        DiagnosticError.__init__(self, [make("error", op, message + where, notes)])


class KernelTrap(KernelFault):
    """The GPU would trap here (an out-of-range load or atomic), or the interpreter is stricter than
    the GPU and refuses to go on (a raw pointer or shared index out of range, division by zero)."""


class KernelDeadlock(KernelFault):
    """Threads wait at a barrier or warp collective that the rest of their block or warp never
    reaches (or reaches at another op): on the GPU the launch would hang or be undefined."""


class KernelRace(KernelFault):
    """Two threads touch memory in a way the GPU does not make atomic or disjoint: one element of a
    disjoint slice written twice, or a `scope cta` atomic on global memory used by two blocks."""


class KernelStepLimit(KernelFault):
    """The launch ran more operations than its step budget (machine.max_steps): a loop that does
    not end, most likely. Located at the op that entered the block past the budget."""
