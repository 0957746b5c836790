"""Keep documentation examples identical to the tested files they come from.

A page marks an example with `<!-- snippet: PATH#NAME -->` followed by a fenced code block; the
block is the text between `doc:begin NAME` and `doc:end` in PATH (a tested source or .mlir file).
`python docs/snippets.py` rewrites every block from its source; `--check` only reports drift
(the test suite runs the check, so a doc cannot silently go stale).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_DIRECTIVE = re.compile(
    r"<!-- snippet: (?P<path>[^#\s]+)#(?P<name>[\w.-]+) -->\n```(?P<lang>\w*)\n(?P<body>.*?)```",
    re.S,
)


def extract(path: Path, name: str) -> str:
    lines = path.read_text().splitlines()
    begin = next(
        (i for i, line in enumerate(lines) if re.search(rf"doc:begin {re.escape(name)}\s*$", line)),
        None,
    )
    if begin is None:
        raise KeyError(f"{path}: no `doc:begin {name}` marker")
    end = next((i for i in range(begin + 1, len(lines)) if "doc:end" in lines[i]), None)
    if end is None:
        raise KeyError(f"{path}: `doc:begin {name}` has no `doc:end`")
    body = lines[begin + 1 : end]
    while body and not body[-1].strip():  # the blank lines a formatter keeps before `doc:end`
        body.pop()
    return "\n".join(body) + "\n"


def sync(page: Path, write: bool) -> list[str]:
    text = page.read_text()
    problems: list[str] = []

    def replace(m: re.Match[str]) -> str:
        try:
            fresh = extract(ROOT / m.group("path"), m.group("name"))
        except (KeyError, OSError) as e:
            problems.append(f"{page.relative_to(ROOT)}: {e}")
            return m.group(0)
        if fresh != m.group("body"):
            problems.append(
                f"{page.relative_to(ROOT)}: snippet {m.group('path')}#{m.group('name')} is stale"
            )
        marker = f"<!-- snippet: {m.group('path')}#{m.group('name')} -->"
        return f"{marker}\n```{m.group('lang')}\n{fresh}```"

    new = _DIRECTIVE.sub(replace, text)
    if write and new != text:
        page.write_text(new)
    return problems


def pages() -> list[Path]:
    return sorted((ROOT / "docs").rglob("*.md"))


if __name__ == "__main__":
    check = "--check" in sys.argv
    found = [p for page in pages() for p in sync(page, write=not check)]
    print("\n".join(found) if found else "docs in sync")
    sys.exit(1 if (check and found) else 0)
