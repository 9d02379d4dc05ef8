"""When a schedule falls due: from the latest run (a missed stretch is one due time), else from the
save."""

from __future__ import annotations

from datetime import UTC, datetime

from netglean.calls.scheduler import due_at
from netglean.store.base import Project


def _at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def _project(schedule: str, saved: str) -> Project:
    return Project("0" * 32, "p", "feed", {}, {}, schedule, "s" * 32, _at(saved), _at(saved))


def test_an_interval_counts_from_the_latest_run_and_a_new_one_is_due_at_once() -> None:
    project = _project("6h", "2026-01-01T00:00")
    assert due_at(project, None) == _at("2026-01-01T00:00")
    assert due_at(project, _at("2026-01-02T10:00")) == _at("2026-01-02T16:00")


def test_cron_falls_due_at_its_first_firing_after_the_latest_run_or_the_save() -> None:
    project = _project("0 7 * * *", "2026-01-01T09:00")
    assert due_at(project, None) == _at("2026-01-02T07:00")
    # A server down for a week owes the firing after the last run: one, already due, not seven.
    assert due_at(project, _at("2026-01-03T07:00:05")) == _at("2026-01-04T07:00")
