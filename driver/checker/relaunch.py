"""A launch the checker passed, kept to be launched again on any buffers with the same key.

`signature.signature` splits a launch's arguments into a key (types, element types, shapes,
contiguity, devices, scalar values) and the buffers' addresses. The checker's verdict on two
launches with equal keys (and equal kernel, grid, block and shared memory) differs at most in
the aliasing rule, the one rule that reads addresses. So a `Relaunch` keeps, from one launch
the checker passed in full, what every later launch with that key needs:

- the buffer pairs the aliasing rule compares (`aliasing.checked_pairs`) with their sizes, to
  compare them again on each call's addresses; a pair that overlaps sends the call back to the
  full check, which refuses it with the rule's own message (never skipped: it can fail; a
  call on exactly the addresses the packed parameters hold, which passed it with this key's
  sizes, has its verdict already);
- the packed parameters, whose address slots a call on other addresses rewrites (every other
  byte is a function of the key), and the launch dimensions;
- the device whose torch current stream the launch goes on (read each call through torch's
  raw-handle getter: no stream object is made), else the legacy default stream. A caller's
  explicit stream is taken as it is for device arrays (their views need no ordering), and for
  torch tensors only when it is torch's current stream: on any other the full path's DLPack
  export orders it after torch's work, which a relaunch would skip. CuPy arrays have a key only
  while their producer is on the legacy stream (`signature._cupy_array`), so their relaunch
  takes that stream alone (never beside torch tensors, whose stream is torch's).

A torch training loop that allocates new activations of the same shapes each step therefore
pays the address comparisons, not the checker. The packed parameters are shared by every
thread, so writing the addresses and launching hold a lock (the driver copies the parameters
when `cuLaunchKernel` is called, and so does CUDA graph capture: a later rewrite never reaches
an earlier launch).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, Literal

from ferrox.artifact import KernelArtifact
from ferrox.driver.checker.aliasing import checked_pairs
from ferrox.driver.checker.args import BufferArg
from ferrox.driver.checker.check import CheckedLaunch
from ferrox.driver.checker.relaunch_hot import Hot, hot
from ferrox.driver.checker.signature import _cupy_array, reader_for
from ferrox.driver.runtime.streams import LEGACY, stream_handle, torch_current_stream


class Relaunch:
    """`relaunch(addresses, stream=None)`: launch again on these buffer addresses (in the
    order `signature` reads them), or return False, launching nothing, when two of them now
    overlap where the aliasing rule forbids it, or when torch tensors are launched on a stream
    other than torch's current one (both: the caller checks in full, which orders the streams
    or refuses). No stream: torch's current stream, else the legacy default stream.

    `launch(stream)` is the loaded kernel's prepared launch (`LoadedKernel.prepared`) of the
    packed parameters whose address cells `cells` names; the lock's two methods are bound once
    (a `with` block costs two more calls)."""

    __slots__ = (
        "key", "_launch", "_cells", "_pairs", "_current", "_device", "_acquire", "_release",
        "_written", "_hot",
    )  # fmt: skip

    def __init__(self, key: tuple, launch: Callable[[int], None], cells: list, pairs: list,
                 device: int | None, written: Sequence[int] = (), *,
                 legacy: bool = False):  # fmt: skip
        self.key = key
        self._launch = launch
        self._cells = cells  # (address index, the ctypes cell it is written to)
        self._pairs = pairs  # (address index, bytes, address index, bytes): both non-empty
        self._current: Callable[[int], int] | None = None
        """What gives the stream the launch must go on (else the caller's, any): torch's
        current stream, or (`legacy`: arrays whose producer is on the legacy stream, CuPy's)
        always the legacy one."""
        if legacy:
            self._current = _legacy_stream
        elif device is not None:
            self._current = _stream_getter()
        self._device = device or 0  # `_current(_device)`: torch's current stream there
        lock = threading.Lock()
        self._acquire, self._release = lock.acquire, lock.release
        self._hot: Hot | Literal[False] | None = None  # `hot()`, written out once; False: cannot be
        self._written = list(written)
        """The addresses the cells hold: the checked launch's, then the last relaunch's. Each
        passed the aliasing rule with this key's sizes, so a call on the same addresses (a loop
        on the same buffers) has the rule's verdict already and writes nothing."""

    def __call__(self, addresses: list[int], stream: Any = None) -> bool:
        if addresses != self._written:
            for a, a_bytes, b, b_bytes in self._pairs:
                start_a, start_b = addresses[a], addresses[b]
                if start_a < start_b + b_bytes and start_b < start_a + a_bytes:
                    return False
        current = self._current
        if stream is None:
            stream = LEGACY if current is None else current(self._device) or LEGACY
        else:
            stream = stream_handle(stream) or LEGACY
            if current is not None and stream != (current(self._device) or LEGACY):
                return False  # torch tensors on a stream not torch's: the full path orders them
        self._acquire()
        try:
            if addresses != self._written:  # read again under the lock: another thread's
                for k, cell in self._cells:
                    cell.value = addresses[k]
                self._written = addresses
            self._launch(stream)
        finally:
            self._release()
        return True

    def hot(self) -> Hot | None:
        """This relaunch as one function of (args, stream) (`relaunch_hot.py`): what a loop
        repeating one launch calls, in place of `signature` and this object. None for a key
        that function cannot read."""
        found = self._hot
        if found is None:
            found = self._hot = hot(self) or False
        return found or None


def _legacy_stream(device: int) -> int:
    """The stream a relaunch on arrays of a producer on the legacy stream goes on: that one (on
    any other the full check's export orders the producer's work first)."""
    return LEGACY


def _stream_getter() -> Callable[[int], int]:
    """What reads torch's current stream on a device (0 for its legacy default): torch's own
    raw-handle getter, called directly, where torch has one."""
    raw = getattr(sys.modules["torch"]._C, "_cuda_getCurrentRawStream", None)
    return torch_current_stream if raw is None else raw


def relaunch_for(
    key: tuple,
    addresses: Sequence[int],
    artifact: KernelArtifact,
    checked: CheckedLaunch,
    kernel: Any,
    packed: Any,
    device: int | None,
    *,
    aliasing: bool = True,
) -> Relaunch | None:
    """The `Relaunch` of a launch the checker passed (`checked`, on arguments whose signature
    is `key`, `addresses`) and that was packed as `packed` for the loaded `kernel`; None when
    the addresses do not line up with the checker's buffers one to one, or when the kernel
    takes TMA tensor maps (encoded from the buffers' addresses when packed, so a rewritten
    address would leave a map on the old buffer): every such launch is checked in full.
    `aliasing=False` (`unsafe_launch`'s memo: `checked` is the caller's launch as given, which
    nothing checked) keeps no pairs to compare: the caller vouches for every launch."""
    if artifact.tensor_maps:  # a TMA tensor map holds a buffer's address: built at each launch
        return None
    legacy = any(reader_for(cls) is _cupy_array for cls in key[::2])
    if legacy and device is not None:  # with torch tensors: torch's stream, which CuPy's is not
        return None
    args = checked.args
    index: dict[int, int] = {}  # caller argument -> its address's position
    for i, value in enumerate(args):
        if isinstance(value, BufferArg):
            k = len(index)
            if k >= len(addresses) or value.start != addresses[k]:
                return None
            index[i] = k
    if len(index) != len(addresses):
        return None
    pairs = []
    for i, j in checked_pairs(artifact.params, args) if aliasing else ():
        a, b = args[i], args[j]
        assert isinstance(a, BufferArg) and isinstance(b, BufferArg)
        if a.nbytes and b.nbytes:
            pairs.append((index[i], a.nbytes, index[j], b.nbytes))
    by_id = {id(v): i for i, v in enumerate(args) if isinstance(v, BufferArg)}
    cells, slots, slot = [], [], 0
    for param, value in zip(kernel.params, checked.entry_args, strict=True):
        if isinstance(value, BufferArg):
            source = by_id.get(id(value))
            if source is None:
                return None
            cell = packed.address_cell(slot)
            if cell.value != addresses[index[source]]:
                return None
            cells.append((index[source], cell))
            slots.append(slot)
        slot += len(param.abi)
    packed.moved(slots)
    dims = kernel.dims(checked.grid, checked.block, checked.shared_bytes)
    launch = kernel.prepared(dims, packed)
    return Relaunch(key, launch, cells, pairs, device, addresses, legacy=legacy)


__all__ = ["Relaunch", "relaunch_for"]
