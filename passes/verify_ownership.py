"""`verify-ownership`: host tensors are owned values, in the manner of Rust's borrow checker.

Host rules 1, 2 and 5 of docs/safety.md#host-rules (rule 3, "a launch gives back every tensor it
took", is each launch op's own verifier), and rule 6 (docs/safety.md#host-6), which makes
asynchronous launches safe to observe:

1. A tensor or partition is owned. `host.partition`, `host.unpartition`, the `outs` of a launch, and
   any op the pass does not know (`scf.yield`, `func.return`, loop inits, calls...) move it; a later
   use is `use of moved value` (rustc E0382). Each caller array is bound by `host.from_array` once.
2. A launch may not take one tensor as both an input and an exclusive output (E0502). For a tile
   launch this is already rule 1: partitioning the output moved the tensor.
5. A safe `host.launch` needs a prepared value made by `host.prepare` of the same kernel.
6. Launches are asynchronous: a tensor written by a launch on stream `%s` may be read on the host
   (`host.check`, `host.print`, returning it) only after `host.sync_on %s`, and used on another
   stream only after that sync; a tensor a launch on `%s` reads may not be written on another
   stream before the sync.

The analysis is a forward dataflow over each `func.func`. Control flow is handled conservatively:
a value moved in one branch of `scf.if` counts as moved after it; a loop body is analysed until
its state is stable, so a value defined outside a loop and moved inside it is reported ("value
moved here, in previous iteration of loop"); loop-carried tensors must go through `iter_args`.
Unstructured control flow (several blocks) joins the states of all predecessors. Every violation
is reported, each once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.host import (
    CheckOp,
    FromArrayOp,
    LaunchOp,
    PartitionOp,
    PartitionType,
    PrepareOp,
    PrintOp,
    SyncOnOp,
    TensorType,
    TileLaunchOp,
    UnpartitionOp,
    UnsafeLaunchOp,
)

LAUNCHES = (LaunchOp, UnsafeLaunchOp, TileLaunchOp)
FORWARDING = {"scf.yield", "scf.condition", "cf.br", "cf.cond_br", "cf.switch"}
"""Ops that pass values on (moving them) without reading their contents."""
RUN_ONCE = {"scf.if", "scf.index_switch", "scf.execute_region"}
"""Region ops whose regions run at most once each; every other region op may loop."""
MAX_ROUNDS = 64


def _owned(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType | PartitionType)


def _reads_on_host(op: Operation) -> bool:
    """Whether `op` may look at a tensor's contents on the host (unknown ops are assumed to)."""
    if isinstance(op, PrepareOp | PartitionOp | UnpartitionOp):
        return False
    return not op.regions and op.name not in FORWARDING


def _name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "value"


@dataclass(frozen=True)
class Move:
    op: Operation
    carried: bool = False
    """Moved in an earlier iteration of a loop the current use is in."""


@dataclass(frozen=True)
class InFlight:
    """An unsynced launch that uses a value: the launch, and whether it writes the value."""

    launch: Operation
    writes: bool


Flights = dict[SSAValue, InFlight]
"""stream -> the unsynced launch on it that uses a value."""


def _join(into: Flights, other: Flights) -> None:
    for stream, use in other.items():
        have = into.get(stream)
        if have is None or (use.writes and not have.writes):
            into[stream] = use


@dataclass
class State:
    moved: dict[object, Move] = field(default_factory=dict[object, Move])
    """Moved values, and ("array", index) for caller arrays already bound."""
    flights: dict[SSAValue, Flights] = field(default_factory=dict[SSAValue, Flights])

    def copy(self) -> State:
        return State(dict(self.moved), {v: dict(f) for v, f in self.flights.items()})

    def join(self, other: State, carried: bool = False, keep=lambda key: True) -> None:
        for key, move in other.moved.items():
            if key not in self.moved and keep(key):
                self.moved[key] = Move(move.op, carried) if carried else move
        for value, flights in other.flights.items():
            _join(self.flights.setdefault(value, {}), flights)

    def signature(self) -> tuple[frozenset[object], frozenset[tuple[object, ...]]]:
        flights = frozenset(
            (v, s, use.writes) for v, f in self.flights.items() for s, use in f.items()
        )
        return frozenset(self.moved), flights

    def flights_of(self, values: Iterable[SSAValue]) -> Flights:
        out: Flights = {}
        for v in values:
            _join(out, self.flights.get(v, {}))
        return out


class OwnershipChecker:
    """Walks one function, reporting each violation once into `diagnostics`."""

    def __init__(self, diagnostics: DiagnosticEngine):
        self.diagnostics = diagnostics
        self.reported: set[tuple[object, ...]] = set()

    def run(self, function: func.FuncOp) -> None:
        self.region(function.body, State(), {})

    # -- reporting -------------------------------------------------------------------------

    def report(self, key: tuple[object, ...], where: Operation, message: str, notes) -> None:
        if key not in self.reported:
            self.reported.add(key)
            self.diagnostics.error(where, message, notes)

    def use_after_move(self, op: Operation, value: SSAValue, move: Move) -> None:
        moved = "value moved here"
        if move.carried:
            moved += ", in previous iteration of loop"
        self.report(
            ("E0382", op, value),
            op,
            f"use of moved value: {_name(value)}",
            [(move.op, moved), (op, "value used here after move")],
        )

    # -- control flow ----------------------------------------------------------------------

    def region(self, region: Region, state: State, arg_flights: Flights) -> tuple[State, Flights]:
        """The state after `region` (joined over its exits) and the flights of what it yields."""
        blocks = list(region.blocks)
        if not blocks:
            return state, {}
        if len(blocks) == 1:
            return self.block(blocks[0], state, arg_flights)
        entries: dict[Block, tuple[State, Flights]] = {blocks[0]: (state, arg_flights)}
        exits: dict[Block, tuple[State, Flights]] = {}
        for _ in range(MAX_ROUNDS):
            changed = False
            for block in blocks:
                if block not in entries:
                    continue
                entry, flights = entries[block]
                out, yielded = self.block(block, entry.copy(), flights)
                term = block.last_op
                if term is None or not term.successors:
                    exits[block] = (out, yielded)
                    continue
                passed = out.flights_of(term.operands)
                for succ in term.successors:
                    old = entries.get(succ)
                    merged, merged_flights = (old[0].copy(), dict(old[1])) if old else (State(), {})
                    merged.join(out)
                    _join(merged_flights, passed)
                    same = old is not None and merged.signature() == old[0].signature()
                    if not same or merged_flights != old[1]:  # type: ignore[index]
                        entries[succ] = (merged, merged_flights)
                        changed = True
            if not changed:
                break
        result, yielded = State(), {}
        for out, flights in exits.values():
            result.join(out)
            _join(yielded, flights)
        return result, yielded

    def block(self, block: Block, state: State, arg_flights: Flights) -> tuple[State, Flights]:
        for arg in block.args:
            state.moved.pop(arg, None)
            if _owned(arg):
                state.flights[arg] = dict(arg_flights)
        for op in block.ops:
            state = self.op(op, state)
        term = block.last_op
        if term is not None and not term.successors and term.name in FORWARDING:
            return state, state.flights_of(term.operands)
        return state, {}

    def nested(self, op: Operation, state: State) -> tuple[State, Flights]:
        """Run `op`'s regions: once each for `scf.if`-like ops, to a fixpoint for loops."""
        given = state.flights_of(op.operands)
        if op.name in RUN_ONCE:
            after = state.copy()
            yielded: Flights = {}
            for region in op.regions:
                out, flights = self.region(region, state.copy(), given)
                after.join(out)
                _join(yielded, flights)
            return after, yielded

        def outside(key: object) -> bool:
            if not isinstance(key, SSAValue):
                return True
            owner = key.owner
            node = owner if isinstance(owner, Operation) else owner.parent_op() or op
            return not op.is_ancestor(node)

        entry, carried = state.copy(), dict(given)
        out, yielded = entry, {}
        for _ in range(MAX_ROUNDS):
            out, yielded = entry.copy(), {}
            for region in op.regions:
                out, flights = self.region(region, out, carried)
                _join(yielded, flights)
            again = entry.copy()
            again.join(out, carried=True, keep=outside)
            more = dict(carried)
            _join(more, yielded)
            if again.signature() == entry.signature() and more == carried:
                break
            entry, carried = again, more
        after = state.copy()
        after.join(entry)
        after.join(out)
        after.moved = {k: Move(m.op) for k, m in after.moved.items()}
        return after, yielded

    # -- one op ----------------------------------------------------------------------------

    def op(self, op: Operation, state: State) -> State:
        if isinstance(op, SyncOnOp):
            for flights in state.flights.values():
                flights.pop(op.stream, None)
            return state
        if isinstance(op, FromArrayOp):
            self.bind_array(op, state)
        if isinstance(op, LaunchOp):
            self.check_prepared(op)

        ins, outs = self.roles(op)
        conflicts = {v for v in outs if v in ins}
        for value in conflicts:
            self.report(
                ("E0502", op, value),
                op,
                f"cannot borrow {_name(value)} as immutable because it is also borrowed as mutable",
                [(op, "mutable borrow occurs here"), (op, "immutable borrow occurs here")],
            )
        moved_now: set[SSAValue] = set()
        for value in [*ins, *outs]:
            if value in conflicts:
                continue
            if (move := state.moved.get(value)) is not None:
                if move.op is op:  # only a back edge brings an op's own move back to it
                    move = Move(op, carried=True)
                self.use_after_move(op, value, move)
            elif value in moved_now:
                self.use_after_move(op, value, Move(op))
            else:
                self.check_ready(op, value, writes=value in outs, state=state)
            if value in outs:
                moved_now.add(value)
        for value in moved_now:
            state.moved.setdefault(value, Move(op))

        yielded: Flights = {}
        if op.regions:
            state, yielded = self.nested(op, state)
        self.define(op, state, yielded)
        return state

    def roles(self, op: Operation) -> tuple[list[SSAValue], list[SSAValue]]:
        """The owned operands `op` only borrows, and those it moves."""
        if isinstance(op, LAUNCHES):
            return [v for v in op.ins if _owned(v)], list(op.outs)
        owned = [v for v in op.operands if _owned(v)]
        if isinstance(op, PrepareOp | CheckOp | PrintOp):
            return owned, []
        return [], owned

    def define(self, op: Operation, state: State, yielded: Flights) -> None:
        """Results are fresh values; record which unsynced launches they depend on."""
        if isinstance(op, LAUNCHES):
            for value in op.ins:
                if _owned(value):
                    _join(state.flights.setdefault(value, {}), {op.stream: InFlight(op, False)})
            flights: Flights = {op.stream: InFlight(op, True)}
        elif isinstance(op, PrepareOp):
            flights = {}
        else:
            flights = state.flights_of(op.operands)
            _join(flights, yielded)
        for result in op.results:
            state.moved.pop(result, None)
            if _owned(result):
                state.flights[result] = dict(flights)

    # -- the rules beside moves ------------------------------------------------------------

    def bind_array(self, op: FromArrayOp, state: State) -> None:
        key = ("array", op.index.value.data)
        first = state.moved.get(key)
        if first is None:
            state.moved[key] = Move(op)
            return
        again = first.carried or first.op is op
        note = "first bound here, in previous iteration of loop" if again else "first bound here"
        self.report(
            ("array", op),
            op,
            f"caller array {op.index.value.data} is already bound to a tensor; "
            "binding it again would alias it",
            [(first.op, note)],
        )

    def check_prepared(self, op: LaunchOp) -> None:
        """Rule 5: the proof must come from a `host.prepare` of this very kernel."""
        owner = op.prepared.owner
        if isinstance(owner, PrepareOp) and owner.kernel == op.kernel:
            return
        why = (
            f"prepared here for {owner.kernel}"
            if isinstance(owner, PrepareOp)
            else "this prepared value does not come from host.prepare"
        )
        self.report(
            ("E-prepared", op),
            op,
            f"safe launch of {op.kernel} needs a launch prepared by host.prepare {op.kernel}",
            [(op.prepared, why)],
        )

    def check_ready(self, op: Operation, value: SSAValue, writes: bool, state: State) -> None:
        """Rule 6: no host read or other-stream use while an unsynced launch may touch `value`."""
        on = op.stream if isinstance(op, LAUNCHES) else None
        if on is None and not _reads_on_host(op):
            return
        for stream, use in state.flights.get(value, {}).items():
            if stream is on:
                continue
            if on is None and not use.writes:
                continue
            if on is not None and not (use.writes or writes):
                continue
            verb = "writing" if use.writes else "reading"
            if on is None:
                what = "return" if isinstance(op, func.ReturnOp) else "read"
                message = f"cannot {what} {_name(value)} before `host.sync_on {_name(stream)}`"
            else:
                message = (
                    f"cannot use {_name(value)} on stream {_name(on)} "
                    f"before `host.sync_on {_name(stream)}`"
                )
            self.report(
                ("E-sync", op, value, stream),
                op,
                f"{message}: a launch on {_name(stream)} may still be {verb} it",
                [(use.launch, "launched here")],
            )


@dataclass(frozen=True)
class VerifyOwnershipPass(ModulePass):
    """Check every host function's tensor ownership; report all violations at once."""

    name = "verify-ownership"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        diagnostics = DiagnosticEngine()
        for function in op.walk():
            if isinstance(function, func.FuncOp):
                OwnershipChecker(diagnostics).run(function)
        diagnostics.diagnostics.sort(key=lambda d: (d.loc.file, d.loc.line, d.loc.col))
        diagnostics.raise_if_errors()


__all__ = ["OwnershipChecker", "VerifyOwnershipPass"]
