"""One `Relaunch` written out as a single function of the call's arguments: the checked
relaunch of the same key, without the generic signature loop.

`signature.signature` reads any argument list: per argument, its class, its reader, a tuple of
the reads, all joined into a key that is then compared with the memo's. A loop that repeats one
launch compares against one key each time, so `hot(relaunch)` writes that comparison out for
that key: per argument, `type(a) is C` and each read compared with the value the key holds (a
torch tensor's dtype, shape, contiguity and device; a DeviceArray's shape, element type and
device; a CuPy array's element type, shape, strides and device, once CuPy's current stream is
its null one, read once a call since it is per thread; a scalar's value; any other reader
called as `signature` calls it), then the aliasing rule's pairs on the addresses, the stream
rule and the locked launch exactly as `Relaunch.__call__` does them. It reads every argument
the key covers on every call, as `signature` does, and returns False, launching nothing,
wherever `signature(args)` would give another key or none (an argument whose reads raise), or
`Relaunch.__call__` would return False: the caller then takes the generic path, which checks.

Python compiles the text once per kept launch (`compile`: about 0.1 ms, against a relaunch's
few µs); the values the function compares with are its globals, never text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ferrox.driver.checker import signature as _signature
from ferrox.driver.runtime.streams import LEGACY, stream_handle

Hot = Callable[[tuple, Any], bool]
"""hot(args, stream) -> whether it launched (False: nothing done, take the generic path)."""

_ADDRESSES = {"_device_array": 1, "_device_view": 1, "_scalar": 0, "_float": 0}
"""How many addresses each reader of `signature` appends (a torch tensor's: one, inline)."""


def hot(relaunch: Any) -> Hot | None:
    """`relaunch` (a `Relaunch`) as one function of (args, stream), or None when its key holds
    an argument class this module does not know how to read (that key keeps the generic
    path)."""
    key = relaunch.key
    names: dict[str, Any] = {"LEGACY": LEGACY, "stream_handle": stream_handle, "R": relaunch}
    reads: list[str] = []
    count = 0  # addresses so far
    n = len(key) // 2
    for i in range(n):
        cls, part = key[2 * i], key[2 * i + 1]
        names[f"C{i}"] = cls
        reads.append(f"if type(a{i}) is not C{i}: return False")
        reader = _signature._readers.get(cls)
        if cls is _signature._tensor or reader is _signature._torch_tensor:
            names[f"D{i}"], names[f"S{i}"], names[f"K{i}"], names[f"V{i}"] = part
            reads.append(
                f"if a{i}.dtype is not D{i} or a{i}.shape != S{i} "
                f"or a{i}.is_contiguous() is not K{i} or a{i}.device != V{i}: return False"
            )
            reads.append(f"p{count} = a{i}.data_ptr()")
            count += 1
            continue
        if reader is _signature._device_array:  # ferrox's own: read inline as a tensor is
            names[f"S{i}"], names[f"E{i}"], names[f"O{i}"] = part
            reads.append(
                f"if a{i}.shape != S{i} or a{i}.element != E{i} or a{i}.ordinal != O{i}: "
                "return False"
            )
            reads.append(f"p{count} = a{i}.ptr")
            count += 1
            continue
        if reader is _signature._cupy_array:  # inline too, its stream rule first
            if "CUPY_STREAM" not in names:  # once a call: CuPy's current stream is per thread
                names["CUPY_STREAM"] = _signature.cupy_stream
                reads.append("if CUPY_STREAM(): return False")
            names[f"T{i}"], names[f"S{i}"], names[f"R{i}"], names[f"V{i}"] = part
            reads.append(f"d{i} = a{i}.data")
            reads.append(
                f"if a{i}.dtype != T{i} or a{i}.shape != S{i} or a{i}.strides != R{i} "
                f"or d{i}.device_id != V{i}: return False"
            )
            reads.append(f"p{count} = d{i}.ptr")
            count += 1
            continue
        if reader is None or reader.__name__ not in _ADDRESSES:
            return None
        names[f"P{i}"], names[f"F{i}"] = part, reader
        if reader is _signature._scalar:
            reads.append(f"if a{i} != P{i}: return False")
            continue
        taken = _ADDRESSES[reader.__name__]
        reads.append(f"q = []\n        if F{i}(a{i}, q) != P{i} or len(q) != {taken}: return False")
        for k in range(taken):
            reads.append(f"p{count} = q[{k}]")
            count += 1
    if count != len(relaunch._written):
        return None
    addresses = "[" + "".join(f"p{k}, " for k in range(count)) + "]"
    pairs = [
        f"if p{a} < p{b} + {b_bytes} and p{b} < p{a} + {a_bytes}: return False"
        for a, a_bytes, b, b_bytes in relaunch._pairs
    ]
    names["LAUNCH"] = relaunch._launch
    names["ACQ"], names["REL"] = relaunch._acquire, relaunch._release
    if relaunch._current is None:
        implicit, explicit_check = "LEGACY", ""
    else:
        names["CUR"], names["DEV"] = relaunch._current, relaunch._device
        implicit = "CUR(DEV) or LEGACY"
        explicit_check = "\n        if stream != (CUR(DEV) or LEGACY): return False"
    # no pairs: the rule has nothing to compare, so the call need not compare the addresses
    checked = f"if addresses != R._written:\n        {_lines(pairs, 8)}" if pairs else ""
    unpack = "".join(f"a{i}, " for i in range(n)) or "()"
    source = f"""
def hot(args, stream):
    try:
        {unpack} = args  # another number of arguments: a ValueError
        {_lines(reads, 8)}
    except Exception:  # an argument that cannot say: `signature` gives None, check in full
        return False
    addresses = {addresses}
    {checked}
    if stream is None:
        stream = {implicit}
    else:
        stream = stream_handle(stream) or LEGACY{explicit_check}
    ACQ()
    try:
        if addresses != R._written:  # read again under the lock: another thread's
            for k, cell in R._cells:
                cell.value = addresses[k]
            R._written = addresses
        LAUNCH(stream)
    finally:
        REL()
    return True
"""
    exec(compile(source, f"<relaunch of {len(key) // 2} arguments>", "exec"), names)
    return names["hot"]


def _lines(lines: list[str], indent: int) -> str:
    """`lines` as one block at `indent` spaces (`pass` when there are none)."""
    return ("\n" + " " * indent).join(lines or ["pass"])


__all__ = ["Hot", "hot"]
