"""Projects and their datasets in the store, on every backend: names unique per store, a listing
filtered and sorted by the data tools' language, rows written incrementally (new, updated, unchanged
by key) and read back filtered, sorted and paged, and a project's rows going with it."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from netglean.core.errors import NameTaken
from netglean.store.base import Project, ProjectFeed, RunStore, Visited
from netglean.store.filters import fields_of, parse_filter, parse_sort

PROJECT_FIELDS = fields_of(
    {"id": "id", "name": "name", "kind": "kind", "created": "created", "updated": "updated"},
    properties=False,
)
ROW_FIELDS = fields_of(
    {"run_id": "run_id", "created": "created", "updated": "updated"},
    properties=True,
)


def _project(pid: str, name: str, kind: str = "extract", at: float = 1.0) -> Project:
    return Project(
        pid,
        name,
        kind,
        {"start_urls": ["https://a.test/"]},
        {"page": 1},
        None,
        f"secret-{pid}",
        at,
        at,
    )


def _clause(text: str, sort: str, fields: Any, default: str) -> dict[str, Any]:
    return {"where": parse_filter(text, fields), "order": parse_sort(sort, fields, default)}


def test_a_project_is_kept_whole_and_its_name_stays_unique(store: RunStore) -> None:
    async def work() -> tuple[Project | None, list[Project]]:
        await store.save_project(_project("p1", "shop"))
        # saved again: an update, not a second project
        await store.save_project(_project("p1", "shop", at=2.0))
        with pytest.raises(NameTaken) as taken:
            await store.save_project(_project("p2", "shop"))
        assert taken.value.detail == {"argument": "name"} and "unique" in taken.value.message
        return await store.project("p1"), await store.projects_named("shop")

    kept, named = anyio.run(work)
    assert (
        kept is not None
        and kept.definition == {"start_urls": ["https://a.test/"]}
        and kept.variables == {"page": 1}
    )
    assert kept.secret == "secret-p1" and kept.updated_at == 2.0 and [p.id for p in named] == ["p1"]


def test_a_project_is_found_by_its_name_but_for_case_last_updated_first(store: RunStore) -> None:
    async def work() -> list[list[str]]:
        for pid, name, at in [("p1", "Shop", 1.0), ("p2", "SHOP", 3.0), ("p3", "shop", 2.0)]:
            await store.save_project(_project(pid, name, at=at))
        await store.save_project(_project("p4", "shops"))
        found = []
        for name, limit in [("sHoP", 20), ("shop", 2), ("Shops", 20), ("hop", 20), ("%", 20)]:
            alike = await store.projects_named_any_case(name, limit=limit)
            found.append([project.id for project in alike])
        return found

    assert anyio.run(work) == [["p2", "p3", "p1"], ["p2", "p3"], ["p4"], [], []]


def test_projects_are_listed_by_the_filter_language_newest_first(store: RunStore) -> None:
    async def work() -> list[tuple[list[str], int]]:
        for n, kind in enumerate(["extract", "feed", "crawl", "feed"]):
            await store.save_project(_project(f"p{n}", f"project {n}", kind, at=float(n)))
        shown = []
        for text, sort, offset in [
            ("", "", 0),
            ('kind = "feed"', "", 0),
            ('name ~ "project"', "name", 1),
        ]:
            found, total = await store.list_projects(
                **_clause(text, sort, PROJECT_FIELDS, "-updated"), offset=offset, limit=2
            )
            shown.append(([p.id for p in found], total))
        return shown

    assert anyio.run(work) == [(["p3", "p2"], 4), (["p3", "p1"], 2), (["p1", "p2"], 4)]


def test_rows_are_written_incrementally_by_key(store: RunStore) -> None:
    async def work() -> list[Any]:
        await store.save_project(_project("p1", "shop"))
        first = await store.write_rows(
            "p1",
            "run1",
            {"products": [("a", {"name": "A", "price": 1}), ("b", {"name": "B", "price": 2})]},
        )
        again = await store.write_rows(
            "p1",
            "run2",
            {
                "products": [
                    ("a", {"name": "A", "price": 1}),
                    ("b", {"name": "B", "price": 3}),
                    ("c", {"name": "C", "price": 5}),
                ]
            },
        )
        rows, total = await store.rows(
            "p1",
            "products",
            **_clause("price >= 2", "-price", ROW_FIELDS, "-created"),
            offset=0,
            limit=10,
        )
        return [
            first,
            again,
            [(r.key, r.data["price"], r.run_id) for r in rows],
            total,
            await store.datasets("p1"),
        ]

    first_written, again_written, rows, total, datasets = anyio.run(work)
    first, again = first_written["products"], again_written["products"]
    assert (first.new, first.updated, first.unchanged) == (2, 0, 0)
    assert (again.new, again.updated, again.unchanged) == (1, 1, 1)
    assert (
        rows == [("c", 5, "run2"), ("b", 3, "run2")] and total == 2 and datasets == {"products": 3}
    )


def test_rows_stay_in_their_project_and_go_with_it(store: RunStore) -> None:
    async def work() -> tuple[int, int, bool, bool]:
        await store.save_project(_project("p1", "one"))
        await store.save_project(_project("p2", "two"))
        await store.write_rows("p1", "r", {"d": [("k", {"x": 1})]})
        await store.write_rows("p2", "r", {"d": [("k", {"x": 1})]})
        _, mine = await store.rows(
            "p1",
            "d",
            **_clause("x = 1", "", ROW_FIELDS, "-created"),
            offset=0,
            limit=5,
        )
        deleted = await store.delete_project("p1")
        _, after = await store.rows(
            "p1", "d", **_clause("", "", ROW_FIELDS, "-created"), offset=0, limit=5
        )
        return mine, after, deleted, await store.delete_project("p1")

    assert anyio.run(work) == (1, 0, True, False)


def test_a_pages_rows_and_its_visit_are_kept_together_and_a_later_run_can_take_the_checkpoint(
    store: RunStore,
) -> None:
    async def work() -> dict[str, Any]:
        await store.save_project(_project("p1", "shop"))
        for run in ("r1", "r2"):
            await store.create(run, "run_project", {"project_id": "p1"}, None, "s")
            await store.link_run("p1", run)
        read = Visited(
            0,
            {"url": "https://a.test/1"},
            read=True,
            failed=False,
            canonical=None,
            url="https://a.test/1",
        )
        failed = Visited(
            1,
            {"url": "https://a.test/2"},
            read=False,
            failed=True,
            canonical=None,
            url="https://a.test/2",
        )
        await store.write_rows("p1", "r1", {"d": [("k", {"x": 1})]}, visits=lambda written: [read])
        await store.record_visits("r1", 0, [failed])
        taken = await store.adopt("r2", "r1", failed=False)
        items, _ = await store.items("r2", offset=0, limit=10)
        runs, total = await store.project_runs("p1", statuses=(), offset=0, limit=10)
        await store.log("r1", "warning", "failed https://a.test/2: unreachable")
        logs, log_total = await store.run_logs(["r1", "r2"], levels=["warning"], offset=0, limit=10)
        return {
            "taken": taken,
            "items": [item.body["url"] for item in items],
            "runs": sorted(run.id for run in runs),
            "total": total,
            "logs": [(run, line.message) for run, line in logs],
            "log_total": log_total,
        }

    assert anyio.run(work) == {
        "taken": 1,
        "items": ["https://a.test/1"],
        "runs": ["r1", "r2"],
        "total": 2,
        "logs": [("r1", "failed https://a.test/2: unreachable")],
        "log_total": 1,
    }


def test_a_feed_keeps_its_last_good_version_when_a_refresh_fails(store: RunStore) -> None:
    async def work() -> list[ProjectFeed | None]:
        await store.save_project(_project("p1", "news", "feed"))
        before = await store.project_feed("p1")
        await store.feed_failed("p1", "unreachable")
        await store.keep_feed("p1", "r1", "<rss/>", "{}", '"e1"')
        good = await store.project_feed("p1")
        await store.feed_failed("p1", "blocked")
        return [before, good, await store.project_feed("p1")]

    before, good, failed = anyio.run(work)
    assert before is None and good is not None and failed is not None
    assert (good.rss, good.etag, good.failure) == ("<rss/>", '"e1"', None)
    assert (failed.rss, failed.etag, failed.failure) == (
        "<rss/>",
        '"e1"',
        "blocked",
    ) and failed.failed_at


def test_every_page_of_rows_says_how_many_match_whether_full_short_empty_or_past_the_end(
    store: RunStore,
) -> None:
    """A page short of its limit gives the total without counting (it holds the last match); a full
    page, and one past the end, count. Each way, the total is the number of rows the filter
    matches."""

    async def work() -> list[tuple[list[str], int]]:
        await store.save_project(_project("p1", "shop"))
        await store.write_rows(
            "p1", "r", {"d": [(f"k{n}", {"n": n, "even": n % 2 == 0}) for n in range(7)]}
        )
        shown = []
        pages = [("", 0), ("", 3), ("", 6), ("", 9), ("n > 0", 3), ("n > 0", 6), ("n > 9", 0),
                 ("even = true", 0), ("even = true", 3), ("n = 4", 0), ("n = 4", 1)]  # fmt: skip
        for text, offset in pages:
            found, total = await store.rows(
                "p1", "d", **_clause(text, "n", ROW_FIELDS, "-created"), offset=offset, limit=3
            )
            shown.append(([row.key for row in found], total))
        return shown

    assert anyio.run(work) == [
        (["k0", "k1", "k2"], 7),
        (["k3", "k4", "k5"], 7),
        (["k6"], 7),
        ([], 7),
        (["k4", "k5", "k6"], 6),
        ([], 6),
        ([], 0),
        (["k0", "k2", "k4"], 4),
        (["k6"], 4),
        (["k4"], 1),
        ([], 1),
    ]
