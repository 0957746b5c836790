"""Diagnostics as the tools print them: rustc's human form, or its one-line short form.

    error[E0382]: use of moved value: %c
      --> k.mlir:9:14
       |
     5 |   %c2 = host.unsafe_launch @scale ... outs(%c : !host.tensor<f32, [64]>) -> ...
       |                                            -- value moved here
     ...
     9 |   host.print %c : !host.tensor<f32, [64]>
       |              ^^ value used here after move
       |
       = help: use the tensor the launch gave back (its result) instead, ...

The short form is one line per diagnostic and note, `file:line:col: error[E0382]: message`,
for tools and tests. Both say the same thing: the message in the op's own words
(diagnostic_translate.py) and the code of the rule it breaks (diagnostic_codes.py).

Notes in the same file become labels in the error's snippet (`-` under their span); notes
elsewhere get a snippet of their own, and notes without a place a `= note:` line. A span is the
`focus` text near the column (a value the message names, an op's name), else the token there.
Sources come from the `sources` the tool passes (standard input, split chunks), else the file.
"""

from __future__ import annotations

import dataclasses
import linecache
import re
from dataclasses import dataclass

from ferrox.diagnostic_codes import classify
from ferrox.diagnostic_translate import Lines, translate
from ferrox.diagnostics import Diagnostic

_VALUE = re.compile(r"%[\w$.-]+")
_TOKEN = re.compile(
    r'(?P<op>(?:%[\w$.-]+(?::\d+)?(?:\s*,\s*%[\w$.-]+)*\s*=\s*)"?(?P<name>[A-Za-z_][\w$.]*))'
    r'|"[^"]*"|[%@!#^]?[\w$.]+(?:<[^<>]*>|\[[^\[\]]*\])?'
)
# Notes about the value the error names (rustc's "value moved here"): their span is that value.
_ABOUT_THE_VALUE = re.compile(r"\b(?:value|moved|borrow|bound)\b")
# Notes whose span is not the value's first use on the line, but its use in one list.
_ANCHORS = {"immutable borrow occurs here": r"\bins\(", "mutable borrow occurs here": r"\bouts\("}


class Sources:
    """The lines of each file a diagnostic points into."""

    def __init__(self, given: dict[str, str]):
        self.given = given
        self.cache: dict[str, Lines] = {}

    def lines(self, file: str) -> Lines:
        if not file:
            return None
        if file not in self.cache:
            if file in self.given:
                self.cache[file] = self.given[file].splitlines()
            else:
                linecache.checkcache(file)
                text = linecache.getlines(file)
                self.cache[file] = [t.rstrip("\n").rstrip("\r") for t in text] or None
        return self.cache[file]


def prepare(d: Diagnostic, sources: Sources) -> Diagnostic:
    """`d` translated, with its code and help (the code's, unless the translation gave one)."""
    lines = sources.lines(d.loc.file)
    translated = translate(d, lines)
    if translated is not d and translated.focus and lines is not None:
        # `-->` names where the underline starts, as rustc's does.
        text = lines[translated.loc.line - 1] if 1 <= translated.loc.line <= len(lines) else ""
        start, _ = span(text, translated.loc.col, translated.focus, translated.length)
        if start < len(text) and start + 1 != translated.loc.col:
            translated = dataclasses.replace(
                translated, loc=dataclasses.replace(translated.loc, col=start + 1), length=0
            )
    d = translated
    code = classify(d.message) if d.severity == "error" and not d.code else None
    if code is not None:
        helps = d.help or [h for h in [code.help_for(d.message)] if h]
        d = dataclasses.replace(d, code=code.code, help=helps)
    if d.loc.file.endswith(".py") and d.help:
        d = dataclasses.replace(d, help=[_in_python(h) for h in d.help])
    return d


# The help lines name MLIR's spelling; a kernel written in Python spells these its own way.
_PYTHON_SPELLING = {
    "`simt.witness_value`": "`w.value`",
    "`simt.thread_index_1d`": "`simt.thread_index_1d()`",
    "`simt.unsafe { ... }`": "`with simt.unsafe():`",
    "`simt.load`": "`a[i]`",
    "`simt.get_mut`": "`out[w] = ...`",
    "`host.sync_on` of": "`host.sync` of",
    "an output partition (`!tile.partition`)": "an output partition (a `Partition[...]` parameter)",
}


def _in_python(text: str) -> str:
    for mlir, python in _PYTHON_SPELLING.items():
        text = text.replace(mlir, python)
    return text


def render_all(diagnostics: list[Diagnostic], fmt: str, given: dict[str, str]) -> str:
    sources = Sources(given)
    prepared = [prepare(d, sources) for d in diagnostics]
    if fmt == "short":
        return "\n".join(short(d) for d in prepared)
    return "\n\n".join(human(d, sources) for d in prepared)


def header(d: Diagnostic) -> str:
    return f"{d.severity}[{d.code}]: {d.message}" if d.code else f"{d.severity}: {d.message}"


def short(d: Diagnostic) -> str:
    lines = [f"{d.loc}: {header(d)}"]
    lines += [f"{note.loc}: {note.severity}: {note.message}" for note in d.notes]
    return "\n".join(lines)


@dataclass
class Label:
    line: int
    start: int  # 0-based, in the line's text
    end: int
    text: str
    primary: bool


def _display(text: str, index: int) -> int:
    return len(text[:index].expandtabs(4))


def span(text: str, col: int, focus: str = "", length: int = 0) -> tuple[int, int]:
    """The characters to underline in `text` for a diagnostic at `col` (1-based)."""
    at = min(max(col - 1, 0), len(text))
    if length > 0:
        return at, at + length
    if focus:
        tail = r"(?![\w$.-])" if focus[-1].isalnum() or focus[-1] in "_$.-" else ""
        starts = [m.start() for m in re.finditer(re.escape(focus) + tail, text)]
        if starts:
            after = [s for s in starts if s >= at]
            start = after[0] if after else starts[-1]
            return start, start + len(focus)
    if text[at : at + 1] in ("<", "(", "["):
        return at, _closing(text, at)
    m = _TOKEN.match(text, at)
    if m is None:
        return at, at + 1
    if m["op"]:
        return m.start("name"), m.end("name")
    return m.start(), m.end()


def _closing(text: str, at: int) -> int:
    """The end of the bracketed group that opens at `at` (the line's end if it does not close)."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] in "<([":
            depth += 1
        elif text[i] in ">)]" and not (text[i] == ">" and text[i - 1] == "-"):
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _focus_of(message: str, text: str, python: bool = False) -> str:
    """A value (`%c`) the message names that the line holds, else ''. On a Python line the
    value is the variable of that name (`%out` is `out`): the frontend names values after them."""
    for m in _VALUE.finditer(message):
        if re.search(re.escape(m[0]) + r"(?![\w$.-])", text):
            return m[0]
        name = m[0][1:]
        if python and name.isidentifier() and re.search(rf"(?<![\w.]){re.escape(name)}\b", text):
            return name
    return ""


def _label_rows(labels: list[Label], text: str) -> list[str]:
    """The underline row, the rightmost label's text beside it, the others hanging below."""
    ordered = sorted(labels, key=lambda lab: (lab.start, not lab.primary))
    width = max(_display(text, lab.end) for lab in ordered) + 1
    marks = [" "] * max(width, 1)
    for lab in sorted(ordered, key=lambda lab: lab.primary):  # `^` drawn over `-`
        a, b = (
            _display(text, lab.start),
            max(_display(text, lab.end), _display(text, lab.start) + 1),
        )
        for i in range(a, b):
            if i >= len(marks):
                marks.append(" ")
            marks[i] = "^" if lab.primary else "-"
    texted = [lab for lab in ordered if lab.text]
    row = "".join(marks).rstrip()
    if not texted:
        return [row]
    last = texted[-1]
    if last is ordered[-1]:  # the rightmost label's text goes beside the underline
        rows = [f"{row} {last.text}"]
        hanging = texted[:-1]
    else:  # an unlabelled span further right: every text hangs below its own span
        rows = [row]
        hanging = texted
    if hanging:
        cols = [_display(text, lab.start) for lab in hanging]
        rows.append(_bars(cols))
        for i in range(len(hanging) - 1, -1, -1):
            rows.append(_bars(cols[:i]) + " " * (cols[i] - len(_bars(cols[:i]))) + hanging[i].text)
    return rows


def _bars(cols: list[int]) -> str:
    out = [" "] * (max(cols) + 1 if cols else 0)
    for c in cols:
        out[c] = "|"
    return "".join(out)


def human(d: Diagnostic, sources: Sources) -> str:
    out = [header(d)]
    lines = sources.lines(d.loc.file)
    tail: list[str] = []
    elsewhere: list[Diagnostic] = []
    labels: list[Label] = []
    python = d.loc.file.endswith(".py")
    if d.loc.file and lines is not None and d.loc.line >= 1:
        text = _text(lines, d.loc.line)
        focus = d.focus or _focus_of(d.message, text, python)
        a, b = span(text, d.loc.col, focus, d.length)
        primary = Label(d.loc.line, a, b, d.label, True)
        labels.append(primary)
        for note in d.notes:
            if note.loc.file != d.loc.file or note.loc.line < 1:
                elsewhere.append(note)
                continue
            note_text = _text(lines, note.loc.line)
            anchor = _ANCHORS.get(note.message)
            nf = note.focus or _focus_of(note.message, note_text, python)
            if not nf and _ABOUT_THE_VALUE.search(note.message):
                nf = _focus_of(d.message, note_text, python)
            na, nb = span(note_text, note.loc.col, nf, note.length)
            if anchor and nf:
                listed = re.search(anchor + r"[^)]*?" + re.escape(nf) + r"(?![\w$.-])", note_text)
                if listed:
                    na, nb = listed.end() - len(nf), listed.end()
            if note.loc.line == d.loc.line and (na, nb) == (a, b):
                if not primary.text:
                    primary.text = note.message
                    continue
                if anchor is None:
                    tail.append(f"= note: {note.message}")
                    continue
            labels.append(Label(note.loc.line, na, nb, note.message, False))
        width = len(str(max(lab.line for lab in labels)))
        out.append(f"{' ' * width}--> {d.loc}")
        out.extend(_snippet(labels, lines, width))
    else:
        width = 1
        if d.loc.file:
            out.append(f"{' ' * width}--> {d.loc}")
        elsewhere = list(d.notes)
    for note in elsewhere:
        if not note.loc.file:
            tail.append(f"= note: {note.message}")
    tail += [f"= help: {h}" for h in d.help]
    if tail:
        out.append(" " * (width + 1) + "|")
        out += [" " * (width + 1) + t for t in tail]
    for note in elsewhere:
        if note.loc.file:
            out.append(_spanned_note(note, sources))
    return "\n".join(out)


def _text(lines: list[str], number: int) -> str:
    return lines[number - 1] if 1 <= number <= len(lines) else ""


def _snippet(labels: list[Label], lines: list[str], width: int) -> list[str]:
    bar = " " * (width + 1) + "|"
    out = [bar]
    numbers = sorted({lab.line for lab in labels})
    previous = None
    for number in numbers:
        if previous is not None and number - previous == 2:
            out.append(_source_row(previous + 1, _text(lines, previous + 1), width))
        elif previous is not None and number - previous > 2:
            out.append("...")
        text = _text(lines, number)
        out.append(_source_row(number, text, width))
        rows = _label_rows([lab for lab in labels if lab.line == number], text)
        out += [f"{bar} {row}".rstrip() for row in rows]
        previous = number
    return out


def _source_row(number: int, text: str, width: int) -> str:
    return f"{number:>{width}} | {text.expandtabs(4)}".rstrip()


def _spanned_note(note: Diagnostic, sources: Sources) -> str:
    lines = sources.lines(note.loc.file)
    width = len(str(note.loc.line))
    out = [f"{note.severity}: {note.message}", f"{' ' * width}--> {note.loc}"]
    if lines is not None and note.loc.line >= 1:
        text = _text(lines, note.loc.line)
        a, b = span(text, note.loc.col, note.focus, note.length)
        out += _snippet([Label(note.loc.line, a, b, "", True)], lines, width)
    return "\n".join(out)
