"""Parse a module's device code now and its host code later, for a compile.

A compile lowers only a module's kernels and device functions; its host program (top-level
`func.func`s that are not kernels, such as an example's `@main`) is dropped by the lowering and
read again only for the artifact's source text and the op verifiers, which run while LLVM and
ptxas work (`targets/compile.py`). Parsing it was more than half of the parse of a small example
(vecadd: its `@main` is 13 of its 23 ops). So `parse_split` parses the text with the host
functions blanked out, and returns with the module a `rest` that parses them and appends them
to it, as they were; the compile calls it where this process would otherwise wait.

The result is the module a whole parse gives, op for op: same ops, same order, same locations
(the blanked text keeps every other character where it was, so lines and columns do not move).
Only host functions that come after every other top-level op are deferred, so appending them
restores the order. Anything unusual (attribute or type aliases, a host function that is not the
last, text after one on its line, the kernel attribute in one) parses the whole text at once.
Any error in either part also parses the whole text, whose error (or module) is then the answer:
the split can only save time, never change an outcome. `tests/parser/test_parse_split.py`
compares it with a whole parse on every example and FileCheck input.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from ferrox.parser import parse_module

KERNEL_ATTR = "nvvm.kernel"
"""A `func.func` with this attribute is a kernel (`lowering/simt_to_nvvm/support.py`)."""

_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[{}]')
# Each at a line's start, searched in the text after a newline (a literal first is far faster
# than `^` with MULTILINE); a match's start there is its line's start in the text.
_HOST_START = re.compile(r"\n[ \t]*func\.func\b")
_ALIAS = re.compile(r"\n[ \t]*[#!][\w.$-]+[ \t]*=")
_MODULE_START = re.compile(r"(?:[ \t\r\n]+|//[^\n]*)*(?:builtin\.)?module\b")
_TAIL = re.compile(r"[ \t\r]*(?://[^\n]*)?(?:\n|$)")
_SPACE = re.compile(r"(?:[ \t\r\n]+|//[^\n]*)*")
_QUOTES = re.compile(r'"(?:[^"\\\n]|\\.)*"|"')
"""A string that ends on its line, or a quote that opens one that does not (`"` alone), which
makes the text not plain (a quote in a comment may, too: then the text is parsed whole)."""


def parse_split(
    ctx: Context, text: str, name: str = "<stdin>"
) -> tuple[ModuleOp, Callable[[], None] | None]:
    """The module of `text` without its trailing host functions, and a `rest` that appends them
    (None where nothing was deferred: the module is whole). `rest` raises what a whole parse of
    `text` raises; it must be called before anything reads the host code."""
    spans = _host_spans(text)
    if not spans:
        return parse_module(ctx, text, name), None
    device = _blanked(text, spans, keep_spans=False)
    try:
        module = parse_module(ctx, device, name)
    except Exception:
        return parse_module(ctx, text, name), None  # its error, or (not expected) its module
    if len(module.body.blocks) != 1:  # (the verifiers refuse it: no block to append to)
        return parse_module(ctx, text, name), None

    def rest() -> None:
        host = _blanked(text, spans, keep_spans=True)  # made here, off the compile's path
        try:
            ops = list(parse_module(ctx, host, name).ops)
        except Exception:
            whole = parse_module(ctx, text, name)  # raises the whole text's error, if any
            ops = list(whole.ops)[-len(spans) :]
        if len(ops) != len(spans):
            raise AssertionError(
                f"internal error: {len(spans)} host functions deferred, {len(ops)} parsed"
            )
        for op in ops:
            op.detach()
            module.body.block.add_op(op)

    return module, rest


def _host_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each top-level host `func.func` that follows every other top-level
    op; none where the text is anything but plain."""
    lines = "\n" + text
    if _ALIAS.search(lines) or KERNEL_ATTR in text or _open_string(text):
        return []
    base = 1 if _MODULE_START.match(text) else 0
    starts = [m.start() for m in _HOST_START.finditer(lines)]
    if not starts:
        return []
    spans: list[tuple[int, int]] = []
    # Scanned from the first host function on, taken to be at the module's top level: were it
    # not, the text after it would not close exactly the module's brace (checked at the end).
    depth, pending = base, 0  # pending: the next host start to look at
    opened_at: int | None = None  # where the current host function's first `{` group began
    start: int | None = None
    for m in _SCAN.finditer(text, starts[0]):
        while pending < len(starts) and starts[pending] < m.start():
            if depth != base:
                return []  # a nested func.func, or one inside a string or comment: not plain
            if start is not None:
                return []  # the previous one has not ended
            start, pending = starts[pending], pending + 1
        token = m.group()
        if token[0] in '"/':
            continue
        if token == "{":
            depth += 1
            if start is not None and depth == base + 1 and opened_at is None:
                opened_at = m.start()
            continue
        depth -= 1
        if depth < 0:
            return []
        if start is not None and depth == base and opened_at is not None:
            # A `{...}` group of the function closed: a region follows an attribute dictionary.
            after = _skip_space(text, m.end())
            if after < len(text) and text[after] == "{":
                continue
            tail = _TAIL.match(text, m.end())
            if tail is None:
                return []  # something else on the line after the function
            spans.append((start, m.end()))
            start, opened_at = None, None
    if start is not None or pending < len(starts) or depth != 0 or not spans:
        return []
    # Only whitespace, comments and the module's closing brace after the first host function.
    rest = text[spans[0][0] :]
    for s, e in reversed(spans):
        rest = rest[: s - spans[0][0]] + rest[e - spans[0][0] :]
    leftover = re.sub(r"//[^\n]*|\s+", "", rest)
    if leftover != ("}" if base else ""):
        return []
    return spans


def _open_string(text: str) -> bool:
    return '"' in text and any(m.end() - m.start() == 1 for m in _QUOTES.finditer(text))


def _skip_space(text: str, pos: int) -> int:
    m = _SPACE.match(text, pos)
    return m.end() if m is not None else pos


def _blanked(text: str, spans: list[tuple[int, int]], *, keep_spans: bool) -> str:
    """`text` with all but the spans blanked (`keep_spans`), or with the spans blanked, every
    newline kept so that each character keeps its line and column."""
    parts, last = [], 0
    for start, end in spans:
        parts.append(_blank(text[last:start]) if keep_spans else text[last:start])
        parts.append(text[start:end] if keep_spans else _blank(text[start:end]))
        last = end
    parts.append(_blank(text[last:]) if keep_spans else text[last:])
    return "".join(parts)


def _blank(text: str) -> str:
    """Each character but a newline a space (a regular expression's substitution of each
    character took a tenth of a small example's device parse)."""
    return "\n".join(" " * len(line) for line in text.split("\n"))


__all__ = ["parse_split"]
