"""A mutation fuzzer for ferrox's command-line tools.

    python fuzz/ferrox_fuzz.py --seed 1 --minutes 30 [--save-regressions]

It mutates the project's own inputs (examples/**/*.mlir, tests/filecheck/**/*.mlir) and feeds
each mutant to ferrox-opt (parse only, the verify-disjoint, verify-ownership and lower-to-llvm
pipelines, the llvm and ptx targets), `ferrox compile` and `ferrox run --device cpu`. The tools
run in-process (their `main(argv)`, output captured) inside a worker process: a per-run alarm
(CPU time, so that a loaded machine does not look like a hang) turns a hang into a finding with
the stack where it hung, and the parent kills a worker that does not answer at all (a hang in C
code or in a child process, a crash) and starts another.

Every outcome is one of: success (exit 0), a located diagnostic with exit 1 (fine), or a finding:
an exception out of `main`, an internal error (exit 70), a hang, any other exit status, a
diagnostic without a location, or a worker that died. A finding's signature is its kind, the
exception type and the innermost ferrox or xDSL frame (file and function, no line number, so it
survives edits). Each new signature is minimised by delta debugging (lines, then tokens) and, with
--save-regressions, written to tests/fuzz/regressions/ for tests/fuzz/test_regressions.py.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import multiprocessing
import os
import random
import re
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REGRESSIONS = ROOT / "tests" / "fuzz" / "regressions"
INTERNAL_ERROR_EXIT = 70

# name -> (tool, argv before the input path, argv after it)
CONFIGS: dict[str, tuple[str, list[str], list[str]]] = {
    "opt-parse": ("opt", [], []),
    "opt-disjoint": ("opt", ["-p", "verify-disjoint"], []),
    "opt-ownership": ("opt", ["-p", "verify-ownership"], []),
    "opt-lower": ("opt", ["-p", "lower-to-llvm"], []),
    "opt-llvm": ("opt", ["-p", "lower-to-llvm", "-t", "llvm"], []),
    "opt-ptx": ("opt", ["-p", "lower-to-llvm", "-t", "ptx"], []),
    "opt-expected": ("opt", ["--split-input-file", "--verify-diagnostics"], []),
    "compile": ("ferrox", ["compile", "--no-cache", "-o", os.devnull], []),
    "run": ("ferrox", ["run", "--device", "cpu"], []),
}


def command_line(config: str, path: str) -> list[str]:
    tool, before, after = CONFIGS[config]
    return ["ferrox-opt" if tool == "opt" else "ferrox", *before, path, *after]


# ---------------------------------------------------------------------------------------------
# Running one input


class Hang(BaseException):
    """Raised by the alarm; a BaseException so that no `except Exception` in a tool swallows it."""


@dataclass(frozen=True)
class Outcome:
    verdict: str  # "ok", "diagnostic" or "finding"
    signature: str = ""
    detail: str = ""


def _frame_signature(exc: BaseException) -> str:
    """The innermost ferrox or xDSL frame (the fuzzer's own are skipped); for a RecursionError the
    frame that recurs most, which names the recursive function wherever the limit happened to
    strike."""
    import traceback

    from ferrox.driver.tools import failure

    here = Path(__file__).resolve()
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if failure._ours(f.filename) and Path(f.filename).resolve() != here
    ]
    if not frames:
        return "<no frame>"
    keys = [f"{failure.short_path(f.filename)}:{f.name}" for f in frames]
    if isinstance(exc, RecursionError):
        return Counter(keys).most_common(1)[0][0]
    return keys[-1]


def _type_name(exc: BaseException) -> str:
    kind = type(exc)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


# The tools run with FERROX_ERROR_FORMAT=short (`file:line:col: error[E0382]: message`, the code
# optional); an unlocated diagnostic in the human form (`error: ...` then `--> <unknown>`) is
# caught too, should a tool print that form regardless.
_ERROR = r"error(?:\[\w+\])?"
_UNLOCATED = re.compile(rf"^(<unknown>|[^\s:][^:]*:0:0): {_ERROR}: (?P<msg>.*)$", re.M)
_UNLOCATED_HUMAN = re.compile(rf"^{_ERROR}: (?P<msg>.*)\n\s*--> (?:<unknown>|[^\n]*:0:0)\s*$", re.M)
ERROR_FORMAT_ENV = "FERROX_ERROR_FORMAT"


def _shape(message: str) -> str:
    """A message with its values (names, numbers, quoted text) taken out, for a signature."""
    message = re.sub(r"(`[^`]*`|'[^']*'|\"[^\"]*\")", "_", message)
    message = re.sub(r"[%@^!#][\w.$-]+|\d+", "_", message)
    return " ".join(message.split()[:8])


def classify(code: object, out: str, err: str, exc: BaseException | None) -> Outcome:
    if isinstance(exc, Hang):
        return Outcome("finding", f"hang at {_frame_signature(exc)}")
    if exc is not None:
        kind = _type_name(exc)
        return Outcome("finding", f"escaped {kind} at {_frame_signature(exc)}", str(exc)[:300])
    if code == INTERNAL_ERROR_EXIT:
        return Outcome("finding", "internal error (no exception recorded)", err[-300:])
    if code not in (0, 1):
        return Outcome("finding", f"exit status {code}", err[-300:])
    if "Traceback (most recent call last)" in err or "internal error" in err:
        return Outcome("finding", "traceback or internal error text with exit 0/1", err[-300:])
    unlocated = _UNLOCATED.search(err) or _UNLOCATED_HUMAN.search(err)
    if unlocated is not None:
        return Outcome("finding", f"unlocated diagnostic: {_shape(unlocated['msg'])}", err[:300])
    if code == 0:
        return Outcome("ok")
    if not err.strip() and "FAILED" not in out:
        return Outcome("finding", "exit 1 without a message")
    return Outcome("diagnostic")


def run_in_process(config: str, path: str, limit: float) -> Outcome:
    """Run one tool on one file in this process, with an alarm after `limit` seconds of this
    process's CPU time (a child such as ptxas does not count; Runner's wall-clock watchdog does)."""
    from ferrox.driver.tools import cli, failure, opt

    tool, before, after = CONFIGS[config]
    main = opt.main if tool == "opt" else cli.main
    recorded: list[BaseException] = []

    def record(name, exc, debug=False, during=None, stream=None):
        recorded.append(exc)
        return failure.report_internal_error(name, exc, debug, during, stream)

    def on_alarm(signum, frame):
        raise Hang()

    out, err = io.StringIO(), io.StringIO()
    code: object = None
    exc: BaseException | None = None
    saved = (opt.report_internal_error, cli.report_internal_error)
    opt.report_internal_error = cli.report_internal_error = record
    # CPU time, not wall time: on a machine shared by several jobs the wall clock runs three
    # times faster than the tool, and every slow run would look like a hang.
    previous = signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_PROF, limit)
    error_format = os.environ.get(ERROR_FORMAT_ENV)
    os.environ[ERROR_FORMAT_ENV] = "short"  # one line a diagnostic, its location first
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([*before, path, *after])
    except Hang as e:
        exc = e
    except SystemExit as e:
        code = e.code
    except RecursionError as e:
        exc = e
    except Exception as e:
        exc = e
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
        opt.report_internal_error, cli.report_internal_error = saved
        if error_format is None:
            os.environ.pop(ERROR_FORMAT_ENV, None)
        else:
            os.environ[ERROR_FORMAT_ENV] = error_format
    if exc is None and recorded:
        internal = recorded[-1]
        if type(internal).__name__ == "InvalidPassOutput":  # the pass and the verifier's words
            problem = re.sub(r"^\S+:\d+:\d+: error: ", "", internal.problem)
            name, problem = internal.pass_name, _shape(problem)
            return Outcome("finding", f"invalid output of pass {name}: {problem}")
        return Outcome(
            "finding",
            f"internal error {_type_name(internal)} at {_frame_signature(internal)}",
            str(internal)[:300],
        )
    return classify(code, out.getvalue(), err.getvalue(), exc)


def _address_space_bytes() -> int:
    """This process's virtual address space now (Linux); 0 where /proc does not say."""
    import os

    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _worker(conn, memory_bytes: int) -> None:
    import resource

    if memory_bytes:
        # On top of what the worker already maps: a parent that loaded CUDA (the test suite on
        # a GPU host) has reserved many GiB of address space, and a fixed cap below that would
        # turn every allocation into a MemoryError.
        limit = _address_space_bytes() + memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    while True:
        job = conn.recv()
        if job is None:
            return
        config, path, limit = job
        try:
            outcome = run_in_process(config, path, limit)
        except BaseException as e:  # the harness itself: report, keep going
            outcome = Outcome("finding", f"harness {type(e).__name__}", str(e)[:300])
        conn.send(outcome)


WALL_FACTOR = 30
"""The worker is killed when a job has used more than `limit` + 10 s of CPU time in the worker and
its child processes (the in-process alarm did not fire: C code, or a child such as ptxas or the
LLVM worker), or more than WALL_FACTOR * `limit` + 10 s of wall time (a blocked wait). CPU time,
because on a shared machine a `nice` worker gets a fraction of a core: the wall clock ran ten
times faster than a 5-second compile."""


def _cpu_seconds(root: int) -> float:
    """CPU time (user + system, reaped children included) of process `root` and every process
    under it, from /proc; 0.0 where /proc cannot say."""
    try:
        tick = os.sysconf("SC_CLK_TCK")
        stats = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                # after the name: state ppid ... utime(11) stime(12) cutime(13) cstime(14)
                stats[int(entry)] = (int(fields[1]), sum(map(int, fields[11:15])))
    except (OSError, ValueError, IndexError):
        return 0.0
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0))[1]
        todo.extend(children.get(pid, ()))
    return total / tick


class Runner:
    """One worker process; a job that does not answer within its CPU or wall bound is killed."""

    def __init__(self, limit: float, memory_mb: int = 4096):
        self.limit = limit
        self.memory = memory_mb * 1024 * 1024
        self.ctx = multiprocessing.get_context("fork")
        self.process = None
        self.conn = None

    def _start(self) -> None:
        from ferrox.driver.tools import cli, opt  # noqa: F401  (imported once, before the fork)

        parent, child = self.ctx.Pipe()
        self.process = self.ctx.Process(target=_worker, args=(child, self.memory), daemon=True)
        self.process.start()
        self.conn = parent

    def run(self, config: str, data: bytes, workdir: Path) -> Outcome:
        if self.process is None or not self.process.is_alive():
            self._start()
        path = workdir / "input.mlir"
        path.write_bytes(data)
        self.conn.send((config, str(path), self.limit))
        pid = self.process.pid
        cpu_start, wall_end = _cpu_seconds(pid), time.monotonic() + WALL_FACTOR * self.limit + 10
        while True:
            if self.conn.poll(1.0):
                try:
                    return self.conn.recv()
                except EOFError:
                    break
            if not self.process.is_alive() or time.monotonic() > wall_end:
                break
            if _cpu_seconds(pid) - cpu_start > self.limit + 10:
                break
        code = self.process.exitcode
        self.stop()
        if code is None:
            return Outcome("finding", "hang (worker killed, no stack)")
        return Outcome("finding", f"worker died (exit {code})")

    def stop(self) -> None:
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join()
        self.process = None


# ---------------------------------------------------------------------------------------------
# Mutations

TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|%[\w.$-]+|@[\w.$-]+|\^[\w.$-]+|![\w.$]+|#[\w.$]+'
    r"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_][\w.$]*|\S"
)
TYPES = [
    "i1", "i8", "i32", "i64", "i128", "index", "f16", "bf16", "f32", "f64", "none",
    "!llvm.ptr", "!llvm.ptr<1>", "memref<4xf32>", "vector<4xf32>", "tensor<?xf32>",
    "!simt.slice<f32>", "!simt.slice<i32>", "tuple<>", "complex<f32>", "i0", "f8E4M3FN",
]  # fmt: skip
NUMBERS = [
    "0", "1", "-1", "2", "3", "31", "32", "33", "64", "127", "128", "255", "256", "1024",
    "2147483647", "2147483648", "-2147483649", "4294967296", "9223372036854775807",
    "18446744073709551616", "1" + "0" * 40, "9" * 400, "1.5", "-0.0", "1e308", "1e400",
    "0x7fffffff", "0xFFFFFFFFFFFFFFFFFFFF", "nan", "inf",
]  # fmt: skip
NAMES = ["%0", "%x", "%undefined", "@main", "@nowhere", "^bb0", "^bb9", "%arg0", "@f"]
NESTERS = [
    ("tuple<", ">"), ("memref<1x", ">"), ("vector<2x", ">"), ("!llvm.array<2 x ", ">"),
    ("(", ")"), ("[", "]"), ("{", "}"), ("loc(callsite(", ' at "f":1:1))'),
    ('loc("a"(', "))"), ("dense<[", "]>"), ("array<i32: ", ">"),
]  # fmt: skip
BAD_BYTES = [b"\xff", b"\xc3(", b"\xe2\x82", b"\x80", b"\xed\xa0\x80", b"\x00", b"\xf4\x90\x80\x80"]


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def m_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    if not lines:
        return text
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    op = rng.randrange(4)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(j, lines[i])
    elif op == 2:
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines.insert(j, lines.pop(i))
    return "".join(lines)


def _tokens(text: str) -> list[re.Match[str]]:
    return list(TOKEN.finditer(text))


def _replace(text: str, m: re.Match[str], new: str) -> str:
    return text[: m.start()] + new + text[m.end() :]


def m_token(rng: random.Random, text: str) -> str:
    toks = _tokens(text)
    if not toks:
        return text
    a, b = rng.choice(toks), rng.choice(toks)
    op = rng.randrange(3)
    if op == 0:
        return _replace(text, a, "")
    if op == 1:
        return _replace(text, a, a.group() + " " + a.group())
    return _replace(text, a, b.group())


def _pick(rng: random.Random, text: str, pattern: str) -> re.Match[str] | None:
    found = list(re.finditer(pattern, text))
    return rng.choice(found) if found else None


def m_type(rng: random.Random, text: str) -> str:
    m = _pick(rng, text, r"\b(?:i\d+|f\d+|bf16|index)\b|![\w.]+(?:<[^<>\n]*>)?")
    return text if m is None else _replace(text, m, rng.choice(TYPES))


def m_number(rng: random.Random, text: str) -> str:
    m = _pick(rng, text, r"(?<![\w%@^#!.])-?\d+(?:\.\d+)?")
    return text if m is None else _replace(text, m, rng.choice(NUMBERS))


def m_name(rng: random.Random, text: str) -> str:
    m = _pick(rng, text, r"[%@^][\w.$-]+")
    if m is None:
        return text
    same_kind = [t.group() for t in _tokens(text) if t.group()[:1] == m.group()[:1]]
    choices = same_kind + [n for n in NAMES if n[0] == m.group()[0]]
    return _replace(text, m, rng.choice(choices))


def m_nesting(rng: random.Random, text: str) -> str:
    opener, closer = rng.choice(NESTERS)
    depth = rng.choice([2, 8, 50, 300, 3000])
    m = _pick(rng, text, r"\b(?:i\d+|f\d+|index)\b|loc\([^()\n]*\)|\[[^\[\]\n]*\]")
    if m is None:
        return text
    return _replace(text, m, opener * depth + m.group() + closer * depth)


ALIASED = (
    r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)? : (?:i\d+|f\d+|bf16|index)\b"
    r"|\b(?:dense|array|memref|vector|tensor)<[^<>\n]*>(?: : [\w<>?]+)?"
    r"|\b(?:i\d+|f\d+|bf16|index)\b|![\w.]+(?:<[^<>\n]*>)?"
)


def m_alias(rng: random.Random, text: str) -> str:
    """An attribute or a type hoisted into a top-level alias (`#fz = 42 : i32`, `!fz = i32`)
    that the use then names: the seeds have none, and an alias is parsed outside every op."""
    m = _pick(rng, text, ALIASED)
    if m is None:
        return text
    value = m.group()
    sigil = (
        "!"
        if re.fullmatch(r"(?:i\d+|f\d+|bf16|index|memref<.*|vector<.*|tensor<.*|!.*)", value)
        else "#"
    )
    name = f"{sigil}fz{rng.randrange(1000)}"
    return f"{name} = {value}\n" + _replace(text, m, name)


def m_truncate(rng: random.Random, text: str) -> str:
    return text[: rng.randrange(len(text) + 1)]


MUTATORS: dict[str, Callable[[random.Random, str], str]] = {
    "line": m_line,
    "token": m_token,
    "type": m_type,
    "number": m_number,
    "name": m_name,
    "nesting": m_nesting,
    "alias": m_alias,
    "truncate": m_truncate,
}


def mutate(rng: random.Random, data: bytes) -> tuple[bytes, list[str]]:
    """One to three mutations; the encoding one works on bytes, the others on text."""
    applied = []
    text = data.decode("utf-8", "surrogateescape")
    for _ in range(rng.choice([1, 1, 2, 3])):
        name = rng.choice([*MUTATORS, "encoding"])
        applied.append(name)
        if name == "encoding":
            raw = text.encode("utf-8", "surrogateescape")
            at = rng.randrange(len(raw) + 1)
            raw = raw[:at] + rng.choice(BAD_BYTES) + raw[at:]
            text = raw.decode("utf-8", "surrogateescape")
        else:
            text = MUTATORS[name](rng, text)
    return text.encode("utf-8", "surrogateescape"), applied


def corpus() -> list[Path]:
    files = sorted((ROOT / "examples").rglob("*.mlir")) + sorted(
        (ROOT / "tests" / "filecheck").rglob("*.mlir")
    )
    return [f for f in files if "build" not in f.relative_to(ROOT).parts]


def configs_for(rng: random.Random, data: bytes, every: bool) -> list[str]:
    names = [c for c in CONFIGS if c != "opt-expected" or b"expected-" in data]
    if every:
        return names
    return [rng.choice(names)]


# ---------------------------------------------------------------------------------------------
# Minimising


def ddmin(items: list[str], still_fails: Callable[[list[str]], bool], budget: list[int]) -> list:
    """Zeller's delta debugging: a 1-minimal sublist that still fails (within a test budget)."""
    n = 2
    while len(items) >= 2 and budget[0] > 0:
        chunk = max(1, len(items) // n)
        reduced = False
        for start in range(0, len(items), chunk):
            if budget[0] <= 0:
                break
            rest = items[:start] + items[start + chunk :]
            budget[0] -= 1
            if rest and still_fails(rest):
                items, n, reduced = rest, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(items):
                break
            n = min(len(items), n * 2)
    return items


def minimise(
    data: bytes, keeps: Callable[[bytes], bool], tests: int = 150, seconds: float = 90.0
) -> bytes:
    """Lines, then tokens; at most `tests` runs and about `seconds` of them."""
    budget = [tests]
    deadline = time.monotonic() + seconds
    text = data.decode("utf-8", "surrogateescape")
    inner = keeps

    def keeps(candidate: bytes) -> bool:
        if time.monotonic() > deadline:
            budget[0] = 0
            return False
        return inner(candidate)

    def enc(parts: list[str]) -> bytes:
        return "".join(parts).encode("utf-8", "surrogateescape")

    lines = ddmin(_lines(text), lambda parts: keeps(enc(parts)), budget)
    pieces = re.findall(r"\s+|" + TOKEN.pattern, "".join(lines))
    pieces = ddmin(pieces, lambda parts: keeps(enc(parts)), budget)
    return enc(pieces)


# ---------------------------------------------------------------------------------------------
# The campaign


@dataclass
class Finding:
    signature: str
    config: str
    count: int = 0
    seed_file: str = ""
    mutations: list[str] = field(default_factory=list)
    detail: str = ""
    minimised: bytes = b""
    original: bytes = b""


def slug(signature: str) -> str:
    words = re.sub(r"[^A-Za-z0-9]+", "-", signature).strip("-").lower()[:60]
    return f"{words}-{hashlib.sha1(signature.encode()).hexdigest()[:8]}"


def regression_text(finding: Finding) -> bytes:
    header = (
        f"// fuzz-signature: {finding.signature}\n"
        f"// fuzz-config: {finding.config}\n"
        "// fuzz-status: open\n"
        f"// found by mutating {finding.seed_file} ({', '.join(finding.mutations)})\n"
    )
    return header.encode() + finding.minimised


def campaign(
    seed: int,
    seconds: float,
    max_inputs: int | None = None,
    limit: float = 10.0,
    every_config: bool = False,
    minimise_tests: int = 100,
    log: Callable[[str], None] = print,
    max_seed_bytes: int | None = None,
) -> tuple[dict[str, Finding], Counter[str]]:
    """Mutants of the corpus (only files up to `max_seed_bytes`, when given: a short campaign
    on a loaded machine must not mistake a big, slow input for a hang) until `seconds` or
    `max_inputs`; the findings by signature and the count of each verdict."""
    rng = random.Random(seed)
    seeds = [(p, p.read_bytes()) for p in corpus()]
    if max_seed_bytes is not None:
        seeds = [(p, data) for p, data in seeds if len(data) <= max_seed_bytes]
    runner = Runner(limit)
    findings: dict[str, Finding] = {}
    verdicts: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    inputs = 0
    with tempfile.TemporaryDirectory(prefix="ferrox-fuzz-") as tmp:
        work = Path(tmp)
        try:
            while time.monotonic() < deadline and (max_inputs is None or inputs < max_inputs):
                source, data = rng.choice(seeds)
                mutant, applied = mutate(rng, data)
                inputs += 1
                for config in configs_for(rng, mutant, every_config):
                    if time.monotonic() >= deadline:
                        break
                    outcome = runner.run(config, mutant, work)
                    verdicts[outcome.verdict] += 1
                    if outcome.verdict != "finding":
                        continue
                    known = findings.get(outcome.signature)
                    if known is not None:
                        known.count += 1
                        continue
                    rel = str(source.relative_to(ROOT))
                    finding = Finding(outcome.signature, config, 1, rel, applied, outcome.detail)
                    finding.original = mutant
                    findings[outcome.signature] = finding
                    log(f"new finding [{config}] {outcome.signature}  ({rel}, {applied})")

                    def keeps(candidate: bytes, sig=outcome.signature, cfg=config) -> bool:
                        return runner.run(cfg, candidate, work).signature == sig

                    tests = minimise_tests // 10 if outcome.signature.startswith("hang") else None
                    finding.minimised = minimise(mutant, keeps, tests or minimise_tests)
        finally:
            runner.stop()
    verdicts["inputs"] = inputs
    return findings, verdicts


def recheck(limit: float) -> int:
    """Each saved regression's outcome now, against its header's status."""
    mismatched = 0
    for path in sorted(REGRESSIONS.glob("*.mlir")):
        lines = path.read_bytes().decode("utf-8", "replace").splitlines()[:3]
        fields = dict(line[len("// fuzz-") :].split(":", 1) for line in lines)
        fields = {k.strip(): v.strip() for k, v in fields.items()}
        outcome = run_in_process(fields["config"], str(path), limit)
        now = "open" if outcome.verdict == "finding" else "fixed"
        mark = "" if now == fields["status"] else f"  (header says {fields['status']})"
        mismatched += bool(mark)
        print(f"{now:5}  {path.name}: {outcome.signature or outcome.verdict}{mark}")
    return 1 if mismatched else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--max-inputs", type=int, help="stop after this many mutants")
    parser.add_argument("--limit", type=float, default=10.0, help="seconds per run (a hang)")
    parser.add_argument(
        "--every-config", action="store_true", help="run every mutant through every tool"
    )
    parser.add_argument(
        "--save-regressions",
        action="store_true",
        help="write each new signature's minimised input to tests/fuzz/regressions/",
    )
    parser.add_argument("--json", metavar="PATH", help="write the summary as JSON")
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="run every saved regression and say which are still open (no campaign)",
    )
    args = parser.parse_args(argv)
    if args.recheck:
        return recheck(args.limit)
    started = time.monotonic()
    findings, verdicts = campaign(
        args.seed, args.minutes * 60, args.max_inputs, args.limit, args.every_config
    )
    elapsed = time.monotonic() - started
    print(
        f"\n{verdicts['inputs']} inputs, {sum(v for k, v in verdicts.items() if k != 'inputs')} "
        f"runs in {elapsed:.0f} s: {verdicts['ok']} ok, {verdicts['diagnostic']} diagnostics, "
        f"{verdicts['finding']} findings, {len(findings)} signatures"
    )
    for f in sorted(findings.values(), key=lambda f: -f.count):
        print(f"  {f.count:6d}  [{f.config}] {f.signature}")
    if args.save_regressions:
        REGRESSIONS.mkdir(parents=True, exist_ok=True)
        # A signature already saved as open is known; one saved as fixed that shows up again is
        # a fix that did not hold (or another cause with the same face): saved beside it.
        open_now = {
            lines[0].split(":", 1)[1].strip()
            for p in REGRESSIONS.glob("*.mlir")
            if (lines := p.read_bytes().decode("utf-8", "replace").splitlines()[:3])
            and lines[0].startswith("// fuzz-signature:")
            and lines[2:3] == ["// fuzz-status: open"]
        }
        for f in findings.values():
            if f.signature in open_now:
                continue
            name, n = slug(f.signature), 2
            while (REGRESSIONS / f"{name}.mlir").exists():
                name, n = f"{slug(f.signature)}-{n}", n + 1
            (REGRESSIONS / f"{name}.mlir").write_bytes(regression_text(f))
            print(f"saved {name}.mlir")
    if args.json:
        summary = {
            "seed": args.seed,
            "seconds": elapsed,
            "verdicts": dict(verdicts),
            "signatures": {f.signature: f.count for f in findings.values()},
        }
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
