"""The harness every ferrox conversion shares: how an op that cannot be lowered becomes one
located diagnostic, and how the new ops are inserted and located.

A conversion must never leave a half-rewritten op behind, and must tell the user every op it
cannot lower, each once, at that op's source position, in one error. So a pattern that cannot
lower its op raises `Unsupported` before it changes anything; `Guarded` (for pattern walks) or
`ConversionState.attempt` (for lowerings that visit ops themselves) turns it into
"cannot lower '<op>' to <target>: <reason>" and the pass raises all of them at the end with
`ConversionState.diagnostics.raise_if_errors()`. `Located` gives the ops of patterns that are
not ferrox's (xDSL's) the location of the op they replace.

`Emitter` inserts the ops a lowering produces at one point, each located at the op it replaces,
so a later diagnostic (or a PTX line) points back at the source. The conversions subclass it
with their own vocabulary (SIMT values as parts, f32 arithmetic, ...).

`dispatch(patterns)` applies a list of patterns as xDSL's greedy applier does (in order, the
first that changes the op wins, no folding, no dead-code elimination), but tries on an op only
the patterns that can match its type: a pattern's `match_and_rewrite` typed with
`@op_type_rewrite_pattern` names its op types, and the candidates for each op class are worked
out once. A conversion of a tile kernel visits thousands of ops with about sixty patterns, and
trying each on each was a quarter of the compile. `Guarded` and `Located` reject an op of the
wrong type before their own machinery for the same reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from types import UnionType
from typing import Any, Self, Union, get_args, get_origin

from xdsl.dialects.builtin import LocationAttr, ModuleOp, UnknownLoc
from xdsl.ir import Attribute, Block, ErasedSSAValue, Operation, Region, SSAValue
from xdsl.irdl import OptionalDef
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.typetest import type_test


class Unsupported(Exception):
    """Raised by a lowering, before it changes anything, for an op (or a type) it cannot lower;
    the message becomes a diagnostic at the op. Type conversions subclass it, so a type with no
    lowering is reported like any other unsupported op."""


@dataclass
class ConversionState:
    """One conversion run's diagnostics. `target` names what the conversion lowers to ("nvvm",
    "llvm", "SIMT") in every "cannot lower" message.

    A pattern walk retries an op until nothing changes, so an op that cannot be lowered would be
    reported once per retry; `fail` reports each op once."""

    target: str
    diagnostics: DiagnosticEngine = field(default_factory=DiagnosticEngine)
    reported: list[Operation] = field(default_factory=list[Operation])

    def fail(self, op: Operation, message: str) -> None:
        """Report `message` at `op`, unless `op` was reported already."""
        if not self.was_reported(op):
            self.reported.append(op)
            self.diagnostics.error(op, message)

    def cannot_lower(self, op: Operation, reason: object) -> None:
        """The one wording of a refusal: "cannot lower '<op>' to <target>: <reason>"."""
        self.fail(op, f"cannot lower '{op.name}' to {self.target}: {reason}")

    def was_reported(self, op: Operation) -> bool:
        # Compared by identity: ops compare by value in xDSL, and two equal ops are two reports.
        return any(seen is op for seen in self.reported)

    def attempt(self, op: Operation, lower: Callable[[], None]) -> bool:
        """Run `lower` (which lowers `op`); on `Unsupported`, report it at `op`. Whether it
        succeeded. A lowering that builds new IR it drops on failure (convert-tile-to-simt's
        kernel) may raise after emitting; one that rewrites in place must raise first."""
        try:
            lower()
        except Unsupported as e:
            self.cannot_lower(op, e)
            return False
        return True


def op_types(pattern: RewritePattern) -> tuple[type[Operation], ...] | None:
    """The op classes `pattern` can match, or None for any op.

    Read from what `@op_type_rewrite_pattern` closed over (the annotation of its `op`
    parameter, a class or a union), or from the pattern class's `OP_TYPES` (one that tests the
    op's type itself, against a table, says so there); a wrapper (`Guarded`, `Located`) answers
    for the pattern it wraps. Anything else may match any op (but see `can_match`)."""
    cls = type(pattern)
    found = _OP_TYPES.get(cls, _UNKNOWN)  # (never a wrapper's class: not kept)
    if found is not _UNKNOWN:
        return found
    if isinstance(pattern, Guarded | Located):
        return pattern.types
    if len(_OP_TYPES) >= 1024:  # classes made at run time (a test's) would add one each
        _OP_TYPES.clear()
    found = _OP_TYPES[cls] = _class_op_types(cls)
    return found


_UNKNOWN: Any = object()
_OP_TYPES: dict[type, tuple[type[Operation], ...] | None] = {}
"""`op_types` of each pattern class other than the wrappers: read from the class alone, and
asked again for every pattern a conversion wraps, every compile."""


def _class_op_types(cls: type) -> tuple[type[Operation], ...] | None:
    declared = getattr(cls, "OP_TYPES", None)
    if declared is not None:
        return tuple(declared)
    method = getattr(cls, "match_and_rewrite", None)
    code = getattr(method, "__code__", None)
    cells = getattr(method, "__closure__", None)
    if code is None or cells is None or "expected_type" not in code.co_freevars:
        return None
    expected = cells[code.co_freevars.index("expected_type")].cell_contents
    found = get_args(expected) if get_origin(expected) in (Union, UnionType) else (expected,)
    if not all(isinstance(t, type) and issubclass(t, Operation) for t in found):
        return None
    return tuple(found)


@dataclass
class Guarded(RewritePattern):
    """Runs `pattern`, turning `Unsupported` into one diagnostic at the matched op.

    Sound only because patterns raise before any change; a pattern that has inserted ops must
    not raise."""

    pattern: RewritePattern
    state: ConversionState
    types: tuple[type[Operation], ...] | None = field(init=False)

    def __post_init__(self) -> None:
        self.types = op_types(self.pattern)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if self.types is not None and not isinstance(op, self.types):
            return
        location = op.location

        def stamp(new: Operation) -> None:  # as `Located` does: no op of ours goes unlocated
            if isinstance(new.location, UnknownLoc):
                new.location = location

        rewriter.operation_insertion_handler.append(stamp)
        try:
            self.state.attempt(op, lambda: self.pattern.match_and_rewrite(op, rewriter))
        finally:
            rewriter.operation_insertion_handler.remove(stamp)


@dataclass
class Located(RewritePattern):
    """Runs `pattern`, giving every op it inserts without a location the matched op's location,
    for patterns that do not place their ops with an `Emitter` (xDSL's scf-to-cf)."""

    pattern: RewritePattern
    types: tuple[type[Operation], ...] | None = field(init=False)

    def __post_init__(self) -> None:
        self.types = op_types(self.pattern)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if self.types is not None and not isinstance(op, self.types):
            return
        location = op.location

        def stamp(new: Operation) -> None:
            if isinstance(new.location, UnknownLoc):
                new.location = location

        rewriter.operation_insertion_handler.append(stamp)
        try:
            self.pattern.match_and_rewrite(op, rewriter)
        finally:
            rewriter.operation_insertion_handler.remove(stamp)


_Step = tuple[RewritePattern, "ConversionState | object | None", bool]
"""How `Dispatch` runs one candidate: the pattern itself (a `Guarded` or `Located` unwrapped),
the state that reports its `Unsupported` (`Guarded`'s; `_SHARED` in a plan kept across runs:
the one state of this run's `Guarded` wrappers), and whether the ops it inserts are stamped
with the matched op's location (`Guarded`, `Located`)."""

_SHARED = object()


class Dispatch(RewritePattern):
    """`patterns` applied as a greedy applier without folding or dead-code elimination would
    (in order; the first that changes the op ends the try), each op offered only to the
    patterns that can match its class. The candidates of a class are computed on its first op.

    The `Guarded` and `Located` wrappers are unwrapped here: what they do around each pattern
    (a location stamp on inserted ops, `Unsupported` made a diagnostic) is set up once per op
    rather than once per candidate. Most candidates do not match (a tile kernel's conversion
    offers about 29,000 (op, pattern) pairs and rewrites about 900), so the wrapper's set-up
    was most of what a refusal cost."""

    def __init__(self, patterns: Sequence[RewritePattern]):
        self.patterns = tuple(patterns)
        # Which patterns admit a class depends on the wrapped patterns only, and a conversion
        # wraps the same module-level patterns anew on every run: their answers are kept
        # across runs (`_ADMITTED`), so a compile does not work them out again per op class.
        # So are the plans, where this run's `Guarded` wrappers share one state (`_SHARED`
        # in a plan stands for it), as every conversion's do.
        inner = tuple(_inner(p) for p in self.patterns)
        kinds = tuple(_wrapper(p) for p in self.patterns)
        states = {id(p.state): p.state for p in self.patterns if isinstance(p, Guarded)}
        self._state: ConversionState | None = next(iter(states.values()), None)
        key = (tuple(map(id, inner)), kinds)
        entry = _ADMITTED.get(key)
        if entry is None:
            if len(_ADMITTED) >= _ADMITTED_MAX:
                _ADMITTED.clear()
            # (the patterns are held so that their ids stay theirs while the entry lives)
            entry = _ADMITTED[key] = (inner, [op_types(p) for p in self.patterns], {}, {})
        self._types: list[tuple[type[Operation], ...] | None] = entry[1]
        self._admitted: dict[type[Operation], tuple[int, ...]] = entry[2]
        self._shared = len(states) <= 1
        self._plans: dict[type[Operation], tuple[_Step, ...]] = entry[3] if self._shared else {}
        self._candidates: dict[type[Operation], tuple[RewritePattern, ...]] = {}
        """This run's patterns for each class, made from the shared indices once."""

    def candidates(self, cls: type[Operation]) -> tuple[RewritePattern, ...]:
        mine = self._candidates.get(cls)
        if mine is not None:
            return mine
        found = self._admitted.get(cls)
        if found is None:
            found = self._admitted[cls] = tuple(
                i
                for i, (p, types) in enumerate(zip(self.patterns, self._types, strict=True))
                if _admits(p, types, cls)
            )
        mine = self._candidates[cls] = tuple(self.patterns[i] for i in found)
        return mine

    def _plan(self, cls: type[Operation]) -> tuple[_Step, ...]:
        steps: list[_Step] = []
        for pattern in self.candidates(cls):
            if isinstance(pattern, Guarded):
                steps.append((pattern.pattern, _SHARED if self._shared else pattern.state, True))
            elif isinstance(pattern, Located):
                steps.append((pattern.pattern, None, True))
            else:
                steps.append((pattern, None, False))
        plan = self._plans[cls] = tuple(steps)
        return plan

    def plan(self, cls: type[Operation]) -> tuple[_Step, ...]:
        """How an op of class `cls` is offered to the patterns (empty: none can match it)."""
        plan = self._plans.get(cls)
        return plan if plan is not None else self._plan(cls)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        plan = self._plans.get(type(op))
        if plan is None:
            plan = self._plan(type(op))
        if not plan:
            return
        location = op.location
        stamping = False

        def stamp(new: Operation) -> None:  # Guarded's and Located's: no op of ours unlocated
            if stamping and _is_unknown(new.location):  # (by class: `isinstance` is an ABC's)
                new.location = location

        handlers = rewriter.operation_insertion_handler
        handlers.append(stamp)
        try:
            for pattern, state, stamped in plan:
                stamping = stamped  # read by `stamp`
                if state is None:
                    pattern.match_and_rewrite(op, rewriter)
                else:
                    try:
                        pattern.match_and_rewrite(op, rewriter)
                    except Unsupported as e:  # raised before any change (see Guarded)
                        reporter = self._state if state is _SHARED else state
                        assert isinstance(reporter, ConversionState)
                        reporter.cannot_lower(op, e)
                if rewriter.has_done_action:
                    return
        finally:
            handlers.remove(stamp)


_is_unknown = type_test(UnknownLoc)

_ADMITTED: dict[
    tuple[tuple[int, ...], tuple[int, ...]],
    tuple[
        tuple[RewritePattern, ...],
        list[tuple[type[Operation], ...] | None],
        dict[type[Operation], tuple[int, ...]],
        dict[type[Operation], tuple[_Step, ...]],
    ],
] = {}
"""Per tuple of wrapped patterns (by identity) and of their wrappers (0: none, 1: `Located`,
2: `Guarded`): their op types, for each op class the indices of the patterns that admit it
(`Dispatch.candidates`), and its plan (`Dispatch.plan`, for runs whose `Guarded` wrappers share
one state)."""

_ADMITTED_MAX = 64
"""Entries kept before `_ADMITTED` starts again (conversions built from new pattern objects
each run, such as a test's, would otherwise add one a run)."""


def _wrapper(pattern: RewritePattern) -> int:
    return 2 if isinstance(pattern, Guarded) else int(isinstance(pattern, Located))


def _inner(pattern: RewritePattern) -> RewritePattern:
    return pattern.pattern if isinstance(pattern, Guarded | Located) else pattern


def _admits(pattern: RewritePattern, types: tuple[type[Operation], ...] | None, cls: type) -> bool:
    """Whether `pattern` may match an op of class `cls`: by its op types, else by its
    `can_match(cls)` where it has one (a pattern that matches ops by name), else yes."""
    if types is not None:
        return issubclass(cls, types)
    can_match = getattr(_inner(pattern), "can_match", None)
    return can_match is None or bool(can_match(cls))


def dispatch(patterns: Sequence[RewritePattern]) -> Dispatch:
    """The pattern a `PatternRewriteWalker` takes in place of
    `GreedyRewritePatternApplier(patterns, dce_enabled=False)`: the same rewrites, dispatched
    by op type."""
    return Dispatch(patterns)


@dataclass(eq=False)
class DispatchWalker(PatternRewriteWalker):
    """xDSL's `PatternRewriteWalker` over a `Dispatch`, whose worklist never holds an op that no
    candidate pattern can match (its class has an empty plan: most ops a conversion makes, or
    leaves alone). Offered such an op, `Dispatch` returns at once and changes nothing, so
    leaving it out changes no rewrite and no order (the worklist is a stack, the others keep
    their places in it); it only saves the pops and the fixpoint sweep's offers (a conversion
    walks its module until a sweep changes nothing)."""

    pattern: Dispatch

    def _wanted(self, op: Operation) -> bool:
        return bool(self.pattern.plan(type(op)))

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        if isinstance(op, Region) and not self.walk_regions_first:
            self._push_region(op)  # the walk below in the same order, without its generators
            return
        for sub_op in op.walk(
            reverse=not self.walk_reverse, region_first=not self.walk_regions_first
        ):
            if self._wanted(sub_op):
                self._worklist.push(sub_op)

    def _push_region(self, region: Region) -> None:
        """Push the wanted ops of `region` as `region.walk(reverse=True, region_first=True)`
        yields them: last block first, last op first, an op's regions before the op (with
        `walk_reverse`, as `region.walk(region_first=True)` yields them: first to last)."""
        # Each block's ops followed through their links, not `block.ops`' iterator: the walk
        # runs twice a conversion (its fixpoint sweep), over every op, and the iterator's two
        # Python calls an op were a third of it.
        plans = self.pattern._plans  # pyright: ignore[reportPrivateUsage]
        plan, push = self.pattern.plan, self._worklist.push
        forward = self.walk_reverse
        for block in region.blocks if forward else reversed(region.blocks):
            op = block.first_op if forward else block.last_op
            while op is not None:
                if op.regions:
                    for inner in op.regions if forward else reversed(op.regions):
                        self._push_region(inner)
                wanted = plans.get(type(op))
                if wanted is None:
                    wanted = plan(type(op))
                if wanted:
                    push(op)
                op = op._next_op if forward else op._prev_op  # pyright: ignore[reportPrivateUsage]

    def _add_operands_to_worklist(self, operands: Iterable[SSAValue]) -> None:
        for operand in operands:
            if (
                operand.has_one_use()
                and not isinstance(operand, ErasedSSAValue)
                and isinstance((op := operand.owner), Operation)
                and self._wanted(op)
            ):
                self._worklist.push(op)

    def _handle_operation_insertion(self, op: Operation) -> None:
        if self.apply_recursively and self._wanted(op):
            self._worklist.push(op)

    def _handle_operation_modification(self, op: Operation) -> None:
        if self.apply_recursively and self._wanted(op):
            self._worklist.push(op)

    def _handle_operation_replacement(
        self, op: Operation, new_results: Sequence[SSAValue | None]
    ) -> None:
        if self.apply_recursively:
            for result in op.results:
                for user in result.uses:
                    if self._wanted(user.operation):
                        self._worklist.push(user.operation)


def rewrite_module(
    patterns: Sequence[RewritePattern],
    module: ModuleOp,
    *,
    apply_recursively: bool = True,
    reverse: bool = False,
) -> bool:
    """`PatternRewriteWalker(dispatch(patterns)).rewrite_module(module)`, on a `DispatchWalker`:
    the same rewrites in the same order (`reverse`: the walker's `walk_reverse`, each block's
    ops last first). Whether anything changed."""
    walker = DispatchWalker(
        dispatch(patterns), apply_recursively=apply_recursively, walk_reverse=reverse
    )
    return walker.rewrite_module(module)


_DEFAULTS: dict[type[Operation], tuple[tuple[tuple[str, Attribute], ...], ...]] = {}


def _defaults(
    cls: type[Operation],
) -> tuple[tuple[tuple[str, Attribute], ...], ...]:
    """The default properties and attributes `cls.create` fills in (`IRDLOperation`'s
    `__post_init__`): the required ones that have a default, in definition order."""
    found = _DEFAULTS.get(cls)
    if found is None:
        op_def = cls.get_irdl_definition()  # type: ignore[attr-defined]
        found = _DEFAULTS[cls] = tuple(
            tuple(
                (name, d.default_value)
                for name, d in defs.items()
                if not isinstance(d, OptionalDef) and d.default_value is not None
            )
            for defs in (op_def.properties, op_def.attributes)
        )
    return found


def morph(
    rewriter: PatternRewriter,
    op: Operation,
    target: type[Operation],
    operands: Sequence[SSAValue],
    types: Sequence[Attribute],
    properties: dict[str, Attribute],
    attributes: dict[str, Attribute] | None = None,
) -> None:
    """Turn `op` into an op of class `target` in place: `replace_op(rewriter, op, [new])` for a
    `new = target.create(operands=operands, result_types=types, properties=properties,
    successors=op.successors)` with as many results as `op` and no regions (a branch keeps its
    successors: `cf.br` and `llvm.br` have the same operands and successors), without making
    `new`.

    The op keeps its place, location and result values (their names, their uses); a result whose
    type changes (`index` to `i64`) changes type in place, so its users, rewritten later, take it
    as it is instead of through a cast back (a user rewritten earlier took it through a cast,
    which now casts to its own type and folds away in `casts.reconcile`). Its discardable
    attributes go: it gets those `new` would have (the defaults `create` fills in, as it does
    the default properties), then `attributes`. Building `new`, inserting it, moving every use to it
    and erasing `op` (xDSL's `replace` and its listeners) were most of what a one-to-one op's
    conversion cost."""
    assert len(types) == len(op.results) and not op.regions
    current = op.operands
    if len(operands) != len(current):
        op.operands = operands
    else:  # (the lengths are equal: plain `zip`s, here and below, a few hundred times a kernel)
        for i, (old, new) in enumerate(zip(current, operands)):
            if old is not new:
                current[i] = new
    for result, t in zip(op.results, types):
        if result.type is not t and result.type != t:
            result._type = t  # pyright: ignore[reportPrivateUsage]
    op.__class__ = target
    default_properties, default_attributes = _defaults(target)
    op.properties = dict(properties)
    for name, value in default_properties:
        op.properties.setdefault(name, value)
    op.attributes = dict(default_attributes)
    if attributes:
        op.attributes.update(attributes)
    rewriter.has_done_action = True
    rewriter.handle_operation_modification(op)


@dataclass
class Emitter:
    """Inserts ops at `point`, each given `location` (when set).

    Inside a pattern, pass the walker's `rewriter`: the walker then sees every new op (and
    revisits it). A lowering that builds new IR outside a pattern walk leaves it None. `origin`
    is the op being lowered, for builders that read its context (the enclosing kernel, say)
    while inserting into a block not yet attached.
    """

    point: InsertPoint
    location: LocationAttr | None = None
    rewriter: PatternRewriter | None = None
    origin: Operation | None = None

    @classmethod
    def before(cls, rewriter: PatternRewriter, op: Operation) -> Self:
        """The emitter a pattern uses: ops go before `op` and carry its location."""
        return cls(InsertPoint.before(op), op.location, rewriter, op)

    def at(self, point: InsertPoint) -> Self:
        """The same emitter (same location, rewriter and vocabulary) inserting at `point`."""
        return replace(self, point=point)

    def emit(self, new: Operation) -> Operation:
        """Insert `new` and return it."""
        if self.location is not None:
            new.location = self.location
        self._insert(new)
        return new

    def emit_all(self, new: Sequence[Operation]) -> Sequence[Operation]:
        """Insert every op of `new`, in order, as `emit` inserts each (one insertion for all:
        a wgmma's 128 `llvm.extractvalue`s)."""
        if self.location is not None:
            for op in new:
                op.location = self.location
        self._insert(new)
        return new

    def _insert(self, new: Operation | Sequence[Operation]) -> None:
        if self.rewriter is not None:
            self.rewriter.insert(new, self.point)
        else:
            Rewriter.insert_op(new, self.point)

    def __call__(self, new: Operation, name: str | None = None) -> SSAValue:
        """Insert `new` and return its only result (named `name`, for readable IR)."""
        result = self.emit(new).results[0]
        if name:
            result.name_hint = name
        return result


__all__ = [
    "ConversionState",
    "Dispatch",
    "DispatchWalker",
    "Emitter",
    "Guarded",
    "Located",
    "Unsupported",
    "dispatch",
    "morph",
    "op_types",
    "rewrite_module",
]
