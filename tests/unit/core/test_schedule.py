"""A project's schedule (netglean/core/schedule.py): a cron expression that names no date there is
(the 31st of February) is refused naming it, found without searching for ever; a rare one (the 29th
of February that is a Sunday, 28 to 40 years apart) is a schedule like any other."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from netglean.calls.scheduler import due_at
from netglean.core.errors import InvalidProject, ToolError
from netglean.core.schedule import parse_schedule
from netglean.store.base import Project

NEVER = ["0 0 31 2 *", "0 0 30 2 *", "0 0 31 4,6,9,11 *", "*/5 * 30,31 2 *", "0 0 31 2 1#1"]


@pytest.mark.parametrize("cron", NEVER)
def test_a_cron_expression_that_names_no_date_is_refused_naming_it(cron: str) -> None:
    with pytest.raises(InvalidProject) as refused:
        parse_schedule(cron)
    assert refused.value.code == "invalid_config"
    assert refused.value.detail == {"argument": "schedule"}
    assert refused.value.message.startswith(f"schedule: {cron!r} would never run")


def test_a_stored_schedule_that_never_runs_is_its_projects_trouble_for_the_scheduler() -> None:
    """One saved before such schedules were refused: the scheduler logs a ToolError for that project
    and goes on to the others (a croniter error would end its whole look)."""
    saved = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    project = Project("0" * 32, "p", "feed", {}, {}, "0 0 31 2 *", "s" * 32, saved, saved)
    with pytest.raises(ToolError) as refused:
        due_at(project, None)
    assert "would never run" in refused.value.message


RARE = [("0 0 29 2 *", 4), ("0 0 29 2 0#5", 28), ("0 0 L 2 *", 1)]
"""Cron expressions that name a rare date, and the fewest years between two of their runs."""


@pytest.mark.parametrize(("cron", "years"), RARE)
def test_a_rare_date_is_a_schedule_like_any_other(cron: str, years: int) -> None:
    schedule = parse_schedule(cron)
    first = schedule.next_after(datetime(2026, 1, 1, tzinfo=UTC).timestamp(), None)
    assert schedule.shortest_gap() >= years * 365 * 86_400
    assert datetime.fromtimestamp(first, UTC).month == 2
