"""`ferrox explain`: every code has an explanation, its example still produces the output the
explanation shows (so no explanation drifts from the compiler), docs/errors.md is generated from
them, and an unknown code is a diagnostic with the nearest code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ferrox.diagnostic_codes import BY_CODE, CODES
from ferrox.driver.tools import cli
from ferrox.driver.tools.commands import explain

ROOT = Path(__file__).resolve().parents[3]
# Run-time launch checks that a host program cannot reach (they need a Python caller's arrays
# or another device): explained in words, without an example.
WITHOUT_EXAMPLE = {"E1302", "E1303", "E1304", "E1307"}


def test_every_code_has_one_explanation_file():
    files = {p.stem for p in explain.ERRORS.glob("*.mlir")}
    assert files == set(BY_CODE)
    for code in CODES:
        first = explain.path_of(code.code).read_text().splitlines()[0]
        assert first == f"// {code.code}: {code.title}"
        assert explain.load(code.code).text


def test_the_codes_without_an_example_are_the_listed_ones():
    assert {c.code for c in CODES if not explain.load(c.code).example} == WITHOUT_EXAMPLE


@pytest.mark.parametrize("code", sorted(set(BY_CODE) - WITHOUT_EXAMPLE))
def test_each_example_produces_its_output(code: str):
    """The example is refused with this code, rendered exactly as its explanation shows."""
    shown = explain.load(code).output
    assert shown.splitlines()[0].startswith(f"error[{code}]: ")
    assert explain.run_example(code) == shown


def test_explain_prints_the_explanation_the_example_and_the_output(capsys):
    assert cli.main(["explain", "E1002"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out == (
        "E1002: a witness that escapes (docs/safety.md#simt-2)\n"
        "\n"
        "A witness stays in the kernel that made it, in the region it was made in: it is never "
        "stored\n"
        "to memory, returned, yielded out of its region or passed to a call, where it could be "
        "used a\n"
        "second time or by another thread. The rule is docs/safety.md#simt-2.\n"
        "\n"
        "Pass or store the witness's index (`simt.witness_value`) instead.\n"
        "\n"
        "Erroneous example:\n"
        "\n"
        "    simt.func @make() -> !simt.thread_index<1d> {\n"
        "      %w = simt.thread_index_1d\n"
        "      simt.return %w : !simt.thread_index<1d>\n"
        "    }\n"
        "\n"
        "ferrox reports:\n"
        "\n"
        "    error[E1002]: cannot return a witness\n"
        "     --> E1002.mlir:3:3\n"
        "      |\n"
        "    3 |   simt.return %w : !simt.thread_index<1d>\n"
        "      |   ^^^^^^^^^^^\n"
        "      |\n"
        "      = help: pass or store its index (`simt.witness_value`) instead; a witness stays "
        "in the kernel that made it\n"
    )


def test_codes_are_accepted_in_lower_case_and_without_the_letter(capsys):
    assert cli.main(["explain", "e0382"]) == 0
    first = capsys.readouterr().out
    assert cli.main(["explain", "0382"]) == 0
    assert capsys.readouterr().out == first
    assert first.startswith("E0382: use of a moved value (docs/safety.md#simt-2, ")


def test_an_unknown_code_gets_the_nearest_one(capsys):
    assert cli.main(["explain", "E0383"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "error: no error code `E0383`\n"
        "  = help: did you mean `E0382`?\n"
        "  = help: `ferrox explain --list` lists every code\n"
    )


def test_list(capsys):
    assert cli.main(["explain", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(CODES)
    assert lines[:2] == [
        "E0382  use of a moved value",
        "E0502  a tensor borrowed as input and as exclusive output of one launch",
    ]


def test_docs_errors_page_is_generated_from_the_explanations():
    check = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "errors.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr
