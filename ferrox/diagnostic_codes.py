"""The error codes: one stable code per safety rule (docs/safety.md), rustc's where rustc has
the same rule (E0382 use after move, E0502 conflicting borrows, E0133 unsafe operation).

The verifiers say their messages in words and set no code; the renderer finds a message's code
here, by the phrases docs/safety.md quotes under each rule's **Diagnostics** (a test checks that
every quoted phrase finds its rule's code). A code's `help` is the fix the renderer prints under
the diagnostic; its long explanation and example are `ferrox explain CODE` (docs/errors.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    code: str
    title: str
    rules: tuple[str, ...]
    """Anchors in docs/safety.md (`simt-2`) of the rules this code reports."""
    patterns: tuple[str, ...]
    """Regular expressions searched in a diagnostic's message."""
    help: tuple[tuple[str, str], ...] = ()
    """(pattern, help): the first whose pattern the message matches ('' matches all)."""

    def matches(self, message: str) -> bool:
        return any(re.search(p, message) for p in self.patterns)

    def help_for(self, message: str) -> str | None:
        for pattern, text in self.help:
            if not pattern or re.search(pattern, message):
                return text
        return None


CODES: tuple[Code, ...] = (
    Code(
        "E0382",
        "use of a moved value",
        ("simt-2", "host-1"),
        (r"^use of moved value", r"^borrow of moved value"),
        (
            (
                "witness",
                "a witness is moved by the one write it guards: make a new witness for another "
                "write, or read its index with `simt.witness_value` before the move",
            ),
            (
                "",
                "use the tensor the launch gave back (its result) instead, after "
                "`host.sync_on` of its stream",
            ),
        ),
    ),
    Code(
        "E0502",
        "a tensor borrowed as input and as exclusive output of one launch",
        ("host-2",),
        (r"as immutable because it is also borrowed as mutable",),
        (("", "write the output to a tensor of its own (`host.poison`, `host.zeros`)"),),
    ),
    Code(
        "E0133",
        "an unsafe operation outside unsafe code",
        ("simt-6",),
        (
            r"contracted kernels cannot take a raw mutable buffer",
            r"is unsafe and requires an unsafe region or kernel",
            r"waits for a count of threads that nothing checks",
        ),
        (
            (
                "raw mutable buffer",
                "take a `!simt.disjoint_slice` (written through a witness) instead, or drop the "
                "contract and launch the kernel with `host.unsafe_launch`",
            ),
            (
                "",
                "use a slice, or wrap the access in `simt.unsafe { ... }` (you vouch for it: "
                "ferrox no longer checks it)",
            ),
        ),
    ),
    Code(
        "E0308",
        "mismatched types",
        (),
        (r"^mismatched types",),
    ),
    Code(
        "E0425",
        "a value that is not defined",
        (),
        (r"^cannot find value `%[\w$.-]+` in this scope",),
    ),
    Code(
        "E1001",
        "a witness not made by a trusted index op",
        ("simt-1",),
        (
            r"witness not produced by a trusted index op",
            r"produces a \S+ witness, found",
            r"needs a witness",
            r"is written only through a witness",  # the Python frontend's words for it
            r"grid order must be a permutation of the grid's axes",  # else two blocks, one tile
            r"the identity grid order is written by leaving it out",
            # a grid reversal (docs/safety.md#simt-1-reverse): else two blocks, one tile
            # (the space's, tile.kernel's `of @k`, the Python frontend's `reverse`)
            r"(reversal|reversal of @\S+|reverse) must list distinct tile-grid axes of",
            r"a grid reversal of no axis is written by leaving it out",
            # a persistent tile space (docs/safety.md#simt-1-persistent): else two blocks or two
            # iterations, one tile
            r"the induction variable of (its|a) persistent loop",
            r"takes tile\(\.\.\.\) only in a persistent space",
            r"persistent loops do not nest",
            r"schedules a persistent tile space",
            r"names a tile of a loop over",
            r"a persistent tile space takes no grid (order|reversal)",
        ),
        (
            (
                "grid order",
                "give each grid axis once (a permutation of 0 .. rank-1), or leave the order out "
                "for the identity",
            ),
            (
                r"grid reversal|reverse must list",
                "list each reversed tile-grid axis once, in increasing order and below the "
                "grid's rank, or leave the reversal out",
            ),
            (
                "",
                "make the witness with `simt.thread_index_1d` (or `simt.index_2d`, "
                "`simt.index_2d_runtime`, `simt.warp_index`, `simt.tile_index`) in this kernel",
            ),
        ),
    ),
    Code(
        "E1002",
        "a witness that escapes",
        ("simt-2",),
        (
            r"cannot store a witness to memory",
            r"cannot return a witness",
            r"cannot yield a witness out of its region",
            r"cannot pass a witness to a call",
        ),
        (
            (
                "",
                "pass or store its index (`simt.witness_value`) instead; a witness stays in "
                "the kernel that made it",
            ),
        ),
    ),
    Code(
        "E1003",
        "a witness of another index space",
        ("simt-3",),
        (
            r"index space mismatch",
            r"runtime row width must be a kernel parameter",
            r"conflicting runtime row widths",
        ),
        (("", "index a slice with a witness of the slice's own space"),),
    ),
    Code(
        "E1004",
        "a slice used as its kind forbids",
        ("simt-4",),
        (
            r"cannot read disjoint slice",
            r"a disjoint slice is never passed where a shared slice is expected",
            r"cannot update shared slice",
            r"cannot update disjoint slice",
            r"cannot read atomic slice",
            r"disjoint slice `%[\w$.-]+` cannot be used by",
            r"a Slice is read-only",  # the Python frontend's words for a write to a shared slice
        ),
        (
            (
                "",
                "read shared slices (`simt.load`), write disjoint slices through `simt.get_mut`, "
                "update atomic slices with atomics",
            ),
        ),
    ),
    Code(
        "E1005",
        "a launch contract that does not fit the kernel or the hardware",
        ("simt-5",),
        (
            r"more than the 1024 a block can hold",
            r"more than its domain",
            r"launch contract domain must be 1, 2 or 3",
            r"needs a launch contract of domain",
            r"needs a block x that is a multiple of 32",
        ),
        (
            (
                "",
                "change the kernel's `contract<...>`: at most 1024 threads a block, a domain "
                "for each index space the kernel uses",
            ),
        ),
    ),
    Code(
        "E1007",
        "a barrier or warp collective under divergent control flow",
        ("simt-7",),
        (
            r"^(?!'tile\.)\S*.*under divergent control flow",
            r"is not uniform across the block",
        ),
        (
            (
                "",
                "move it out of the branch or loop, or make the condition the same for every "
                "thread (block and grid ids, kernel parameters, constants)",
            ),
        ),
    ),
    Code(
        "E1009",
        "a warp-specialised kernel's stages handed over outside the ring protocol",
        ("simt-9",),
        (
            r"\(SIMT 9, docs/safety\.md#simt-9\)",
            r"^'simt\.(specialize|setmaxnreg)' ",
            r"first op of a 'simt\.specialize' region",
            r"must be followed by the kernel's 'simt\.return'",
            r"in the (producer|consumer) region",
            r"empty barrier",
            r"must be predicated on one producer thread",
            r"the phase must complete exactly when they have landed",
            r"full barrier must have parity",
            r"frees (a )?stage",
            r"must be on 'iv != 0' of the loop",
            r"writes stage \S+ in the consumers",
            r"only a wgmma may read a stage",
            r"the consumer loop must have the producer loop's bounds",
            r"barrier must be initialised (with count|by one thread)",
            r"stage barriers' initialisation and the split",
        ),
        (
            (
                "",
                "fill each stage in the producer's round loop after a wait on its empty barrier "
                "(parity ((iv / S) % 2) ^ 1), one thread expecting exactly the loads' bytes; in "
                "the consumers' loop over the same rounds wait on its full barrier (parity "
                "(iv / S) % 2), read it, retire the wgmma and arrive on its empty barrier",
            ),
        ),
    ),
    Code(
        "E1008",
        "a wgmma's tiles or accumulators touched while it is in flight",
        ("simt-8",),
        (
            r"needs a 'simt\.wgmma_fence' before it",
            r"that the wgmma does not read",
            r"is in flight until a 'simt\.wgmma_wait'",
            r"may only be the accumulator of a later 'simt\.wgmma'",
            r"a wgmma in flight may feed only the same accumulator",
            r"while a wgmma that reads it may be in flight",
            r"that a wgmma in flight may read",
            r"while wgmma ops may be in flight",
            r"waits only for committed groups",
            r"is a warpgroup collective",
        ),
        (
            (
                "",
                "put a `simt.wgmma_fence` before each wgmma; write a shared tile only once the "
                "`simt.wgmma_wait` that retires every group reading it has run (or write another "
                "allocation); feed each result only to the next wgmma, a wait or a yield that "
                "carries it, and retire everything with `simt.wgmma_wait {pending = 0}` before "
                "other code reads it",
            ),
        ),
    ),
    Code(
        "E1101",
        "a caller array bound to two tensors",
        ("host-1",),
        (
            r"is already bound to a tensor",
            r"each caller array is bound to its own tensor, so no two may alias",  # Python's
        ),
        (("", "bind each caller array once, and pass the tensor around"),),
    ),
    Code(
        "E1103",
        "a launch that does not give back its tensors",
        ("host-3",),
        (r"a launch gives back every tensor it takes",),
        (("", "give the launch one result per `outs` tensor, of the same type"),),
    ),
    Code(
        "E1104",
        "a tile shape or partition that does not fit",
        ("host-4",),
        (
            r"tile dimensions must be static powers of two",
            r"output partitions disagree on the grid",
            r"does not cover tensor",
            r"tile shape must be static powers of two",
        ),
        (("", "use static power-of-two tile shapes that agree on one grid"),),
    ),
    Code(
        "E1105",
        "a safe launch without a prepared launch of its kernel",
        ("host-5",),
        (
            r"needs a launch prepared by host\.prepare",
            r"has no launch contract, so it cannot be prepared",
            r"needs a prepared launch of",
        ),
        (
            (
                "no launch contract",
                "give the kernel a `contract<...>`, or launch it with `host.unsafe_launch`",
            ),
            ("", "prepare the launch with `host.prepare @kernel ...` and pass its result"),
        ),
    ),
    Code(
        "E1106",
        "a tensor observed before its stream is synced",
        ("host-6",),
        (
            r"may still be writing it",
            r"may still be reading it",
            r"of an earlier run of its",
        ),
        (("", "add `host.sync_on` of the launch's stream before this use"),),
    ),
    Code(
        "E1201",
        "a tile kernel that writes outside its own partition",
        ("tile-1",),
        (r"cannot store to an input tensor", r"tile\.store writes an output partition"),
        (("", "store to an output partition (`!tile.partition`), once per block"),),
    ),
    Code(
        "E1202",
        "a tile kernel that reads its outputs",
        ("tile-2",),
        (r"a kernel does not read its outputs",),
        (("", "read input tensors only; pass the data as an input too if you need it"),),
    ),
    Code(
        "E1203",
        "a chunk access outside its tile",
        ("tile-3",),
        (r"writes a slice of a tile<", r"reads a power-of-two chunk of at most"),
    ),
    Code(
        "E1204",
        "a tile op that cannot be lowered safely",
        ("tile-4",),
        (
            r"more than the \d+ a block (?:has|can opt in to)",
            r"thread may hold; use smaller tiles",
            r"^'tile\.\w+' under divergent control flow",
            r"is not proven uniform once lowered",
        ),
        (
            (
                "divergent|uniform",
                "branch on block coordinates or kernel scalars only, not on a tile's data",
            ),
            ("", "use smaller tiles"),
        ),
    ),
    Code(
        "E1301",
        "a launch that does not match the kernel's contract",
        ("launch-contract",),
        (
            r"contract has domain =",
            r"contract requires block =",
            r"has no launch contract, so it cannot be launched safely",
            r"dynamic shared memory is .*contract has shared_bytes",
        ),
        (("", "launch with the grid, block and shared memory the contract declares"),),
    ),
    Code(
        "E1302",
        "a launch beyond the device's limits",
        ("launch-limits",),
        (
            r"allows at most \d+ per block",
            r"puts it on grid\.[yz]",  # a tile grid order over grid.y's or grid.z's limit
            r"the kernel needs compute capability",
            r"bytes of static shared memory",
        ),
    ),
    Code(
        "E1303",
        "launch arguments that do not match the parameters",
        ("launch-args",),
        (
            r"takes \d+ arguments?, got \d+",
            r"but the array holds",
            r"is a strided view",
            r"is written by the kernel, but the array is read-only",
        ),
    ),
    Code(
        "E1304",
        "a tile launch whose grid or shapes do not match",
        ("launch-tile",),
        (
            r"tiles \(the grid must be",
            r"but the array bound to it has shape",
            r"is persistent: it loops over its tiles on a 1-D grid",
        ),
    ),
    Code(
        "E1305",
        "a launch that breaks the contract's `requires`",
        ("launch-requires",),
        (r"@[\w.$-]+ requires ",),
        (("", "launch with arguments that satisfy the relation, or change the contract"),),
    ),
    Code(
        "E1306",
        "a grid that does not cover an output",
        ("launch-coverage",),
        (r"the grid does not cover",),
        (("", "launch enough blocks for every element (ceil(len / block) blocks)"),),
    ),
    Code(
        "E1307",
        "an exclusive output that aliases another argument",
        ("launch-aliasing",),
        (r"must not alias any other argument",),
        (("", "pass the output a buffer of its own"),),
    ),
)

BY_CODE = {c.code: c for c in CODES}


def classify(message: str) -> Code | None:
    """The code of a diagnostic's message, or None (not every diagnostic has a code)."""
    for code in CODES:
        if code.matches(message):
            return code
    return None
