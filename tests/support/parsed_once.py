"""One parse per text in a test process, for the entry points that parse on their way to
something else: `ferrox-opt` run in the worker (lit's RUN lines, the expectation mutations of
tests/filecheck/test_expectations_bite.py: each file's chunks parsed again for every RUN line
and every mutation), `ferrox.parser.parse_module` as `parse_source` reaches it (`ferrox run`,
the run API, the host program), and the test helpers that parse an example as their setup
(`parse_once`: to compile, run or lower it). About 3,000 of a run's 7,700 parses were
repeats of a text the same worker had parsed, 36 of its 56 seconds of parsing.

A repeat gets a copy of the first parse's module (`faithful_copy`: the same ops, attributes,
locations and value names, so it prints the same, locations included), about a tenth of a parse.
Only successful parses are kept: a text that fails is parsed again each time and fails with its
own error. The parser's own tests (the parse itself, `parse_split`, locations) import
`parse_module` by name and keep the real one; so does every test that does."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

_KEPT_CHARS = 4_000_000
"""The kept modules' source text at most (the latest parsed or asked for stay)."""


def faithful_copy(module: ModuleOp) -> ModuleOp:
    """`module.clone()` with each value's and block's name as the parse gave it: xDSL's clone
    sets names through the setter, which drops a `_<digits>` suffix (`%ka0_0` would print as
    `%ka0`)."""
    copy = module.clone()
    for old, new in zip(module.walk(), copy.walk(), strict=True):
        for a, b in zip(old.results, new.results, strict=True):
            b._name = a._name
        for old_region, new_region in zip(old.regions, new.regions, strict=True):
            for old_block, new_block in zip(old_region.blocks, new_region.blocks, strict=True):
                new_block._name = old_block._name
                for a, b in zip(old_block.args, new_block.args, strict=True):
                    b._name = a._name
    return copy


def _context_key(ctx: Context) -> tuple:
    """What of a context decides a parse: the dialects it may load, the ops loaded outside
    them, and whether unregistered ops are allowed."""
    registered = tuple(ctx.registered_dialect_names)
    names = set(registered)
    loose = tuple(op for op in ctx._loaded_ops if op.split(".", 1)[0] not in names)
    return ctx.allow_unregistered, registered, loose


class ParsedOnce:
    """`parse(ctx, text, name, line_offset)` with repeats answered by a copy (module doc)."""

    def __init__(self, parse: Callable[..., ModuleOp]):
        self.parse = parse
        self.kept: OrderedDict[tuple, tuple[ModuleOp, tuple[str, ...]]] = OrderedDict()
        self.chars = 0
        self.hits = 0

    def __call__(self, ctx: Context, text: Any, name: str = "<stdin>", line_offset: int = 0):
        key = (text, name, line_offset, _context_key(ctx))
        found = self.kept.get(key)
        if found is not None:
            self.kept.move_to_end(key)
            self.hits += 1
            module, dialects = found
            for dialect in dialects:  # what the parse loaded into its context, as it would
                if dialect not in ctx._loaded_dialects and dialect in ctx._registered_dialects:
                    ctx.load_registered_dialect(dialect)
            return faithful_copy(module)
        module = self.parse(ctx, text, name, line_offset)
        self.kept[key] = faithful_copy(module), tuple(ctx._loaded_dialects)
        self.chars += len(text)
        while self.chars > _KEPT_CHARS and len(self.kept) > 1:
            (old_text, *_), _ = self.kept.popitem(last=False)
            self.chars -= len(old_text)
        return module


def install() -> None:
    """Route this process's `ferrox-opt` parse and `ferrox.parser.parse_module` (as
    `parse_source` and later imports reach it) through one `ParsedOnce`."""
    import ferrox.parser
    from ferrox.driver.tools import opt

    if isinstance(ferrox.parser.parse_module, ParsedOnce):
        return
    once = ParsedOnce(ferrox.parser.parse_module)
    ferrox.parser.parse_module = once  # type: ignore[assignment]
    opt.parse_module = once  # type: ignore[assignment]


def parse_once(ctx: Context, text: Any, name: str = "<stdin>", line_offset: int = 0) -> ModuleOp:
    """For a test helper whose parse is setup (an example to compile, run or lower), not what
    it tests: the process's shared parse where `install` ran, else the real one."""
    import ferrox.parser

    return ferrox.parser.parse_module(ctx, text, name, line_offset)
