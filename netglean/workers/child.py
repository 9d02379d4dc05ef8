"""A reader process (netglean.workers.pool starts it): pages in on stdin, what was read out on stdout.

Every message either way is a 4-byte big-endian length and a pickle. The first message out
says the reader is imported and ready; then each job, ``(name, arguments)`` naming a function of
netglean.read.jobs and its keyword arguments, gets one answer in order: ``(True, result)`` or
``(False, exception)``. The process ends
when its stdin closes. Pickles only ever cross this private pipe to the server that started it.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import struct
from typing import Any, BinaryIO

HEADER = struct.Struct("!I")
READY = "ready"


def frame(message: Any) -> bytes:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(payload)) + payload


def _answer(job: tuple[str, dict[str, Any]]) -> bytes:
    from netglean.read import jobs as read_jobs

    name, arguments = job
    try:
        if name not in read_jobs.__all__:
            raise ValueError(f"{name} is not a reader job")
        return frame((True, getattr(read_jobs, name)(**arguments)))
    except Exception as exc:  # handed back to the caller, as if the page had been read in its own process
        try:
            return frame((False, exc))
        except Exception:  # an exception that does not pickle still reaches the caller, as a message
            return frame((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


def serve(wire_in: BinaryIO, wire_out: BinaryIO) -> None:
    import netglean.read.jobs  # noqa: F401  (imported before saying ready: the first job must not wait for it)

    gc.freeze()  # the imported modules live as long as the process: no collection needs to walk them again
    wire_out.write(frame(READY))
    wire_out.flush()
    while len(header := wire_in.read(HEADER.size)) == HEADER.size:
        (size,) = HEADER.unpack(header)
        wire_out.write(_answer(pickle.loads(wire_in.read(size))))
        wire_out.flush()


def main() -> None:
    """Keep private copies of stdin/stdout for the wire; a stray print goes to stderr, never into a pickle."""
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):  # the server went away: so does its reader
        serve(wire_in, wire_out)


if __name__ == "__main__":
    main()
