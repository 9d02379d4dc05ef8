"""A project's schedule: an interval (``30m``, ``6h``, ``1d``) or a five-field cron expression, in
UTC.

One parser serves save_project (which refuses a schedule that cannot be read or runs too often) and
the scheduler (which asks when a schedule next falls due)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from netglean.core.errors import InvalidProject

SHORTEST = 5 * 60
"""The shortest gap between two scheduled runs, in seconds: a schedule is for refreshing, not for
polling."""
_INTERVAL = re.compile(
    r"^\s*(?:every\s+)?(\d{1,6})\s*(m|min|minutes?|h|hours?|d|days?)\s*$", re.IGNORECASE
)
_UNIT = {"m": 60, "h": 3600, "d": 86400}
_GAPS_CHECKED = 50
"""Cron firings looked at to find a schedule's shortest gap (a day of */5 has 288; the first 50 show
it)."""


@dataclass(frozen=True, slots=True)
class Schedule:
    text: str
    every: float | None
    """The interval in seconds, for an interval; None for a cron expression."""

    def next_after(self, after: float, last: float | None) -> float:
        """When the schedule next falls due after ``after`` (epoch seconds), the last run having
        been at ``last``: an interval counts from the last run (now, if never run: a new schedule
        starts at once); cron from ``after``."""
        if self.every is not None:
            return after if last is None else last + self.every
        from croniter import croniter

        return float(croniter(self.text, after).get_next(float))

    def shortest_gap(self) -> float:
        """The shortest time between two of its runs, in seconds."""
        if self.every is not None:
            return self.every
        from croniter import croniter

        times = croniter(self.text, 0.0)
        firings = [float(times.get_next(float)) for _ in range(_GAPS_CHECKED)]
        return min(later - earlier for earlier, later in itertools.pairwise(firings))


def parse_schedule(text: str, *, at_least: float = SHORTEST) -> Schedule:
    """The schedule ``text`` says, or InvalidProject naming what is wrong with it (unreadable, never
    due, too frequent)."""
    match = _INTERVAL.match(text)
    if match is not None:
        schedule = Schedule(
            text.strip(), float(int(match.group(1)) * _UNIT[match.group(2)[0].lower()])
        )
    else:
        schedule = _cron(text)
    gap = schedule.shortest_gap()
    if gap < at_least:
        raise InvalidProject(
            f"schedule: {schedule.text!r} would run every {_minutes(gap)}; the least is "
            f"{_minutes(at_least)}",
            detail={"argument": "schedule"},
        )
    return schedule


def _cron(text: str) -> Schedule:
    """A cron expression's schedule; refused when it cannot be read or names no date (Feb 31)."""
    from croniter import CroniterBadDateError, croniter

    fields = text.split()
    if len(fields) != 5 or not croniter.is_valid(" ".join(fields)):
        raise InvalidProject(
            f"schedule: {text[:100]!r} is neither an interval (30m, 6h, 1d) nor a five-field "
            "cron expression",
            detail={"argument": "schedule"},
        )
    schedule = Schedule(" ".join(fields), None)
    # croniter looks 50 years ahead; a date cron can name comes round within 40 (Feb 29, a Sunday).
    try:
        schedule.next_after(0.0, None)
    except CroniterBadDateError:
        raise InvalidProject(
            f"schedule: {schedule.text[:100]!r} would never run: it names no date there is "
            "(February has 29 days at most; April, June, September and November 30)",
            detail={"argument": "schedule"},
        ) from None
    return schedule


def _minutes(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return "1 minute" if minutes == 1 else f"{minutes} minutes"
