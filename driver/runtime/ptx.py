"""What a launch needs to know from PTX text: each entry's parameters and launch directives.

The driver answers a block that differs from `.reqntid` with a bare CUDA_ERROR_INVALID_VALUE;
knowing the entry's directives lets the launcher say why. The parameter sizes let it refuse a
call with a missing or mis-sized argument instead of letting the kernel read garbage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Dim3 = tuple[int, int, int]

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$%][\w$]*)\s*\((.*?)\)\s*([^{]*)\{", re.S)
_ARRAY = re.compile(r"\[\s*(\d+)\s*\]")
_SCALAR_BITS = re.compile(r"\.[busf](8|16|32|64)\b")
_DIM3 = r"(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?"


@dataclass(frozen=True)
class EntryInfo:
    name: str
    param_sizes: tuple[int, ...]
    reqntid: Dim3 | None = None
    maxntid: Dim3 | None = None


def _dim3(directive: str, text: str) -> Dim3 | None:
    m = re.search(rf"\.{directive}\s+{_DIM3}", text)
    if m is None:
        return None
    return (int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))


def _param_size(decl: str) -> int:
    """Bytes of one `.param` declaration: `.u64 .ptr .global .align 1 p`, `.align 8 .b8 s[16]`."""
    if (array := _ARRAY.search(decl)) is not None:
        bits = _SCALAR_BITS.search(decl)
        return int(array.group(1)) * (int(bits.group(1)) // 8 if bits else 1)
    bits = _SCALAR_BITS.search(decl)
    if bits is None:
        raise ValueError(f"cannot size PTX parameter: {decl.strip()}")
    return int(bits.group(1)) // 8


def parse_entries(ptx: str | bytes) -> dict[str, EntryInfo]:
    """Every `.entry` in a PTX module, by name."""
    text = ptx.decode(errors="replace") if isinstance(ptx, (bytes, bytearray)) else ptx
    text = _COMMENTS.sub("", text)
    entries: dict[str, EntryInfo] = {}
    for m in _ENTRY.finditer(text):
        name, params, directives = m.group(1), m.group(2), m.group(3)
        decls = [d for d in params.split(",") if ".param" in d]
        entries[name] = EntryInfo(
            name=name,
            param_sizes=tuple(_param_size(d) for d in decls),
            reqntid=_dim3("reqntid", directives),
            maxntid=_dim3("maxntid", directives),
        )
    return entries
