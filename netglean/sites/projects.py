"""Running an extract project: its start URLs filled from its variables, each page read as the project's strategy
says (under the call's fetcher: the policy, robots.txt, politeness), its datasets' rows read off it in a reader
process (netglean.read.datasets) and kept by key in the store, so a re-run writes only what is new or changed."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from netglean.browser.pool import read_by_strategy
from netglean.core.errors import InvalidProject, StoreFailure, ToolError, Unavailable
from netglean.net.strategy import page_strategy
from netglean.read import jobs as read_jobs

if TYPE_CHECKING:
    from netglean.browser.pool import BrowserPool
    from netglean.net.fetcher import Fetcher
    from netglean.net.page import Page
    from netglean.store.base import Project, RunStore
    from netglean.workers.pool import Readers

MAX_URLS = 1_000
"""The most start URLs one run reads once its variables are filled in."""
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]{0,63})\}")


def start_urls(urls: list[str], variables: Mapping[str, Any]) -> list[str]:
    """The start URLs with each ``{name}`` filled in: an array's values (or a value's lines) give a URL each."""
    filled: list[str] = []
    for url in urls:
        names = _PLACEHOLDER.findall(url)
        missing = [name for name in names if name not in variables]
        if missing:
            raise InvalidProject(  # the project cannot run as called: a default or the call's value is wanted
                f"variables: the start URL needs {missing[0]!r}, which neither the call nor the project gives",
                detail={"argument": "variables", "missing": missing},
            )
        expanded = [url]
        for name in dict.fromkeys(names):
            value = variables[name]
            values = [str(v) for v in value] if isinstance(value, list) else str(value).splitlines() or [""]
            expanded = [one.replace("{" + name + "}", v.strip()) for one in expanded for v in values]
        filled += expanded
        if len(filled) > MAX_URLS:
            raise InvalidProject(
                f"variables: the start URLs come to more than {MAX_URLS}", detail={"argument": "variables"}
            )
    return list(dict.fromkeys(filled))


@dataclass(slots=True)
class ProjectRun:
    pages_read: int = 0
    failures: list[tuple[str, ToolError]] = field(default_factory=list)
    datasets: dict[str, list[int]] = field(default_factory=dict)
    """new, updated, unchanged by dataset."""


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
    """Every start URL read and its rows kept; a page that fails is reported and the run goes on (the store
    failing ends it, as the run's own error)."""
    definition = project.definition
    urls = start_urls(definition["start_urls"], {**project.variables, **variables})
    datasets = definition["datasets"]
    done = ProjectRun(datasets={d["name"]: [0, 0, 0] for d in datasets})
    strategy = page_strategy(definition.get("strategy", "auto"))

    async def rows_of(page: Page) -> list[tuple[str, str, dict[str, Any]]]:
        found: list[tuple[str, str, dict[str, Any]]] = await readers.run(
            read_jobs.dataset_rows, document=page.document, datasets=datasets
        )
        return found

    for index, url in enumerate(urls):
        if stop():
            break
        try:
            rows, _ = await read_by_strategy(strategy, fetcher, browser, url, rows_of, lacking=lambda rows: not rows)
        except (StoreFailure, Unavailable):
            raise
        except ToolError as error:
            done.failures.append((url, error))
        else:
            done.pages_read += 1
            for dataset in datasets:
                name = dataset["name"]
                kept = [(key, data) for of, key, data in rows if of == name]
                written = await store.write_rows(project.id, name, run_id, kept)
                counts = done.datasets[name]
                counts[0] += written.new
                counts[1] += written.updated
                counts[2] += written.unchanged
        if report is not None:
            await report(index + 1, len(urls))
    return done
