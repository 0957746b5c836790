"""xDSL's parser and constraint messages, said in the op's own words.

xDSL reports what its generic machinery saw (`index should be of base attribute
simt.thread_index`, `Operation simt.get_mut terminates block in single-block region but is not a
terminator`, ` in block definition`); the user needs what the op wanted, what they wrote, and
how to make the right thing. Each translator here matches one such message and rewrites the
diagnostic: message, the span to underline, its label, notes at the other places involved, and a
`help:` line. The raw message stays in the `Diagnostic` the verifiers raise (the Python API, and
`--verify-diagnostics`, see it unchanged); only what the tools print is translated.

Translators read the source text (the op's name and operands at the diagnostic's column, the
definition of a value, the brackets) and, when the diagnostic came from the verifier, the op
itself (`Diagnostic.subject`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from ferrox.diagnostic_suggest import did_you_mean, suggest_registered
from ferrox.diagnostics import Diagnostic, SourceLoc

Lines = list[str] | None
_VALUE = r"%[\w$.-]+"
_OP_AT = re.compile(rf'(?:{_VALUE}(?::\d+)?(?:\s*,\s*{_VALUE})*\s*=\s*)?"?([A-Za-z_][\w$.]*)')


def translate(d: Diagnostic, lines: Lines) -> Diagnostic:
    """`d` in the op's own words when one of the translators knows its message, else `d`."""
    for pattern, translator in _TRANSLATORS:
        m = pattern.search(d.message)
        if m is not None:
            result = translator(d, m, lines)
            if result is not None:
                return result
    return d


def _line(lines: Lines, number: int) -> str:
    if lines is None or not 1 <= number <= len(lines):
        return ""
    return lines[number - 1]


def op_at(lines: Lines, loc: SourceLoc) -> str | None:
    """The name of the op written at `loc` (`%x = simt.load ...` or `"simt.load"(...)`)."""
    text = _line(lines, loc.line)[max(loc.col - 1, 0) :]
    m = _OP_AT.match(text)
    return m[1] if m else None


def _subject_op(d: Diagnostic):
    from xdsl.ir import Operation

    return d.subject if isinstance(d.subject, Operation) else None


def _op_name(d: Diagnostic, lines: Lines) -> str:
    op = _subject_op(d)
    if op is not None:
        return op.name
    return op_at(lines, d.loc) or "this op"


def _with(d: Diagnostic, **changes: object) -> Diagnostic:
    return dataclasses.replace(d, **changes)  # type: ignore[arg-type]


def _note(loc: SourceLoc, message: str, focus: str = "") -> Diagnostic:
    return Diagnostic("note", message, loc, focus=focus)


# -- a witness where the op takes one, and other base-attribute constraints ---------------------


def _base_attribute(d: Diagnostic, m: re.Match[str], lines: Lines) -> Diagnostic | None:
    found, base = m["found"], m["base"]
    op = _op_name(d, lines)
    if base == "simt.thread_index":
        rest = _line(lines, d.loc.line)[max(d.loc.col - 1, 0) :]
        index = re.search(rf"\[\s*({_VALUE})\s*\]", rest)
        focus = index[1] if index else ""
        helps: list[str] = []
        if focus and lines is not None:
            definer = re.compile(rf"^\s*{re.escape(focus)}\s*=\s*simt\.witness_value\s+({_VALUE})")
            for text in lines[: d.loc.line]:
                w = definer.match(text)
                if w:
                    helps.append(
                        f"pass the witness `{w[1]}` itself: `{focus}` is its plain index, read "
                        "by `simt.witness_value`"
                    )
        return _with(
            d,
            message=f"`{op}` needs a witness (`!simt.thread_index<...>`) as its index, "
            f"found `{found}`",
            label=f"expected a witness, found `{found}`",
            focus=focus,
            help=helps,
        )
    sigil = found[0] if found[:1] in ("!", "#") else ""
    wanted = f"{sigil}{base}<...>" if sigil and "<" in found else f"{sigil}{base}"
    text = _line(lines, d.loc.line)
    return _with(
        d,
        message=f"mismatched types: `{op}` expects `{wanted}` here, found `{found}`",
        label=f"expected `{wanted}`, found `{found}`",
        focus=found if found in text else "",
        help=[_BASE_HELP[base]] if base in _BASE_HELP else [],
    )


_BASE_HELP = {
    "simt.disjoint_slice": "a kernel writes only its exclusive outputs: declare this parameter "
    "`!simt.disjoint_slice<T, 1d>` (or another index space) and write it through a witness",
    "simt.slice": "a kernel reads a `!simt.slice<T>` parameter (a shared input)",
    "simt.atomic_slice": "atomics update a `!simt.atomic_slice<T>` parameter",
}


# -- a block that does not end with its terminator ----------------------------------------------


def _terminator_of(parent: str) -> str | None:
    """The terminator op that names `parent` in its HasParent trait (simt.kernel: simt.return)."""
    from xdsl.traits import HasParent, IsTerminator

    from ferrox import registry

    dialect = registry.all_dialects().get(parent.partition(".")[0])
    if dialect is None:
        return None
    ops = list(dialect().operations)
    parent_class = next((op for op in ops if op.name == parent), None)
    for op in ops:
        if not op.has_trait(IsTerminator):
            continue
        trait = op.get_trait(HasParent)
        if trait is not None and parent_class in trait.op_types:
            return op.name
    return None


def _enclosing_op(lines: Lines, loc: SourceLoc) -> tuple[str, SourceLoc] | None:
    """The op whose `{` opens the region `loc` is in, by the text: the nearest unclosed `{`
    above (a block label `^bb0(...):` is not an op)."""
    if lines is None:
        return None
    depth = 0
    for number in range(loc.line - 1, 0, -1):
        text = _strip_comment(lines[number - 1])
        depth += text.count("}") - text.count("{")
        if depth < 0:
            stripped = text.lstrip()
            col = len(text) - len(stripped) + 1
            name = op_at(lines, SourceLoc(loc.file, number, col))
            if name is None or stripped.startswith("^"):
                depth = 0
                continue
            return name, SourceLoc(loc.file, number, col)
    return None


def _not_a_terminator(d: Diagnostic, m: re.Match[str], lines: Lines) -> Diagnostic | None:
    last = m["op"]
    op = _subject_op(d)
    parent, parent_loc = None, None
    if op is not None and op.parent_op() is not None:
        from ferrox.diagnostics import location_of

        parent, parent_loc = op.parent_op().name, location_of(op.parent_op())
    else:
        found = _enclosing_op(lines, d.loc)
        if found is not None:
            parent, parent_loc = found
    terminator = _terminator_of(parent) if parent else None
    if parent is None:
        message = f"this block does not end with a terminator: `{last}` is not one"
    elif terminator is None:
        message = f"the body of `{parent}` does not end with a terminator"
    else:
        message = f"the body of `{parent}` does not end with `{terminator}`"
    notes = list(d.notes)
    if parent_loc is not None and parent_loc.file:
        notes.append(_note(parent_loc, f"the body of this `{parent}`", focus=parent or ""))
    helps = [f"add `{terminator}` after this `{last}`"] if terminator else []
    return _with(
        d,
        message=message,
        label=f"the body ends here, with `{last}`, which is not a terminator",
        focus=last,
        notes=notes,
        help=helps,
    )


# -- an unclosed `{` ------------------------------------------------------------------------------


def _strip_comment(text: str) -> str:
    """The line without its `//` comment and string literals (their brackets do not count)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', lambda s: " " * len(s[0]), text)
    cut = text.find("//")
    return text if cut < 0 else text[:cut]


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _unclosed(d: Diagnostic, m: re.Match[str], lines: Lines) -> Diagnostic | None:
    if lines is None:
        return None
    stack: list[tuple[int, int]] = []  # (line, col) of open `{`
    mismatch: tuple[tuple[int, int], tuple[int, int]] | None = None
    for number, raw in enumerate(lines, 1):
        text = _strip_comment(raw)
        for col, c in enumerate(text, 1):
            if c == "{":
                stack.append((number, col))
            elif c == "}" and stack:
                opened = stack.pop()
                opener_indent = _indent(lines[opened[0] - 1])
                if mismatch is None and col - 1 == _indent(raw) and col - 1 != opener_indent:
                    mismatch = (opened, (number, col))
    if not stack:
        return None
    f = d.loc.file
    notes = [_note(SourceLoc(f, line, col), "unclosed delimiter", "{") for line, col in stack]
    if mismatch is not None:
        (ol, oc), (cl, cc) = mismatch
        notes.append(
            _note(SourceLoc(f, ol, oc), "this delimiter might not be properly closed...", "{")
        )
        notes.append(
            _note(
                SourceLoc(f, cl, cc), "...as it matches this but it has different indentation", "}"
            )
        )
    return _with(
        d, message="this file contains an unclosed delimiter", notes=notes, label="", length=1
    )


# -- mismatched types ---------------------------------------------------------------------------


def conversion(src: str, dst: str) -> str | None:
    """The arith op that converts a `src` value to `dst`, for the help line."""
    ints = re.fullmatch(r"i(\d+)", src), re.fullmatch(r"i(\d+)", dst)
    floats = re.fullmatch(r"(?:f|bf)(\d+)", src), re.fullmatch(r"(?:f|bf)(\d+)", dst)
    if ints[0] and floats[1]:
        return "arith.sitofp"
    if floats[0] and ints[1]:
        return "arith.fptosi"
    if floats[0] and floats[1]:
        return "arith.extf" if int(floats[1][1]) > int(floats[0][1]) else "arith.truncf"
    if ints[0] and ints[1]:
        return "arith.extsi" if int(ints[1][1]) > int(ints[0][1]) else "arith.trunci"
    if src == "index" and ints[1] or ints[0] and dst == "index":
        return "arith.index_cast"
    return None


def _convert_help(value: str, src: str, dst: str) -> list[str]:
    op = conversion(src, dst)
    if op is None:
        return []
    return [f"convert {value} to `{dst}` with `{op}`, or change one of the two types"]


def _variable(d: Diagnostic, m: re.Match[str], lines: Lines) -> Diagnostic | None:
    first, second = m["first"], m["second"]
    op = _op_name(d, lines)
    focus = ""
    subject = _subject_op(d)
    if subject is not None and m["pos"] is not None and int(m["pos"]) < len(subject.operands):
        hint = subject.operands[int(m["pos"])].name_hint
        focus = f"%{hint}" if hint else ""
    what = focus or "the value"
    return _with(
        d,
        message=f"mismatched types: `{op}` needs these values to have one type, found "
        f"`{first}` and `{second}`",
        label=f"expected `{first}`, found `{second}`",
        focus=focus,
        help=_convert_help(what, second, first),
    )


def _definition(lines: list[str], name: str, before: int) -> int | None:
    """The line (1-based) at or above `before` that defines `name` (a result, or an argument
    of a function, kernel or block signature)."""
    definition = re.compile(
        rf"^\s*(?:{_VALUE}\s*,\s*)*{re.escape(name)}(?:\s*,\s*{_VALUE})*\s*=(?!=)"
        rf"|(?:@[\w$.-]+|\^[\w$.-]+)\s*\([^)]*{re.escape(name)}\s*:"
    )
    for number in range(min(before, len(lines)), 0, -1):
        if definition.search(lines[number - 1]):
            return number
    return None


def _type_at(text: str, start: int) -> str:
    """The type written from `start` to the first `,` or `)` outside brackets (or the end)."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "<([{":
            depth += 1
        elif c in ">)]}" and not (c == ">" and text[i - 1] == "-"):
            if depth == 0:
                return text[start:i].strip()
            depth -= 1
        elif c == "," and depth == 0:
            return text[start:i].strip()
    return text[start:].strip()


def _declared_type(lines: list[str], value: str, before: int) -> tuple[int, int, str] | None:
    """(line, column, type) of `value`'s signature declaration (`%a: !simt.slice<f32>`)."""
    number = _definition(lines, value, before)
    if number is None:
        return None
    m = re.search(rf"{re.escape(value)}\s*:\s*", lines[number - 1])
    if m is None:
        return None
    return number, m.start() + 1, _type_at(lines[number - 1], m.end())


def _written_against_declared(
    d: Diagnostic, lines: list[str], number: int, name: str, used: str
) -> Diagnostic | None:
    """`%x = simt.load %a[%i] : !simt.slice<i32>` with `%a: !simt.slice<f32>`: the op's custom
    syntax took the written type for the result without checking it against `%a`, so the
    mismatch surfaced at the use of `%x`, one line late. Said at the op instead."""
    text = lines[number - 1]
    m = re.match(
        rf"\s*{re.escape(name)}\s*=\s*(?P<op>[\w.]+)\s+(?P<src>{_VALUE})\b[^:]*:\s*(?P<ty>[^:]+?)\s*$",
        text,
    )
    if m is None or "->" in m["ty"]:
        return None
    declared = _declared_type(lines, m["src"], number - 1)
    if declared is None:
        return None
    line, col, have = declared
    written = m["ty"]
    if have == written or have.partition("<")[0] != written.partition("<")[0]:
        return None
    f = d.loc.file
    return _with(
        d,
        message=f"mismatched types: {m['src']} is `{have}`, but this `{m['op']}` says `{written}`",
        loc=SourceLoc(f, number, m.start("ty") + 1),
        label=f"expected `{have}`, found `{written}`",
        focus=written,
        length=len(written),
        notes=[
            _note(SourceLoc(f, line, col), f"{m['src']} is defined here, as `{have}`", m["src"]),
            _note(d.loc, f"so {name} has the wrong type here, where `{used}` is expected", name),
        ],
        help=[
            f"write `{have}` after the `:`, as {m['src']} is declared (or declare "
            f"{m['src']} as `{written}`)"
        ],
    )


def _used_with_type(d: Diagnostic, m: re.Match[str], lines: Lines) -> Diagnostic | None:
    used, defined = m["used"], m["defined"]
    text = _line(lines, d.loc.line)[max(d.loc.col - 1, 0) :]
    value = re.match(_VALUE, text)
    if value is None:
        return None
    name = value[0]
    notes = list(d.notes)
    number = _definition(lines, name, d.loc.line) if lines is not None else None
    if lines is not None and number is not None:
        earlier = _written_against_declared(d, lines, number, name, used)
        if earlier is not None:
            return earlier
        col = lines[number - 1].find(name) + 1
        notes.append(
            _note(
                SourceLoc(d.loc.file, number, col), f"{name} is defined here, as `{defined}`", name
            )
        )
    return _with(
        d,
        message=f"mismatched types: {name} is `{defined}`, used here as `{used}`",
        label=f"expected `{used}`, found `{defined}`",
        focus=name,
        notes=notes,
        help=_convert_help(name, defined, used),
    )


# -- unknown names ------------------------------------------------------------------------------


def _name_start(d: Diagnostic, lines: Lines, name: str) -> int:
    """Where `name` is written at or before the column (xDSL points at the token after it)."""
    text = _line(lines, d.loc.line)
    return text.rfind(name, 0, max(d.loc.col - 1, 0) + len(name))


def _written_before(d: Diagnostic, lines: Lines, name: str) -> SourceLoc:
    """Where `name` is written: on the reported line at or before its column, else on the
    closest line above (an op with no operands or type is reported at the next token, which
    may be the next line's first)."""
    at = _name_start(d, lines, name)
    if at >= 0:
        return dataclasses.replace(d.loc, col=at + 1)
    for number in range(d.loc.line - 1, max(d.loc.line - 4, 0), -1):
        col = _line(lines, number).rfind(name)
        if col >= 0:
            return dataclasses.replace(d.loc, line=number, col=col + 1)
    return d.loc


def _unknown_op(d: Diagnostic, m: re.Match[str], lines: Lines) -> Diagnostic | None:
    name = m["name"]
    near = suggest_registered(name, "op")
    return _with(
        d,
        message=f"unknown operation `{name}`",
        loc=_written_before(d, lines, name),
        label="not a registered operation",
        focus=name,
        help=[f"did you mean `{near}`?"] if near else _no_dialect(name),
    )


def _unknown_attr(d: Diagnostic, m: re.Match[str], lines: Lines) -> Diagnostic | None:
    name = m["name"]
    text = _line(lines, d.loc.line)
    at = _name_start(d, lines, name)
    sigil = text[at - 1] if at > 0 and text[at - 1] in "!#" else ""
    what = {"!": "type", "#": "attribute"}.get(sigil, "type or attribute")
    near = suggest_registered(name, "attr")
    start = at - len(sigil)
    return _with(
        d,
        message=f"unknown {what} `{sigil}{name}`",
        loc=dataclasses.replace(d.loc, col=start + 1) if at >= 0 else d.loc,
        label=f"not a registered {what}",
        focus=sigil + name,
        help=[f"did you mean `{sigil}{near}`?"] if near else _no_dialect(name),
    )


def _no_dialect(name: str) -> list[str]:
    from ferrox import registry

    dialect = name.partition(".")[0]
    dialects = registry.all_dialects()
    if dialect in dialects:
        return []
    near = did_you_mean(dialect, dialects, "the dialect")
    return [near] if near else [f"there is no dialect `{dialect}`"]


def _unknown_param(d: Diagnostic, m: re.Match[str], lines: Lines) -> Diagnostic | None:
    names = [n.strip() for n in m["known"].split(",")]
    near = did_you_mean(m["name"], names)
    return _with(d, help=[near]) if near else None


def _undefined(d: Diagnostic, m: re.Match[str], lines: Lines) -> Diagnostic | None:
    """xDSL reports values used but never defined at the end of the input; say it at the first
    use of each, with the defined name it was probably meant to be."""
    if lines is None:
        return None
    names = re.findall(_VALUE, m["names"])
    uses: list[tuple[str, SourceLoc]] = []
    for name in names:
        pattern = re.compile(re.escape(name) + r"(?![\w$.-])")
        for number, text in enumerate(lines, 1):
            at = pattern.search(_strip_comment(text))
            if at is not None:
                uses.append((name, SourceLoc(d.loc.file, number, at.start() + 1)))
                break
    if not uses:
        return None
    defined = set(re.findall(rf"({_VALUE})(?:#\d+)?\s*(?:=(?!=)|:|,)", "\n".join(lines)))
    (first, loc), rest = uses[0], uses[1:]
    near = did_you_mean(first, defined - set(names))
    return _with(
        d,
        message=f"cannot find value `{first}` in this scope",
        loc=loc,
        label="not found in this scope",
        focus=first,
        notes=[_note(at, f"`{name}` is not defined either", name) for name, at in rest],
        help=[near] if near else [],
    )


Translator = Callable[[Diagnostic, re.Match[str], Lines], Diagnostic | None]

_TRANSLATORS: list[tuple[re.Pattern[str], Translator]] = [
    (
        re.compile(
            r"(?:^|: )(?P<found>\S(?:.*?\S)?) should be of base attribute (?P<base>[\w.]+)$"
        ),
        _base_attribute,
    ),
    (
        re.compile(
            r"Operation (?P<op>\S+) terminates block in single-block region but is not a "
            r"terminator"
        ),
        _not_a_terminator,
    ),
    (re.compile(r"^\s*in block definition\s*$|^Expected '}'|^expected '}'"), _unclosed),
    (
        re.compile(
            r"(?:at position (?P<pos>\d+) does not verify: )?attribute (?P<first>\S+) expected "
            r"from variable '(?P<var>\w+)', but got (?P<second>\S+)"
        ),
        _variable,
    ),
    (
        re.compile(
            r"^operand is used with type (?P<used>.+), but has been previously used or defined "
            r"with type (?P<defined>.+)$"
        ),
        _used_with_type,
    ),
    (re.compile(r"^Operation (?P<name>[\w$.]+) is not registered"), _unknown_op),
    (re.compile(r"^values used but not defined: \[(?P<names>.*)\]$"), _undefined),
    (re.compile(r"^'(?P<name>[\w$.]+)' is not registered"), _unknown_attr),
    (
        re.compile(
            r"unknown parameter '(?P<name>[^']+)' \(this program's parameters: (?P<known>.*)\)"
        ),
        _unknown_param,
    ),
]
