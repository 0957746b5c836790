"""The tool server of the filecheck suite: runs `ferrox-opt`, `ferrox` and `filecheck` for
tool.py in forks of one process that imported them (and compiled a kernel) once.

    python server.py SOCKET PARENT_PID

It listens on the Unix socket SOCKET. For each request (the client's standard streams, as file
descriptors, its working folder and environment) it forks the tool's process onto them, and
replies `exit N` or `signal N` when that ends. A fork starts in
milliseconds where a new Python takes half a second to import xDSL and ferrox. The server ends
when PARENT_PID, the process that started it (lit, or a pytest worker), is no longer its parent,
and removes its socket.

What a fork inherits that a new process would not have, and how it is undone: warnings already
shown once (the filters are reset, so the registry of shown warnings is void); the standard
streams (rebuilt on the received descriptors, stdout line-buffered so that `2>&1` keeps the
order of writes); `sys.path` (the request's PYTHONPATH is put first, for tools named
`module:function`). Caches filled while warming up stay filled, as in a long-lived compiler.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import io
import os
import select
import signal
import socket
import struct
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tool import run_tool  # noqa: E402

WARM_UP_KERNEL = """
simt.kernel @copy(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [128]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %x = simt.load %a[%i] : !simt.slice<f32>
    simt.yield %x : f32
  }
  simt.return
}
"""  # noqa: E501


WARM_UP_RUNS = [
    ["lowering/to_llvm/arith.mlir", "-p", "convert-to-llvm"],
    ["lowering/to_llvm/math.mlir", "-p", "convert-to-llvm"],
    ["lowering/to_llvm/scf.mlir", "-p", "convert-to-llvm"],
    ["lowering/tile_to_simt/kernel.mlir", "-p", "lower-to-llvm", "-t", "ptx"],
    ["dialects/host/ops.mlir"],
    ["dialects/nvvm/ops.mlir", "-p", "convert-nvvm-to-llvm"],
]
"""ferrox-opt runs over a few of the suite's files that warm_up makes: every fork inherits what
they filled in (imports, xDSL's lazily built op tables and patterns), and pays for what they
did not in each test again."""


def warm_up() -> None:
    """Import what the tools use and run them over WARM_UP_KERNEL and WARM_UP_RUNS, output
    and errors discarded (a failed warm-up only costs speed)."""
    import filecheck.main  # noqa: F401

    import ferrox.driver.tools.cli  # noqa: F401
    from ferrox import registry
    from ferrox.driver.tools import opt

    for table in (registry.FERROX_DIALECTS, registry.FERROX_PASSES, registry.FERROX_TARGETS):
        for path in table.values():
            registry.load(path)
    for name in ("compile", "run", "doctor"):
        with contextlib.suppress(ImportError):
            __import__(f"ferrox.driver.tools.commands.{name}")
    suite = Path(__file__).resolve().parent.parent
    runs = [["-", "-t", "ptx"]] + [[str(suite / f), *args] for f, *args in WARM_UP_RUNS]
    saved = sys.stdin, sys.stdout, sys.stderr
    try:
        for argv in runs:
            sys.stdin, sys.stdout, sys.stderr = (
                io.StringIO(WARM_UP_KERNEL),
                io.StringIO(),
                io.StringIO(),
            )
            with warnings.catch_warnings(), contextlib.suppress(Exception, SystemExit):
                warnings.simplefilter("ignore")
                opt.main(argv)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


def read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    """The request tool.py's `encode_request` sent, and the descriptors that came with it."""
    data, fds, _, _ = socket.recv_fds(conn, 4096, 3)
    size = int.from_bytes(data[:4], "big")
    data = data[4:]
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    argv, cwd, env = ast.literal_eval(data.decode("utf-8", "surrogateescape"))
    return {"argv": argv, "cwd": cwd, "env": env}, fds


def become_tool(request: dict, fds: list[int]) -> None:
    """In the tool's process: take over the client's streams, folder and environment, run."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    for entry in reversed(request["env"].get("PYTHONPATH", "").split(os.pathsep)):
        if entry and entry not in sys.path:
            sys.path.insert(0, entry)
    encoding = "utf-8" if sys.flags.utf8_mode else None
    sys.stdin = open(0, encoding=encoding, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding=encoding, closefd=False, buffering=1)  # noqa: SIM115
    sys.stderr = open(  # noqa: SIM115
        2, "w", encoding=encoding, errors="backslashreplace", closefd=False, buffering=1
    )
    filters = list(warnings.filters)
    warnings.resetwarnings()  # voids every module's record of warnings already shown
    warnings.filters[:] = filters
    os._exit(run_tool(request["argv"][0], request["argv"][1:]))


def start_tool(conn: socket.socket, closing: list[int]) -> int:
    """Fork the tool's process for the request on `conn`; its pid."""
    request, fds = read_request(conn)
    pid = os.fork()
    if pid == 0:
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            for fd in closing:
                os.close(fd)
            conn.close()
            become_tool(request, fds)
        except BaseException:
            import traceback

            traceback.print_exc()  # to the client's standard error where it got that far
        finally:
            os._exit(70)
    for fd in fds:
        os.close(fd)
    return pid


def status_of(status: int) -> bytes:
    """The reply: one line, `signal N` or `exit N`."""
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}\n".encode()
    return f"exit {os.WEXITSTATUS(status)}\n".encode()


class Stopped(BaseException):
    """SIGTERM: end the server (removing its socket), even in the middle of its warm-up."""


def stop(signum, frame) -> None:
    raise Stopped


def serve(address: str, parent: int) -> None:
    """Accept requests and fork their tools; reply to each client when its tool ends (a
    SIGCHLD wakes the loop). One process, one thread: nothing else runs when it forks."""
    signal.signal(signal.SIGTERM, stop)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)  # clients queue here while the server warms up
    try:
        warm = False  # warmed up on the first request: a run that starts no tool pays nothing
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        waiting: dict[int, socket.socket] = {}
        while os.getppid() == parent:
            ready, _, _ = select.select([listener, wake_r], [], [], 0.5)
            if wake_r in ready:
                os.read(wake_r, 4096)
            while waiting:
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                conn = waiting.pop(pid, None)
                if conn is not None:
                    with contextlib.suppress(OSError):
                        conn.sendall(status_of(status))
                    conn.close()
            if listener in ready and not warm:
                warm_up()
                gc.collect()
                gc.freeze()  # the collector never visits (so never copies) the warmed-up objects
                warm = True
            if listener in ready:
                conn, _ = listener.accept()
                try:
                    # The tool's process keeps none of the server's descriptors: a client's
                    # socket held open there would never see its reply end.
                    closing = [listener.fileno(), wake_r, wake_w]
                    closing += [c.fileno() for c in waiting.values()]
                    waiting[start_tool(conn, closing)] = conn
                except (OSError, ValueError, struct.error):
                    conn.close()  # a client that went away: it gets no status
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(address)


if __name__ == "__main__":
    with contextlib.suppress(Stopped):
        serve(sys.argv[1], int(sys.argv[2]))
