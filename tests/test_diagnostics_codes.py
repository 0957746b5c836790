"""The error-code table agrees with docs/safety.md: every phrase the page quotes under a rule's
**Diagnostics** is given a code of that rule, and every rule has a code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ferrox.diagnostic_codes import BY_CODE, CODES, classify

SAFETY = Path(__file__).resolve().parent.parent / "docs" / "safety.md"


def quoted_diagnostics() -> list[tuple[str, str]]:
    """(rule anchor, quoted phrase) for every rule section of docs/safety.md."""
    found: list[tuple[str, str]] = []
    text = SAFETY.read_text()
    for section in re.split(r"\n(?=### )", text):
        anchor = re.match(r'### <a id="([\w-]+)"></a>', section)
        listed = re.search(r"- \*\*Diagnostics\*\*:(.*?)(?=\n- \*\*|\n\n|\Z)", section, re.S)
        if anchor and listed:
            found += [
                (anchor[1], q) for q in re.findall(r"`([^`]+)`", listed[1].replace("\n", " "))
            ]
    return found


QUOTED = quoted_diagnostics()


def test_the_page_quotes_diagnostics_of_every_rule():
    assert len(QUOTED) > 60
    rules = {anchor for anchor, _ in QUOTED}
    assert rules == {r for code in CODES for r in code.rules}


@pytest.mark.parametrize("anchor, phrase", QUOTED, ids=[f"{a}:{p[:30]}" for a, p in QUOTED])
def test_each_quoted_diagnostic_has_its_rules_code(anchor: str, phrase: str):
    code = classify(phrase)
    assert code is not None, phrase
    assert anchor in code.rules, (phrase, code.code, code.rules)


def test_codes_are_unique_and_rustc_shaped():
    assert len(BY_CODE) == len(CODES)
    assert all(re.fullmatch(r"E\d{4}", c.code) for c in CODES)


def test_a_message_without_a_rule_has_no_code():
    assert classify("expected ')' in operand list") is None
