"""The project and dialect scaffolds of `ferrox new`: folders of templates, rendered.

`templates/project/` is a ferrox project (a kernel in Python, one in MLIR, a host program,
tests); `templates/dialect/` an out-of-tree dialect package (ops, verifier, lowering,
interpreter definition, entry points, tests). examples/custom_dialect is exactly what
`ferrox new --dialect sat` makes, and docs/custom-dialect.md walks through it.

A template file ends in `.tmpl` (so that no tool takes it for source of this package); in its
path and text `@@key@@` stands for one of `names`' values, and a leading `dot-` in a file name
for `.`. Nothing else is replaced: the templates are otherwise the files as made.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "templates"
KINDS = ("project", "dialect")
_PLACEHOLDER = re.compile(r"@@(\w+)@@")


class ScaffoldError(Exception):
    """A name or destination `ferrox new` cannot use; the message says why."""


@dataclass(frozen=True)
class Made:
    root: Path
    files: list[Path]


def project_names(name: str) -> dict[str, str]:
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name):
        raise ScaffoldError(
            f"'{name}' is not a project name: use a letter, then letters, digits, '-' or '_'"
        )
    package = name.lower().replace("-", "_")
    if keyword.iskeyword(package) or package in ("ferrox", "tests", "numpy", "test"):
        raise ScaffoldError(
            f"'{name}' would make a package '{package}' that clashes; choose another"
        )
    return {"name": name, "dist": name, "package": package, **_versions()}


def dialect_names(name: str) -> dict[str, str]:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ScaffoldError(
            f"'{name}' is not a dialect name: use a lower-case letter, then lower-case letters, "
            "digits or '_' (it prefixes the ops: NAME.clamp)"
        )
    if keyword.iskeyword(name):
        raise ScaffoldError(f"'{name}' is a Python keyword; choose another dialect name")
    from ferrox.registry import all_dialects

    if name in all_dialects():
        raise ScaffoldError(
            f"'{name}' is already a dialect here (ferrox's, xDSL's or an installed plugin's); "
            "choose another name"
        )
    camel = "".join(part.capitalize() for part in name.split("_"))
    return {
        "name": name,
        "Name": camel,
        "kebab": name.replace("_", "-"),
        "dist": f"ferrox-{name.replace('_', '-')}",
        "package": f"ferrox_{name}",
        **_versions(),
    }


def _versions() -> dict[str, str]:
    import ferrox

    return {"ferrox_version": ferrox.__version__}


def make(kind: str, names: dict[str, str], parent: Path) -> Made:
    """Render `templates/<kind>` into `parent/<dist>`, which must not exist or be empty."""
    root = parent / names["dist"]
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ScaffoldError(f"{root} already exists and is not empty")
    made = []
    source = TEMPLATES / kind
    for template in sorted(source.rglob("*.tmpl")):
        relative = template.relative_to(source).with_suffix("")
        parts = [_fill(p, names) for p in relative.parts]
        parts[-1] = "." + parts[-1][4:] if parts[-1].startswith("dot-") else parts[-1]
        target = root.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_fill(template.read_text(encoding="utf-8"), names), encoding="utf-8")
        made.append(target)
    return Made(root, made)


def _fill(text: str, names: dict[str, str]) -> str:
    def value(m: re.Match[str]) -> str:
        if m.group(1) not in names:
            raise KeyError(f"template placeholder @@{m.group(1)}@@ has no value")
        return names[m.group(1)]

    return _PLACEHOLDER.sub(value, text)
