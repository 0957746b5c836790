"""The abstract state of `verify-ownership` at one program point, and how two states join.

Three facts are tracked (docs/ownership-analysis.md):

- `moved`: values that may have been moved (a may-set: joined by union);
- `streams`: for each stream-typed SSA value, the run-time streams it may name. A run-time stream
  is a `StreamId`: the value that made it (a `host.stream` result, a stream argument, the result of
  an op the pass does not know) and whether it is the newest stream that value made or one of the
  earlier ones (recency abstraction: re-running `host.stream`, in a loop or a helper called twice,
  turns the newest stream into an earlier one);
- `flights`: for each tensor, the launches that may still be pending on it, per run-time stream
  (a may-set: a launch is pending after a join if it is pending on any path). A sync removes the
  launches of one stream only when its operand names exactly one newest stream, so a stream is
  synced after a join only if it is synced on every path (must-synced).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xdsl.ir import Operation, SSAValue

from ferrox.dialects.host import PartitionType, StreamType, TensorType


def owned(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType | PartitionType)


def is_stream(value: SSAValue) -> bool:
    return isinstance(value.type, StreamType)


@dataclass(frozen=True)
class StreamId:
    """One run-time stream: the newest one `source` made, or (`earlier`) any older one.

    Only a newest stream is one stream; the earlier one stands for many, so it is never synced
    and never orders two launches.
    """

    source: SSAValue
    earlier: bool = False


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


Flights = dict[StreamId, InFlight]
"""run-time stream -> the unsynced launch on it that uses a value."""

Streams = frozenset[StreamId]


def join_flights(into: Flights, other: Flights) -> None:
    for stream, use in other.items():
        have = into.get(stream)
        if have is None or (use.writes and not have.writes):
            into[stream] = use


@dataclass
class Carry:
    """What a value passed to a block argument or a result brings: its pending launches and,
    for a stream, the run-time streams it may name."""

    flights: Flights = field(default_factory=dict[StreamId, InFlight])
    streams: Streams = frozenset()

    def join(self, other: Carry) -> None:
        join_flights(self.flights, other.flights)
        self.streams = self.streams | other.streams


def join_carries(into: list[Carry] | None, other: list[Carry] | None) -> list[Carry] | None:
    """Position-wise join of two lists of carries (None: that path passes nothing)."""
    if other is None:
        return into
    if into is None:
        return [Carry(dict(c.flights), c.streams) for c in other]
    out = [Carry(dict(c.flights), c.streams) for c in into]
    for i, c in enumerate(other):
        if i < len(out):
            out[i].join(c)
        else:
            out.append(Carry(dict(c.flights), c.streams))
    return out


def merged(carries: Iterable[Carry]) -> Carry:
    out = Carry()
    for c in carries:
        out.join(c)
    return out


@dataclass
class State:
    moved: dict[object, Move] = field(default_factory=dict[object, Move])
    """Moved values, and ("array", index) for caller arrays already bound."""
    flights: dict[SSAValue, Flights] = field(default_factory=dict[SSAValue, Flights])
    streams: dict[SSAValue, Streams] = field(default_factory=dict[SSAValue, Streams])

    def copy(self) -> State:
        return State(
            dict(self.moved), {v: dict(f) for v, f in self.flights.items()}, dict(self.streams)
        )

    def join(
        self, other: State, carried: bool = False, keep: Callable[[object], bool] = lambda k: True
    ) -> None:
        for key, move in other.moved.items():
            if key not in self.moved and keep(key):
                self.moved[key] = Move(move.op, carried) if carried else move
        for value, flights in other.flights.items():
            join_flights(self.flights.setdefault(value, {}), flights)
        for value, ids in other.streams.items():
            self.streams[value] = self.streams.get(value, frozenset()) | ids

    def signature(self) -> frozenset[tuple[object, ...]]:
        """Every fact of the state, for the fixpoints' "did anything change" test."""
        facts: set[tuple[object, ...]] = {("moved", key) for key in self.moved}
        for v, f in self.flights.items():
            facts.update(("flight", v, s, use.writes) for s, use in f.items())
        for v, ids in self.streams.items():
            facts.update(("stream", v, s) for s in ids)
        return frozenset(facts)

    # -- reading ---------------------------------------------------------------------------

    def streams_of(self, value: SSAValue) -> Streams:
        """The run-time streams `value` may name; a value never bound (a function's stream
        argument) names the one stream it is."""
        return self.streams.get(value, frozenset({StreamId(value)}))

    def flights_of(self, values: Iterable[SSAValue]) -> Flights:
        out: Flights = {}
        for v in values:
            join_flights(out, self.flights.get(v, {}))
        return out

    def carry(self, value: SSAValue) -> Carry:
        ids = self.streams_of(value) if is_stream(value) else frozenset()
        return Carry(dict(self.flights.get(value, {})), ids)

    def carries(self, values: Iterable[SSAValue]) -> list[Carry]:
        return [self.carry(v) for v in values]

    # -- writing ---------------------------------------------------------------------------

    def bind(self, value: SSAValue, carry: Carry) -> None:
        """`value` is (re)defined, bringing `carry`."""
        self.moved.pop(value, None)
        if owned(value):
            self.flights[value] = dict(carry.flights)
        if is_stream(value):
            self.streams[value] = carry.streams or frozenset({StreamId(value)})

    def new_stream(self, source: SSAValue) -> StreamId:
        """`source` makes a stream again: the one it made before becomes an earlier one."""
        newest, older = StreamId(source), StreamId(source, earlier=True)
        for flights in self.flights.values():
            use = flights.pop(newest, None)
            if use is not None:
                join_flights(flights, {older: use})
        for value, ids in self.streams.items():
            if newest in ids:
                self.streams[value] = (ids - {newest}) | {older}
        return newest

    def sync(self, ids: Streams) -> None:
        """`host.sync_on` of a value naming `ids`: only one newest stream can be synced."""
        if len(ids) != 1:
            return
        (stream,) = ids
        if stream.earlier:
            return
        for flights in self.flights.values():
            flights.pop(stream, None)
