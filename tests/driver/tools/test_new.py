"""`ferrox new`: what the scaffolds hold, the names it refuses, and examples/custom_dialect being
exactly what `ferrox new --dialect sat` makes (so docs/custom-dialect.md, which shows that
folder, walks through what the command makes). tests/driver/tools/test_new_e2e.py installs
both scaffolds and runs their tests."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

from ferrox.driver.tools.cli import main

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "custom_dialect"
LEFT_BY_USE = ("__pycache__", "build", "Output", ".pytest_cache")


def files(root: Path) -> dict[str, str]:
    found = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_dir() or any(
            p in LEFT_BY_USE or p.endswith(".egg-info") for p in relative.parts
        ):
            continue
        found[str(relative)] = path.read_text()
    return found


def new(tmp_path: Path, capsys, *args: str) -> tuple[int, str, str]:
    code = main(["new", *args, "--directory", str(tmp_path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_example_is_what_ferrox_new_makes(tmp_path, capsys):
    code, out, _ = new(tmp_path, capsys, "--dialect", "sat")
    assert code == 0
    assert out.startswith(f"made the sat dialect package in {tmp_path / 'ferrox-sat'} (11 files)")
    assert files(tmp_path / "ferrox-sat") == files(EXAMPLE)


def test_dialect_scaffold(tmp_path, capsys):
    assert new(tmp_path, capsys, "--dialect", "my_ops")[0] == 0
    made = files(tmp_path / "ferrox-my-ops")
    assert sorted(made) == [
        "README.md",
        "ferrox_my_ops/__init__.py",
        "ferrox_my_ops/dialect.py",
        "ferrox_my_ops/interpreter.py",
        "ferrox_my_ops/lowering.py",
        "pyproject.toml",
        "tests/clamp.mlir",
        "tests/invalid.mlir",
        "tests/kernel.mlir",
        "tests/lit.cfg.py",
        "tests/test_my_ops.py",
    ]
    project = tomllib.loads(made["pyproject.toml"])["project"]
    assert (project["name"], project["version"]) == ("ferrox-my-ops", "0.1.0")
    assert project["entry-points"] == {
        "ferrox.dialects": {"my_ops": "ferrox_my_ops.dialect:MyOps"},
        "ferrox.passes": {"lower-my-ops-to-arith": "ferrox_my_ops.lowering:LowerMyOpsToArithPass"},
        "ferrox.lowerings": {"my_ops": "ferrox_my_ops.lowering:LowerMyOpsToArithPass"},
        "ferrox.interpreter": {"my_ops": "ferrox_my_ops.interpreter"},
    }
    assert 'name = "my_ops.clamp"' in made["ferrox_my_ops/dialect.py"]
    for name, text in made.items():
        assert "@@" not in text, name
        if name.endswith(".py"):
            ast.parse(text, name)


def test_project_scaffold(tmp_path, capsys):
    assert new(tmp_path, capsys, "my-kernels")[0] == 0
    made = files(tmp_path / "my-kernels")
    assert sorted(made) == [
        ".gitignore",
        "README.md",
        "my_kernels/__init__.py",
        "my_kernels/host.py",
        "my_kernels/kernels.py",
        "my_kernels/scale.mlir",
        "pyproject.toml",
        "tests/lit.cfg.py",
        "tests/scale.mlir",
        "tests/test_kernels.py",
    ]
    project = tomllib.loads(made["pyproject.toml"])["project"]
    assert (project["name"], project["version"]) == ("my-kernels", "0.1.0")
    assert project["scripts"] == {"my-kernels": "my_kernels.host:main"}
    for name, text in made.items():
        assert "@@" not in text, name
        if name.endswith(".py"):
            ast.parse(text, name)


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--dialect", "Sat"],
            "ferrox new: error: 'Sat' is not a dialect name: use a lower-case letter, then "
            "lower-case letters, digits or '_' (it prefixes the ops: NAME.clamp)",
        ),
        (
            ["--dialect", "arith"],
            "ferrox new: error: 'arith' is already a dialect here (ferrox's, xDSL's or an "
            "installed plugin's); choose another name",
        ),
        (
            ["--dialect", "simt"],
            "ferrox new: error: 'simt' is already a dialect here (ferrox's, xDSL's or an "
            "installed plugin's); choose another name",
        ),
        (
            ["--dialect", "class"],
            "ferrox new: error: 'class' is a Python keyword; choose another dialect name",
        ),
        (
            ["2fast"],
            "ferrox new: error: '2fast' is not a project name: use a letter, then letters, "
            "digits, '-' or '_'",
        ),
        (
            ["ferrox"],
            "ferrox new: error: 'ferrox' would make a package 'ferrox' that clashes; choose "
            "another",
        ),
    ],
)
def test_refused_names(tmp_path, capsys, args, message):
    code, out, err = new(tmp_path, capsys, *args)
    assert (code, out, err) == (1, "", message + "\n")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_is_not_overwritten(tmp_path, capsys):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "mine.txt").write_text("keep")
    code, out, err = new(tmp_path, capsys, "proj")
    assert (code, out) == (1, "")
    assert err == f"ferrox new: error: {tmp_path / 'proj'} already exists and is not empty\n"
    assert sorted(p.name for p in (tmp_path / "proj").iterdir()) == ["mine.txt"]
