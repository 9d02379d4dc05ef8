"""The composition root: settings become services (the fetcher, the reader processes, the session
budgets), and services a ToolRunner. The one place that wires them; every transport (stdio, HTTP,
the command line) builds here.

Building is cheap: nothing here connects, starts a process or imports an HTTP client. The fetcher
makes its transport on its first request, the readers start their processes on the runner's warm-up
(or first job), and the run store opens when a transport starts hosting runs (or on its first use);
with run_workers on, so does the job queue that hands runs to `netglean worker` processes.
"""

from __future__ import annotations

from collections.abc import Callable

from netglean.browser.pool import BrowserPool
from netglean.calls.context import Services
from netglean.calls.registry import Registry
from netglean.calls.runner import ToolRunner
from netglean.calls.runs import Runs
from netglean.core.settings import Settings
from netglean.net.fetcher import Fetcher
from netglean.net.policy import FetchPolicy
from netglean.net.politeness import SessionBudgets
from netglean.queue import open_queue
from netglean.scraping.fleet import FleetLimiter
from netglean.store.open import open_store
from netglean.workers.pool import Readers, worker_count


def build_services(
    registry: Registry,
    settings: Settings,
    *,
    fetcher: Fetcher | None = None,
    protocol_versions: Callable[[], tuple[str, ...]] = tuple,
) -> Services:
    """The services for ``settings`` (``registry`` serving the wire profiles they name, whose
    network policy holds where it is stricter); ``fetcher`` replaces the one they describe (tests
    give one a fake DNS), and ``protocol_versions`` is the transport's own (get_version reports
    them)."""
    registry = registry.with_profiles(settings.compat_sets)
    settings = settings.tighten(registry.policy)
    policy = FetchPolicy.from_settings(settings)
    runs = Runs(
        settings,
        lambda: open_store(settings.data_dir, settings.store),
        (lambda: open_queue(settings.store)) if settings.run_workers else None,
    )
    # a store shared by a fleet (PostgreSQL): each host's spacing and cap hold for all of it
    shared = (
        FleetLimiter(lambda: runs.store, policy.host_concurrency, policy.global_concurrency)
        if settings.store
        else None
    )
    fetcher = fetcher or Fetcher(policy, limiter=shared)
    return Services(
        settings=settings,
        registry=registry,
        fetcher=fetcher,
        readers=Readers(worker_count(settings.read_workers)),
        browser=BrowserPool(
            fetcher, path=settings.browser_path, contexts=settings.browser_contexts
        ),
        budgets=SessionBudgets(settings.session_budget),
        runs=runs,
        protocol_versions=protocol_versions,
    )


def build_runner(
    registry: Registry,
    settings: Settings,
    *,
    fetcher: Fetcher | None = None,
    protocol_versions: Callable[[], tuple[str, ...]] = tuple,
) -> ToolRunner:
    return ToolRunner(
        build_services(registry, settings, fetcher=fetcher, protocol_versions=protocol_versions)
    )
