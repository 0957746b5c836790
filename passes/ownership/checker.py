"""The transfer functions of `verify-ownership`: one forward walk per host function.

Each op maps the state before it to the state after it (`lattice.State`) and reports what it
breaks. Region ops run their regions according to how often they run (docs/ownership-analysis.md):
an `scf.if`, `scf.index_switch` or `scf.execute_region` joins the states at the end of its
regions, each of which is one path; a loop joins its body's end into its head until the head
stops changing, and its exit state is the head (any trip count) or the body's end (a known
non-zero trip count). A `func.call` of a function of the module runs the callee's body in the
caller's state, so what the callee launches, syncs and makes is seen at each call site.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from xdsl.dialects import arith, cf, func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.host import (
    CheckOp,
    FromArrayOp,
    LaunchOp,
    PartitionOp,
    PrepareOp,
    PrintOp,
    StreamOp,
    SyncOnOp,
    TileLaunchOp,
    UnpartitionOp,
    UnsafeLaunchOp,
)
from ferrox.passes.ownership.lattice import (
    Carry,
    InFlight,
    Move,
    State,
    StreamId,
    is_stream,
    join_carries,
    join_flights,
    merged,
    owned,
)

LAUNCHES = (LaunchOp, UnsafeLaunchOp, TileLaunchOp)
FORWARDING = {"scf.yield", "scf.condition", "cf.br", "cf.cond_br", "cf.switch"}
"""Ops that pass values on (moving them) without reading their contents."""
MAX_ROUNDS = 10_000
"""Every fixpoint here joins into a finite lattice, so it ends; this bound only turns a bug in
the analysis into an internal error instead of a hang or a silent answer."""

Carries = list[Carry] | None
"""What a region's exits pass on, position by position (None: no exit passes anything)."""


class OwnershipInternalError(RuntimeError):
    """A bug in `verify-ownership` itself, never a verdict on the program."""


def _reads_on_host(op: Operation) -> bool:
    """Whether `op` may look at a tensor's contents on the host (unknown ops are assumed to)."""
    if isinstance(op, PrepareOp | PartitionOp | UnpartitionOp):
        return False
    return not op.regions and op.name not in FORWARDING


def _name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "value"


def _stream_of(launch: Operation) -> SSAValue:
    assert isinstance(launch, LAUNCHES), "only launches are pending"
    return launch.stream


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def trip_count(op: scf.ForOp) -> int | None:
    """The number of iterations of `op` when its bounds and step are constants."""
    lb, ub, step = _constant(op.lb), _constant(op.ub), _constant(op.step)
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


def _successor_operands(term: Operation, index: int) -> list[SSAValue] | None:
    """The operands `term` passes to its `index`-th successor, when the op says which."""
    if isinstance(term, cf.BranchOp):
        return list(term.arguments)
    if isinstance(term, cf.ConditionalBranchOp):
        return list(term.then_arguments if index == 0 else term.else_arguments)
    if isinstance(term, cf.SwitchOp):
        if index == 0:
            return list(term.default_operands)
        sizes = list(term.case_operand_segments.get_values())
        start = sum(sizes[: index - 1])
        return list(term.case_operands[start : start + sizes[index - 1]])
    return None


def _moved_by_branch(term: Operation) -> list[SSAValue] | None:
    """The owned values a branch moves: a value passed to two successors moves once (only one
    is taken), a value passed twice to one successor moves twice."""
    most: dict[SSAValue, int] = {}
    for index in range(len(term.successors)):
        operands = _successor_operands(term, index)
        if operands is None:
            return None
        for v in set(operands):
            most[v] = max(most.get(v, 0), operands.count(v))
    return [v for v, n in most.items() if owned(v) for _ in range(n)]


def _strip_carried(state: State) -> None:
    state.moved = {k: Move(m.op) for k, m in state.moved.items()}


@dataclass
class Frame:
    call: Operation
    callee: func.FuncOp


class OwnershipChecker:
    """Walks host functions, reporting each violation once into `diagnostics`."""

    def __init__(self, diagnostics: DiagnosticEngine, module: ModuleOp | None = None):
        self.diagnostics = diagnostics
        self.reported: set[tuple[object, ...]] = set()
        self.functions: dict[str, func.FuncOp] = {}
        if module is not None:
            for op in module.ops:
                if isinstance(op, func.FuncOp) and op.body.blocks:
                    self.functions.setdefault(op.sym_name.data, op)
        self.frames: list[Frame] = []
        self.function = "?"

    def run(self, function: func.FuncOp) -> None:
        self.function = function.sym_name.data
        self.frames = []
        self.region(function.body, State(), None)

    # -- reporting -------------------------------------------------------------------------

    def report(self, key: tuple[object, ...], where: Operation, message: str, notes) -> None:
        if key in self.reported:
            return
        self.reported.add(key)
        calls = [(f.call, f"in this call of @{f.callee.sym_name.data}") for f in self.frames]
        self.diagnostics.error(where, message, [*notes, *reversed(calls)])

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

    def fixpoint(self, where: Operation | Region) -> Callable[[], None]:
        """A round counter for one fixpoint; running out of rounds is an internal error."""
        rounds = [0]

        def step() -> None:
            rounds[0] += 1
            if rounds[0] > MAX_ROUNDS:
                what = where.name if isinstance(where, Operation) else "a multi-block region"
                raise OwnershipInternalError(
                    f"internal error: the ownership analysis of @{self.function} did not "
                    f"converge in {MAX_ROUNDS} rounds at {what} (a bug in verify-ownership)"
                )

        return step

    # -- control flow ----------------------------------------------------------------------

    def region(self, region: Region, state: State, args: Carries) -> tuple[State, Carries]:
        """The state after `region` (joined over its exits) and what its exits pass on."""
        blocks = list(region.blocks)
        if not blocks:
            return state, None
        if len(blocks) == 1:
            return self.block(blocks[0], state, args)
        entries: dict[Block, tuple[State, Carries]] = {blocks[0]: (state, args)}
        exits: dict[Block, tuple[State, Carries]] = {}
        step = self.fixpoint(region)
        while True:
            changed = False
            for block in blocks:
                if block not in entries:
                    continue
                entry, carries = entries[block]
                out, passed = self.block(block, entry.copy(), carries)
                term = block.last_op
                if term is None or not term.successors:
                    exits[block] = (out, passed)
                    continue
                for index, succ in enumerate(term.successors):
                    operands = _successor_operands(term, index)
                    if operands is None:  # every argument may be any operand
                        given = [merged(out.carries(term.operands))] * len(succ.args)
                    else:
                        given = out.carries(operands)
                    old = entries.get(succ)
                    joined = old[0].copy() if old else State()
                    joined.join(out)
                    joined_args = join_carries(old[1] if old else None, given)
                    if old is None or (
                        joined.signature() != old[0].signature() or joined_args != old[1]
                    ):
                        entries[succ] = (joined, joined_args)
                        changed = True
            if not changed:
                break
            step()
        result, passed_on = State(), None
        for out, passed in exits.values():
            result.join(out)
            passed_on = join_carries(passed_on, passed)
        return result, passed_on

    def block(self, block: Block, state: State, args: Carries) -> tuple[State, Carries]:
        for i, arg in enumerate(block.args):
            state.bind(arg, args[i] if args is not None and i < len(args) else Carry())
        for op in block.ops:
            state = self.op(op, state)
        term = block.last_op
        if term is not None and not term.successors:
            if term.name in FORWARDING or isinstance(term, func.ReturnOp):
                return state, state.carries(term.operands)
        return state, None

    def nested(self, op: Operation, state: State) -> tuple[State, Carries]:
        if isinstance(op, scf.IfOp | scf.IndexSwitchOp | scf.ExecuteRegionOp):
            return self.alternatives(op, state)
        if isinstance(op, scf.ForOp):
            return self.for_loop(op, state)
        if isinstance(op, scf.WhileOp):
            return self.while_loop(op, state)
        return self.unknown_loop(op, state)

    def alternatives(self, op: Operation, state: State) -> tuple[State, Carries]:
        """Regions of which exactly one runs, once: each is a path; an empty one (an `scf.if`
        with no else) is the path that runs nothing."""
        after, passed_on = State(), None
        for region in op.regions:
            if not region.blocks:
                after.join(state)
                continue
            out, passed = self.region(region, state.copy(), [])
            after.join(out)
            passed_on = join_carries(passed_on, passed)
        return after, passed_on

    def _outside(self, loop: Operation) -> Callable[[object], bool]:
        """Keys that outlive one iteration of `loop`: values defined outside it, arrays."""

        def keep(key: object) -> bool:
            if not isinstance(key, SSAValue):
                return True
            owner = key.owner
            node = owner if isinstance(owner, Operation) else owner.parent_op() or loop
            return not loop.is_ancestor(node)

        return keep

    def for_loop(self, op: scf.ForOp, state: State) -> tuple[State, Carries]:
        inits = state.carries(op.iter_args)
        head, head_args = state.copy(), inits
        keep, step = self._outside(op), self.fixpoint(op)
        while True:
            out, passed = self.region(op.body, head.copy(), [Carry(), *head_args])
            yielded = passed if passed is not None else [Carry() for _ in inits]
            again = head.copy()
            again.join(out, carried=True, keep=keep)
            again_args = join_carries(head_args, yielded) or []
            if again.signature() == head.signature() and again_args == head_args:
                break
            step()
            head, head_args = again, again_args
        trips = trip_count(op)
        if trips == 0:
            after, results = state.copy(), inits
        elif trips is not None:  # the loop exits at the end of a body
            after, results = out, yielded
        else:  # the loop exits at its head
            after, results = head.copy(), head_args
            after.join(out)
        _strip_carried(after)
        return after, results

    def while_loop(self, op: scf.WhileOp, state: State) -> tuple[State, Carries]:
        head, head_args = state.copy(), state.carries(op.arguments)
        keep, step = self._outside(op), self.fixpoint(op)
        while True:
            before, condition = self.region(op.before_region, head.copy(), head_args)
            forwarded = condition[1:] if condition else []
            out, yielded = self.region(op.after_region, before.copy(), forwarded)
            again = head.copy()
            again.join(out, carried=True, keep=keep)
            again_args = join_carries(head_args, yielded) or []
            if again.signature() == head.signature() and again_args == head_args:
                break
            step()
            head, head_args = again, again_args
        _strip_carried(before)
        return before, forwarded  # the loop exits from its condition

    def unknown_loop(self, op: Operation, state: State) -> tuple[State, Carries]:
        """A region op the pass does not know: each region may run any number of times, in
        order, and every block argument and result may be any operand or yielded value."""
        given = merged(state.carries(op.operands))
        head, carry = state.copy(), given
        keep, step = self._outside(op), self.fixpoint(op)
        while True:
            out, yielded = head.copy(), Carry()
            for region in op.regions:
                nargs = len(region.blocks[0].args) if region.blocks else 0
                out, passed = self.region(region, out, [carry] * nargs)
                yielded.join(merged(passed or []))
            again = head.copy()
            again.join(out, carried=True, keep=keep)
            more = Carry(dict(carry.flights), carry.streams)
            more.join(yielded)
            if again.signature() == head.signature() and more == carry:
                break
            step()
            head, carry = again, more
        after = head.copy()
        after.join(out)
        _strip_carried(after)
        return after, [carry] * len(op.results)

    def call(self, op: func.CallOp, state: State) -> tuple[State, Carries] | None:
        """Run a module function's body at its call site; None for a callee the pass cannot
        see into (a declaration, another module, or a recursive call)."""
        callee = self.functions.get(op.callee.string_value())
        if callee is None or any(f.callee is callee for f in self.frames):
            return None
        self.frames.append(Frame(op, callee))
        try:
            after, returned = self.region(callee.body, state, state.carries(op.arguments))
        finally:
            self.frames.pop()
        return after, returned

    # -- one op ----------------------------------------------------------------------------

    def op(self, op: Operation, state: State) -> State:
        if isinstance(op, SyncOnOp):
            state.sync(state.streams_of(op.stream))
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

        results: Carries = None
        called = self.call(op, state) if isinstance(op, func.CallOp) else None
        if called is not None:
            state, results = called
        elif op.regions:
            state, results = self.nested(op, state)
        self.define(op, state, results, known=called is not None or bool(op.regions))
        return state

    def roles(self, op: Operation) -> tuple[list[SSAValue], list[SSAValue]]:
        """The owned operands `op` only borrows, and those it moves."""
        if isinstance(op, LAUNCHES):
            return [v for v in op.ins if owned(v)], list(op.outs)
        values = [v for v in op.operands if owned(v)]
        if isinstance(op, PrepareOp | CheckOp | PrintOp):
            return values, []
        if len(op.successors) > 1:  # only one successor is taken: a move per successor
            values = _moved_by_branch(op) or values
        return [], values

    def define(self, op: Operation, state: State, results: Carries, known: bool) -> None:
        """Bind `op`'s results: what a launch leaves pending, a new stream, what a region or a
        callee passed on, or (an op the pass does not know) everything its operands carry."""
        if isinstance(op, LAUNCHES):
            on = state.streams_of(op.stream)
            for value in op.ins:
                if owned(value):
                    reads = {s: InFlight(op, False) for s in on}
                    join_flights(state.flights.setdefault(value, {}), reads)
            for result in op.results:
                state.bind(result, Carry({s: InFlight(op, True) for s in on}))
            return
        if isinstance(op, StreamOp):
            for result in op.results:
                state.bind(result, Carry(streams=frozenset({state.new_stream(result)})))
            return
        if isinstance(op, PrepareOp):
            for result in op.results:
                state.bind(result, Carry())
            return
        if known:
            for i, result in enumerate(op.results):
                given = results[i] if results is not None and i < len(results) else Carry()
                state.bind(result, given)
            return
        given = merged(state.carries(op.operands))
        for result in op.results:
            streams: frozenset[StreamId] = frozenset()
            if is_stream(result):
                streams = given.streams | {state.new_stream(result)}
            state.bind(result, Carry(dict(given.flights), streams))

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
        """Rule 6: no host read or other-stream use while an unsynced launch may touch `value`.

        A launch is ordered after a pending one only when both are on one newest stream: an
        earlier stream made by the same `host.stream` (an earlier iteration's) is another one."""
        on = state.streams_of(op.stream) if isinstance(op, LAUNCHES) else None
        if on is None and not _reads_on_host(op):
            return
        for stream, use in state.flights.get(value, {}).items():
            if on is not None and on == {stream} and not stream.earlier:
                continue
            if on is None and not use.writes:
                continue
            if on is not None and not (use.writes or writes):
                continue
            self.not_ready(op, value, stream, use)

    def not_ready(self, op: Operation, value: SSAValue, stream: StreamId, use: InFlight) -> None:
        verb = "writing" if use.writes else "reading"
        what = "return" if isinstance(op, func.ReturnOp) else "read"
        if stream.earlier:
            kernel = getattr(use.launch, "kernel", None)
            source = _name(stream.source)
            if isinstance(op, LAUNCHES):
                on = _name(op.stream)
                head = f"launch of {op.kernel} cannot use {_name(value)} on stream {on}"
            else:
                head = f"cannot {what} {_name(value)}"
            message = (
                f"{head}: a launch of {kernel} on the {source} of an earlier run of its "
                f"`host.stream` (an earlier iteration or call) may still be {verb} it"
            )
            notes = [(use.launch, f"launched here, on the {source} of an earlier run")]
        else:
            launched = _name(_stream_of(use.launch))
            sync = f"`host.sync_on {launched}`"
            if isinstance(op, LAUNCHES):
                head = f"cannot use {_name(value)} on stream {_name(op.stream)} before {sync}"
            else:
                head = f"cannot {what} {_name(value)} before {sync}"
            message = f"{head}: a launch on {launched} may still be {verb} it"
            notes = [(use.launch, "launched here")]
        self.report(("E-sync", op, value, stream), op, message, notes)


def callees_first(functions: Iterable[func.FuncOp], checker: OwnershipChecker) -> list[func.FuncOp]:
    """`functions` ordered so that a callee comes before its callers (so a fault inside a
    helper is reported first on its own, without a call note)."""
    order: list[func.FuncOp] = []
    seen: set[int] = set()

    def visit(function: func.FuncOp) -> None:
        if id(function) in seen:
            return
        seen.add(id(function))
        for op in function.walk():
            if isinstance(op, func.CallOp):
                callee = checker.functions.get(op.callee.string_value())
                if callee is not None:
                    visit(callee)
        order.append(function)

    for function in functions:
        visit(function)
    return order
