"""Waiting without timing assertions: poll until something holds, within a generous overall
bound."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def until(check: Callable[[], T | None], what: str, bound: float = 60.0) -> T:
    """``check()`` once it is truthy, polled; fails naming ``what`` after ``bound`` seconds."""
    deadline = time.monotonic() + bound
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)
