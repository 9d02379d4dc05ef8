"""How one more worker joins a running run of a tool (netglean.join_run jobs), for the tools whose
runs can be spread over workers: `netglean worker` registers these (calls.runs.register_join). They
are not tools, so they live beside the handlers rather than among them."""

from __future__ import annotations

from netglean.calls.context import Services
from netglean.calls.runs import RunScope
from netglean.generated.models import CrawlInput
from netglean.handlers.sites import run_journal
from netglean.scraping.crawl_run import join_as_run
from netglean.store.base import Run


async def join_crawl(run: Run, scope: RunScope, services: Services) -> None:
    """One more worker's part in a crawl spread over workers (--crawl-workers): it reads the run's
    shared frontier until nothing waits, and says in the run's log how many pages it read."""

    async def report(visited: int, most: int, url: str) -> None:
        """The worker that took the run reports its progress; a helper has nothing to add."""

    joined = await join_as_run(
        services.fetcher,
        services.readers,
        CrawlInput.model_validate(run.arguments),
        scope,
        run_journal,
        report=report,
        stop=scope.stop,
        browser=services.browser,
    )
    await scope.log("info", f"a worker that joined the crawl read {joined.recorded} page(s)")
