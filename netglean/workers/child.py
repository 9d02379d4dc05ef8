"""A reader process (netglean.workers.pool starts it): pages in on stdin, what was read out on
stdout.

Every message either way is a 4-byte big-endian length and a pickle. The first message out says the
reader is imported and ready; then each job, ``(reference, arguments)`` naming a reader job
(``module:function``, see ``job``) and its keyword arguments, gets one answer in order: ``(True,
result)`` or ``(False, exception)``. The process ends when its stdin closes. Pickles only ever cross
this private pipe to the server that started it.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import os
import pickle
import signal
import struct
from collections.abc import Callable
from typing import Any, BinaryIO

HEADER = struct.Struct("!I")
READY = "ready"
JOB_MODULES = ("netglean.read.jobs", "netglean.feeds.jobs")
"""The modules whose jobs a reader process runs: each names them in its ``__all__``. Named, not
imported, here: the pool sits below the engines whose jobs it runs."""


@functools.cache
def job(reference: str) -> Callable[..., Any]:
    """The reader job ``module:function`` names, or ValueError for anything else (checked on every
    job, in the server and in the reader process: found once each)."""
    module_name, _, name = reference.partition(":")
    if module_name not in JOB_MODULES:
        raise ValueError(
            f"{reference} is not a reader job: only {', '.join(JOB_MODULES)} hold them"
        )
    module = importlib.import_module(module_name)
    if name not in getattr(module, "__all__", ()) or not callable(getattr(module, name, None)):
        raise ValueError(f"{reference} is not a reader job: {module_name} does not list it")
    function: Callable[..., Any] = getattr(module, name)
    return function


def frame(message: Any) -> bytes:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(payload)) + payload


def _answer(message: tuple[str, dict[str, Any]]) -> bytes:
    reference, arguments = message
    try:
        return frame((True, job(reference)(**arguments)))
    # handed back to the caller, as if the page had been read in its own process
    except Exception as exc:
        try:
            return frame((False, exc))
        # an exception that does not pickle still reaches the caller, as a message
        except Exception:
            return frame((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


def serve(wire_in: BinaryIO, wire_out: BinaryIO) -> None:
    for module in JOB_MODULES:  # imported before saying ready: the first job must not wait for them
        importlib.import_module(module)

    # the imported modules live as long as the process: no collection needs to walk them again
    gc.freeze()
    wire_out.write(frame(READY))
    wire_out.flush()
    while len(header := wire_in.read(HEADER.size)) == HEADER.size:
        (size,) = HEADER.unpack(header)
        wire_out.write(_answer(pickle.loads(wire_in.read(size))))
        wire_out.flush()


def main() -> None:
    """Keep private copies of stdin/stdout for the wire; a stray print goes to stderr, never into a
    pickle."""
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    # Ctrl-C at a terminal reaches the whole process group: the server stops its readers in order.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the server went away: so does its reader
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        serve(wire_in, wire_out)


if __name__ == "__main__":
    main()
