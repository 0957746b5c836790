"""`check_nesting` on text with more brackets than MAX_NESTING (its token-by-token scan): what
counts as a level (not a bracket in a comment or a string, not the `>` of `->`), and where its
diagnostics point (line and column, past comments, strings and arrows on earlier lines)."""

from __future__ import annotations

import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.parser import MAX_NESTING, check_nesting

# Enough brackets elsewhere that the scan runs (more opening brackets than MAX_NESTING).
_MANY = "\n".join("// (((( [[[[ {{{{ <<<<" for _ in range(10)) + "\n" + "()" * 60 + "\n"


def _deep(depth: int, extra: str = "") -> str:
    """Brackets `depth` levels deep on the text's last line, with arrows, a string and a
    comment on the way that open nothing."""
    half = depth // 2
    return (
        _MANY
        + 'x = "(((<<<[[[" -> y\n'
        + extra
        + "(" * half
        + ' -> "{{{" '
        + "<" * (depth - half)
        + " // ((((\n"
    )


def _located(text: str) -> tuple[int, int, str]:
    with pytest.raises(DiagnosticError) as e:
        check_nesting(text, "t.mlir", 10)
    (d,) = e.value.diagnostics
    assert d.loc.file == "t.mlir"
    return d.loc.line, d.loc.col, d.message


def test_the_limit_itself_passes_and_one_deeper_is_located():
    assert sum(_deep(MAX_NESTING).count(c) for c in "([{<") > MAX_NESTING
    check_nesting(_deep(MAX_NESTING), "t.mlir")
    lines = _MANY.count("\n") + 2  # the string's line, then the deep one
    half = (MAX_NESTING + 1) // 2
    # the 101st bracket: after `half` parentheses, ` -> "{{{" ` and the other `<`s
    column = half + len(' -> "{{{" ') + (MAX_NESTING + 1 - half)
    assert _located(_deep(MAX_NESTING + 1)) == (
        lines + 10,
        column,
        f"brackets nest deeper than {MAX_NESTING} levels, the most ferrox accepts",
    )


def test_closing_brackets_and_arrows():
    # `->` closes nothing, `>` and `)` close one level each (never below zero)
    text = _MANY + "))))" + "<" * 60 + "->" * 50 + ">" * 60 + "(" * MAX_NESTING + "\n"
    check_nesting(text, "t.mlir")
    assert _located(text + "(" * (MAX_NESTING + 1))[0] == _MANY.count("\n") + 2 + 10


def test_a_bad_string_in_deep_text_is_located():
    text = _deep(10, extra='z = "closed"\nw = "open\n')
    line, column, message = _located(text)
    assert (line, column) == (_MANY.count("\n") + 3 + 10, 5)
    assert message == "string literal is not closed before the end of its line"
    line, column, message = _located(_deep(10, extra='a = "x" "bad \\q"\n'))
    assert (line, column) == (_MANY.count("\n") + 2 + 10, 14)
    assert message.startswith("bad escape in string literal")
