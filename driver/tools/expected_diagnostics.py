"""`--verify-diagnostics`: match produced diagnostics against `expected-*` annotations.

Follows MLIR's semantics. An annotation `// expected-error@+1 {{text}}` expects an error on the
next line whose message contains `text`; `@-N` looks back, `@above` / `@below` name the nearest
line that carries no annotation of its own, and no designator means this line. `expected-error-re
{{a {{[0-9]+}} b}}` mixes literal text with regexes in nested braces; `{{re:...}}` is a regex
throughout. The run passes only when every expectation is met and nothing else was reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ferrox.diagnostics import Diagnostic, DiagnosticError, SourceLoc
from ferrox.parser import MAX_NESTING

_ANNOTATION = re.compile(
    r"expected-(?P<sev>error|warning|note|remark)(?P<re>-re)?"
    r"(?:@(?P<where>[+-]\d+|above|below))?\s*\{\{(?P<body>.*)\}\}"
)


@dataclass
class Expectation:
    severity: str
    line: int
    pattern: re.Pattern[str]
    text: str
    annotation_line: int
    matched: bool = False


class BadPattern(Exception):
    """A regex in an annotation that Python's `re` refuses; `offset` is where, in the body."""

    def __init__(self, why: str, offset: int):
        super().__init__(why)
        self.why, self.offset = why, offset


def _compile(regex: str, at: int) -> re.Pattern[str]:
    """`regex` (which starts at offset `at` of the body), or BadPattern saying why not. Groups
    nested deeper than the parser's MAX_NESTING would recurse through `re`'s own parser."""
    depth = 0
    for i, c in enumerate(regex):
        if c == "(" and (i == 0 or regex[i - 1] != "\\"):
            depth += 1
            if depth > MAX_NESTING:
                raise BadPattern(f"groups nest deeper than {MAX_NESTING} levels", at + i)
        elif c == ")" and (i == 0 or regex[i - 1] != "\\"):
            depth = max(depth - 1, 0)
    try:
        return re.compile(regex)
    except re.error as e:
        raise BadPattern(e.msg, at + (e.pos or 0)) from None
    except OverflowError as e:  # `a{99999999999}`
        raise BadPattern(str(e), at) from None


def _pattern(body: str, mixed_regex: bool) -> re.Pattern[str]:
    if body.startswith("re:"):
        return _compile(body[3:], 3)
    if not mixed_regex:
        return re.compile(re.escape(body))
    parts: list[str] = []
    pos = 0
    for m in re.finditer(r"\{\{(.*?)\}\}", body):
        parts.append(re.escape(body[pos : m.start()]))
        _compile(m.group(1), m.start(1))  # each piece on its own, for the place it goes wrong
        parts.append(f"(?:{m.group(1)})")
        pos = m.end()
    parts.append(re.escape(body[pos:]))
    try:
        return _compile("".join(parts), 0)
    except BadPattern as e:  # pieces that clash (a group name defined twice): at the body
        raise BadPattern(e.why, 0) from None


def parse_expectations(
    text: str, line_offset: int = 0, filename: str = "<stdin>"
) -> list[Expectation]:
    """Every annotation in `text`, with the absolute line it targets. A regex that does not
    compile is a DiagnosticError at its place in the annotation (the check it asks for cannot
    be made, so the run cannot pass)."""
    lines = text.splitlines()
    annotated = [bool(_ANNOTATION.search(line)) for line in lines]
    found: list[Expectation] = []
    for index, line in enumerate(lines):
        for m in _ANNOTATION.finditer(line):
            where = m.group("where")
            target = index
            if where == "above":
                target = index - 1
                while target >= 0 and annotated[target]:
                    target -= 1
            elif where == "below":
                target = index + 1
                while target < len(lines) and annotated[target]:
                    target += 1
            elif where:
                target = index + int(where)
            body = m.group("body")
            try:
                pattern = _pattern(body, bool(m.group("re")))
            except BadPattern as e:
                kind = f"expected-{m.group('sev')}{m.group('re') or ''}"
                loc = SourceLoc(filename, index + 1 + line_offset, m.start("body") + e.offset + 1)
                message = f"bad regular expression in {kind}: {e.why}"
                raise DiagnosticError([Diagnostic("error", message, loc)]) from None
            found.append(
                Expectation(
                    m.group("sev"),
                    target + 1 + line_offset,
                    pattern,
                    body,
                    index + 1 + line_offset,
                )
            )
    return found


def flatten(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Notes are checked like any other diagnostic, as MLIR does."""
    out: list[Diagnostic] = []
    for d in diagnostics:
        out.append(Diagnostic(d.severity, d.message, d.loc))
        out.extend(flatten(d.notes))
    return out


def check(
    diagnostics: list[Diagnostic], expectations: list[Expectation], filename: str
) -> list[str]:
    """The problems, as MLIR-style error lines; empty when everything matched."""
    problems: list[str] = []
    for diag in flatten(diagnostics):
        match = next(
            (
                e
                for e in expectations
                if not e.matched
                and e.severity == diag.severity
                and e.line == diag.loc.line
                and e.pattern.search(diag.message)
            ),
            None,
        )
        if match is None:
            problems.append(f"{diag.loc}: error: unexpected {diag.severity}: {diag.message}")
        else:
            match.matched = True
    for e in expectations:
        if not e.matched:
            problems.append(
                f"{filename}:{e.annotation_line}:1: error: expected {e.severity} "
                f'"{e.text}" was not produced (on line {e.line})'
            )
    return problems
