"""Running an extract project: its start URLs filled from its variables, each page read as the
project's strategy says (under the call's fetcher: the policy, robots.txt, politeness), its
datasets' rows read off it in a reader process (netglean.read.datasets) and kept by key in the
store, so a re-run writes only what is new or changed."""

from __future__ import annotations

import math
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from netglean.browser.pool import read_by_strategy
from netglean.core.errors import (
    CallTimeout,
    InvalidArguments,
    InvalidProject,
    StoreFailure,
    ToolError,
    Unavailable,
)
from netglean.net.strategy import page_strategy
from netglean.read import jobs as read_jobs
from netglean.store.base import Visited, Written

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.net.page import Page
    from netglean.store.base import Item, Project, RunStore
    from netglean.workers.pool import Readers

MAX_URLS = 1_000
"""The most start URLs one run reads once its variables are filled in."""
READ_SECONDS = 60.0
"""The longest reading one page's rows may take (a page of 10,000 items, 100 properties each, takes
seconds)."""
_PAGE_BATCH = 500
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]{0,63})\}")


def _values(value: Any) -> list[str]:
    """A variable's values: an array's items, else its lines (an empty value is one empty value)."""
    return [str(v) for v in value] if isinstance(value, list) else str(value).splitlines() or [""]


def start_urls(urls: list[str], variables: Mapping[str, Any]) -> list[str]:
    """The start URLs with each ``{name}`` filled in: an array's values (or a value's lines) give a
    URL each, every combination of them. The combinations are counted before any is built: past
    MAX_URLS the call is refused, naming the variables that multiply, without building one."""
    placeholders = [list(dict.fromkeys(_PLACEHOLDER.findall(url))) for url in urls]
    missing = list(
        dict.fromkeys(name for names in placeholders for name in names if name not in variables)
    )
    if missing:
        # the project cannot run as called: a default or the call's value is wanted
        raise InvalidProject(
            f"variables: the start URL needs {missing[0]!r}, which neither the call nor the "
            "project gives",
            detail={"argument": "variables", "missing": missing},
        )
    values = {name: _values(variables[name]) for names in placeholders for name in names}
    total = sum(math.prod(len(values[name]) for name in names) for names in placeholders)
    if total > MAX_URLS:
        counts = {name: len(values[name]) for name in values if len(values[name]) > 1}
        raise InvalidArguments(
            f"variables: the start URLs come to {total:,} combinations of "
            + " x ".join(f"{count} {name!r}" for name, count in counts.items())
            + f", more than the {MAX_URLS:,} one run reads; give fewer values, or run the "
            "project several times",
            detail={
                "argument": "variables",
                "combinations": total,
                "values": counts,
                "most": MAX_URLS,
            },
        )
    filled: dict[str, None] = {}
    for url, names in zip(urls, placeholders, strict=True):
        expanded = [url]
        for name in names:
            expanded = [
                one.replace("{" + name + "}", v.strip()) for one in expanded for v in values[name]
            ]
        filled.update(dict.fromkeys(expanded))
    return list(filled)


@dataclass(frozen=True, slots=True)
class PageFailure:
    """A page a project's run could not read: its URL and the error, as the run keeps it."""

    url: str
    code: str
    message: str
    retryable: bool
    detail: dict[str, Any] | None = None


@dataclass(slots=True)
class ProjectRun:
    """What a project's run did, counted over every page its run holds (those of an attempt before a
    restart, or of the run it resumed, too)."""

    pages_read: int = 0
    failures: list[PageFailure] = field(default_factory=list)
    """Each page that failed, in the order the run read them."""
    datasets: dict[str, list[int]] = field(default_factory=dict)
    """new, updated, unchanged by dataset."""

    def count(self, body: Mapping[str, Any]) -> None:
        """Add one page the run keeps (its visit's body)."""
        if (error := body.get("error")) is not None:
            self.failures.append(
                PageFailure(
                    body["url"],
                    error["code"],
                    error["message"],
                    error["retryable"],
                    error.get("detail"),
                )
            )
            return
        self.pages_read += 1
        for name, counts in (body.get("datasets") or {}).items():
            kept = self.datasets.setdefault(name, [0, 0, 0])
            for index, value in enumerate(counts):
                kept[index] += value


async def stored_pages(store: RunStore, run_id: str) -> AsyncIterator[Item]:
    """The pages (visits) the run holds already, in order."""
    offset = 0
    while True:
        items, total = await store.items(run_id, offset=offset, limit=_PAGE_BATCH, part=0)
        for item in items:
            yield item
        offset += len(items)
        if not items or offset >= total:
            return


async def run_extract(
    fetcher: Fetcher,
    readers: Readers,
    store: RunStore,
    project: Project,
    variables: Mapping[str, Any],
    *,
    run_id: str,
    browser: BrowserPool | None = None,
    report: Callable[[int, int], Awaitable[None]] | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> ProjectRun:
    """Every start URL the run has not read yet read, and its rows kept with the page's visit in one
    transaction; a page that fails is kept as failed and the run goes on (the store failing ends it,
    as the run's own error)."""
    definition = project.definition
    urls = await anyio.to_thread.run_sync(
        start_urls, definition["start_urls"], {**project.variables, **variables}
    )
    datasets = definition["datasets"]
    done = ProjectRun(datasets={d["name"]: [0, 0, 0] for d in datasets})
    strategy = page_strategy(definition.get("strategy", "auto"))
    seen: set[str] = set()
    seq = 0
    async for item in stored_pages(store, run_id):
        seen.add(item.body["url"])
        done.count(item.body)
        seq = max(seq, item.seq + 1)

    async def rows_of(page: Page) -> list[tuple[str, str, dict[str, Any]]]:
        # Selectors run in C, out of reach of the patterns' deadline: past READ_SECONDS the reader
        # process reading the page is replaced (in threads, where none can be stopped, the answer is
        # no longer waited for).
        with anyio.move_on_after(READ_SECONDS):
            found: list[tuple[str, str, dict[str, Any]]] = await readers.run(
                read_jobs.dataset_rows,
                document=page.document,
                datasets=datasets,
            )
            return found
        raise CallTimeout(
            f"reading the page's rows took longer than {READ_SECONDS:g} s", detail={"url": url}
        )

    for index, url in enumerate(urls):
        if stop():
            break
        if url in seen:
            continue
        try:
            rows, _ = await read_by_strategy(
                strategy, fetcher, browser, url, rows_of, lacking=lambda rows: not rows
            )
        except (StoreFailure, Unavailable):
            raise
        except ToolError as error:
            body: dict[str, Any] = {
                "url": url,
                "error": {
                    "code": error.code,
                    "message": error.message,
                    "retryable": error.retryable,
                },
            }
            if error.detail:
                body["error"]["detail"] = error.detail
            visit = Visited(
                seq, body, read=False, failed=True, canonical=None, url=url, log=_failed(url, error)
            )
            await store.record_visits(run_id, 0, [visit])
        else:
            by_dataset = {
                d["name"]: [(key, data) for of, key, data in rows if of == d["name"]]
                for d in datasets
            }
            body = {"url": url}

            def read(
                written: dict[str, Written], body: dict[str, Any] = body, at: int = seq
            ) -> list[Visited]:
                body["datasets"] = {
                    name: [w.new, w.updated, w.unchanged] for name, w in written.items()
                }
                return [Visited(at, body, read=True, failed=False, canonical=None, url=body["url"])]

            await store.write_rows(project.id, run_id, by_dataset, visits=read)
        done.count(body)
        seq += 1
        if report is not None:
            await report(index + 1, len(urls))
    return done


def _failed(url: str, error: ToolError) -> tuple[str, str]:
    return ("warning", f"failed {url}: {error.code}")
