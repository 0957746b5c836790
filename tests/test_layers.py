"""Layers import only downward: every `import` in the package, at module level or inside a
function, names a module of its own layer or a lower one.

core < dialects < passes < lowering < targets < runtime | interpreter < checker < host runner
< tools and the Python API. The runtime and the interpreter are one layer but must not import
each other: either can run a launch without the other. No package module hides a failed import
behind `except ImportError` (optional third-party packages, such as ml_dtypes, may be).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {
    "ferrox": "ferrox",
    "dialects": "ferrox.dialects",
    "passes": "ferrox.passes",
    "lowering": "ferrox.lowering",
    "targets": "ferrox.targets",
    "driver": "ferrox.driver",
    "frontend": "ferrox.frontend",
}

# (module prefix, layer name, rank); the longest matching prefix decides.
LAYERS = [
    ("ferrox.diagnostics", "core", 0),
    ("ferrox.diagnostic_codes", "core", 0),
    ("ferrox.diagnostic_render", "core", 0),
    ("ferrox.diagnostic_suggest", "core", 0),
    ("ferrox.diagnostic_translate", "core", 0),
    ("ferrox.parser", "core", 0),
    ("ferrox.parse_deferred", "core", 0),
    ("ferrox.verify", "core", 0),
    ("ferrox.registry", "core", 0),
    ("ferrox.artifact", "core", 0),
    ("ferrox.dialects", "dialects", 1),
    ("ferrox.passes", "passes", 2),
    ("ferrox.frontend", "frontend", 2),
    ("ferrox.lowering", "lowering", 3),
    ("ferrox.targets", "targets", 4),
    ("ferrox.driver.runtime", "runtime", 5),
    ("ferrox.driver.interpreter", "interpreter", 5),
    ("ferrox.driver.checker", "checker", 6),
    ("ferrox.driver.host_runner", "host runner", 7),
    ("ferrox.driver.tools", "tools", 8),
    ("ferrox.driver", "tools", 8),
    ("ferrox.api", "tools", 8),
    ("ferrox.loaded", "tools", 8),
    ("ferrox.run_api", "tools", 8),
    ("ferrox.simt", "tools", 8),
    ("ferrox.jit", "tools", 8),
    ("ferrox.host", "tools", 8),
    ("ferrox.torch_op", "tools", 8),
    ("ferrox.tile", "tools", 8),
    ("ferrox", "core", 0),  # the package itself: its API names load lazily, by string
]
EXACT = {"ferrox"}  # prefixes that name one module, not a package of them


def layer_of(module: str) -> tuple[str, int] | None:
    best = None
    for prefix, name, rank in LAYERS:
        if module == prefix or (prefix not in EXACT and module.startswith(prefix + ".")):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, name, rank)
    return None if best is None else (best[1], best[2])


def package_modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([package, *parts])] = path
    return modules


MODULES = package_modules()


def _resolve_relative(module: str, path: Path, node: ast.ImportFrom) -> str:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def imports_of(module: str, path: Path) -> list[tuple[int, str]]:
    """(line, imported ferrox module) for every import statement in the file."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("ferrox")]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_relative(module, path, node) if node.level else node.module or ""
            if not base.startswith("ferrox"):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((node.lineno, sub if sub in MODULES else base))
    return found


def test_every_package_module_has_a_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_the_layer_table_names_real_packages():
    for prefix, _, _ in LAYERS:
        assert any(m == prefix or m.startswith(prefix + ".") for m in MODULES), prefix


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_only_downward(module):
    here = layer_of(module)
    assert here is not None
    upward = []
    for line, target in imports_of(module, MODULES[module]):
        there = layer_of(target)
        assert there is not None, f"{module}:{line} imports {target}, which has no layer"
        sideways = {here[0], there[0]} == {"runtime", "interpreter"}
        if there[1] > here[1] or sideways:
            upward.append(f"line {line}: {target} ({there[0]}) from the {here[0]} layer")
    assert upward == []


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    fallbacks = ("ImportError", "ModuleNotFoundError")
    return any(isinstance(n, ast.Name) and n.id in fallbacks for n in names)


def _imports_ferrox(body: list[ast.stmt]) -> bool:
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.Import) and any(a.name.startswith("ferrox") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").startswith("ferrox")
        ):
            return True
    return False


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_silent_import_fallbacks(module):
    """A ferrox module that fails to import is a bug to report, not a feature to skip."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    caught = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Try)
        and _imports_ferrox(node.body)
        and any(_catches_import_error(h) for h in node.handlers)
    ]
    assert caught == [], f"{module} hides a failed ferrox import at lines {caught}"


def test_the_checker_sees_an_upward_import(tmp_path):
    """The test itself can fail: a lowering module importing the runtime is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from ferrox.driver.runtime import launcher\n")
    ((line, target),) = imports_of("ferrox.lowering.bad", bad)
    assert (line, target) == (2, "ferrox.driver.runtime.launcher")
    assert layer_of(target)[1] > layer_of("ferrox.lowering.bad")[1]
