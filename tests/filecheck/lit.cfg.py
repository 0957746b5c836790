"""lit's configuration of the filecheck suite: `lit tests/filecheck` runs it, and so does the
README's `python -m pytest` (tests/filecheck/test_lit.py, one pytest test per file).
What the RUN lines can use is said in lit_support/ferrox_lit.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "lit_support"))

from ferrox_lit import configure  # noqa: E402

configure(config, "ferrox")  # noqa: F821 (lit defines `config`)
