"""Which processes are alive, told by file locks the kernel lets go of when a process dies (kill -9
included): a run whose owner's lock can be taken was left by a dead process, whatever became of its
process id."""

from __future__ import annotations

import contextlib
import fcntl
import os
import uuid
from pathlib import Path


class Owners:
    """This process's lock in ``folder`` (held until close), and a way to test another's."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._folder = folder
        self.id = uuid.uuid4().hex
        self._fd = os.open(self._path(self.id), os.O_CREAT | os.O_RDWR, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _path(self, owner: str) -> Path:
        return self._folder / f"{owner}.lock"

    def alive(self, owner: str | None) -> bool:
        if owner is None:
            return False
        if owner == self.id:
            return True
        try:
            fd = os.open(self._path(owner), os.O_RDWR)
        # ValueError: an owner id with a NUL, from a damaged row
        except (FileNotFoundError, ValueError):
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            self._path(owner).unlink()  # a dead process's lock: nobody will hold it again
        return False

    def close(self) -> None:
        if self._fd < 0:
            return
        with contextlib.suppress(FileNotFoundError):
            self._path(self.id).unlink()
        os.close(self._fd)
        self._fd = -1
