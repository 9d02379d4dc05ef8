"""What the runs manager and the handlers need of a store, whatever database holds it: a Protocol
for each concern (runs, a crawl's journal, projects and their datasets, served feeds, the scan
index), and RunStore, all of them. The interface speaks no SQL dialect: a filter is a tree
(netglean.store.filters), compiled by each backend."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from netglean.store.filters import Condition, Sort

ACTIVE = ("queued", "running")
"""Statuses of a run some process is (or should be) working on."""
FINISHED = ("succeeded", "failed", "cancelled", "interrupted")
STATUSES = ACTIVE + FINISHED
RESUMABLE = ("failed", "cancelled", "interrupted")
"""Statuses a run can be resumed from (a succeeded one too, to retry its failed pages)."""
LOG_LINES_STORED = 2_000
"""Lines of one run's log a store keeps (the latest; up to TRIM_EVERY more between two trims)."""
TRIM_EVERY = 100


@dataclass(frozen=True, slots=True)
class Run:
    """One run as the store holds it (the result envelope apart: ``RunStore.result``)."""

    id: str
    tool: str
    arguments: dict[str, Any]
    label: str | None
    session: str
    status: str
    owner: str | None
    done: int
    total: int | None
    current: str | None
    created_at: float
    started_at: float | None
    updated_at: float
    finished_at: float | None
    error_code: str | None
    error_message: str | None
    attempts: int
    cancel: str | None
    """A cancel asked of the run's owner and not yet carried out: graceful or force."""
    has_result: bool

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


@dataclass(frozen=True, slots=True)
class LogLine:
    seq: int
    at: float
    level: str
    message: str


@dataclass(frozen=True, slots=True)
class Item:
    """One stored piece of a run's result (a crawl's visit): ``part`` is which list it belongs to (a
    seed of a batch_crawl), ``seq`` its place there."""

    part: int
    seq: int
    body: dict[str, Any]
    size: int
    """Characters of the item as JSON."""


@dataclass(frozen=True, slots=True)
class Queued:
    """A URL a crawl found and has still to visit, in breadth order (``seq``)."""

    seq: int
    url: str
    depth: int


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Where a crawl stands in the store: how many URLs it has queued (seqs 0 to ``queued`` - 1) and
    how many of those wait to be visited; its visits counted."""

    queued: int
    waiting: int
    visited: int
    read: int
    failed: int
    dropped: int
    """Links its visits wanted but did not queue."""


@dataclass(frozen=True, slots=True)
class Visited:
    """One visit as a crawl records it: the item to keep, and the links it queued (written
    together)."""

    seq: int
    body: dict[str, Any]
    read: bool
    failed: bool
    canonical: str | None
    url: str
    links: Sequence[Queued] = ()
    log: tuple[str, str] | None = None
    """A line of the run's log about the visit (level, message), kept with it."""
    dropped: int = 0
    """Links of the page the crawl wanted but did not queue."""


@dataclass(frozen=True, slots=True)
class Found:
    """A visit of a crawl shared by several workers, as one of them records it: the visit (its
    ``links`` left empty: the store queues ``found``, giving each URL new to the crawl its seq) and
    the URLs its page gave to follow, at ``depth``."""

    visit: Visited
    found: Sequence[str] = ()
    depth: int = 0


@dataclass(frozen=True, slots=True)
class Kept:
    """What recording a shared crawl's visit did: whether it was recorded (False: another worker,
    whose claim this one's outlived, recorded the page first), the URLs it queued, and the URLs new
    to the crawl it found no room for (max_pages queued already)."""

    recorded: bool
    queued: int = 0
    dropped: int = 0


def host_of(url: str) -> str:
    """The host a URL's page is fetched from, as a shared crawl's host slices and the fleet's
    politeness name it."""
    return (urlsplit(url).hostname or "").lower()


@dataclass(frozen=True, slots=True)
class Project:
    """A saved job: its definition (the kind's own arguments), its variables' defaults, its
    schedule."""

    id: str
    name: str
    kind: str
    definition: dict[str, Any]
    variables: dict[str, Any]
    schedule: str | None
    secret: str
    """The feed URL's secret (a feed reader cannot send a bearer token): shown by get_project, never
    logged."""
    created_at: float
    updated_at: float


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a dataset: its properties, the run that last wrote them, when it was first and
    last written."""

    dataset: str
    key: str
    run_id: str
    data: dict[str, Any]
    created_at: float
    updated_at: float


@dataclass(frozen=True, slots=True)
class Written:
    """What writing a run's rows did: rows new to the dataset, changed, and the same as already
    kept."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0
    each: tuple[int, ...] = ()
    """What writing each row did, in the rows' order: 0 new, 1 updated, 2 unchanged."""


@dataclass(frozen=True, slots=True)
class ProjectFeed:
    """A feed project's feed as served: the last good one (None before any), and the last refresh
    that failed after it (when it failed, and why in netglean's words)."""

    run_id: str | None
    rss: str | None
    json: str | None
    etag: str | None
    built_at: float | None
    failed_at: float | None
    failure: str | None


@dataclass(frozen=True, slots=True)
class ScanRecord:
    """One scan in the local index: where and when, its outcome and score, its result whole (the
    evidence is kept beside it, read with ``scan_evidence``)."""

    id: str
    domain: str
    """The scanned URL's host, lower case (IDNA), without port."""
    url: str
    scanned_at: float
    outcome: str
    reason: str | None
    grade: str | None
    score: int | None
    evidence_hash: str
    result: dict[str, Any]
    run_id: str | None = None
    """The scan_site run the scan belongs to, when it was one of a site's."""


class RunRecords(Protocol):
    """Runs as records: each run's arguments, status, progress, result and log, across processes
    (a run is created queued, claimed by one process, finished once)."""

    async def create(
        self, run_id: str, tool: str, arguments: dict[str, Any], label: str | None, session: str
    ) -> Run: ...

    async def get(self, run_id: str) -> Run | None: ...

    async def list_runs(
        self,
        *,
        statuses: Sequence[str],
        tools: Sequence[str],
        offset: int,
        limit: int,
        session: str | None = None,
    ) -> tuple[list[Run], int]:
        """A page of the runs, newest first (only ``session``'s, when given), and how many."""
        ...

    async def claim(self, run_id: str) -> Run | None:
        """Take a queued run for this process (running); None when another took it or it is no
        longer queued."""
        ...

    async def requeue(
        self, run_id: str, *, session: str, retry_failed: bool
    ) -> tuple[Run | None, int]:
        """Resume a run, as one step: queued again, owned by this process, spending ``session``'s
        budget, its result, error and cancel cleared, and (``retry_failed``) its failed visits
        dropped so they are read again; with how many were dropped. None when the run is not (or no
        longer) resumable: working (another resume came first), or succeeded with nothing to
        retry."""
        ...

    async def progress(
        self, run_id: str, done: int, total: int | None, current: str | None
    ) -> None: ...

    async def finish(
        self,
        run_id: str,
        status: str,
        *,
        result: str | None = None,
        source: str | None = None,
        error: tuple[str, str] | None = None,
    ) -> Run | None:
        """End an active run; an ended one is left as it is (a cancel that came after its end,
        say)."""
        ...

    async def result(self, run_id: str) -> tuple[str, str | None] | None:
        """The run's final envelope (as JSON) and the source of its third-party content."""
        ...

    async def ask_cancel(self, run_id: str, mode: str) -> Run | None: ...

    async def log(self, run_id: str, level: str, message: str) -> None: ...

    async def log_lines(
        self, run_id: str, *, levels: Sequence[str], tail_chars: int
    ) -> tuple[list[LogLine], int]:
        """The last lines at ``levels`` that fit ``tail_chars``, oldest first, and how many lines
        were left out; a latest line longer than ``tail_chars`` alone comes cut to its end."""
        ...

    async def run_logs(
        self, run_ids: Sequence[str], *, levels: Sequence[str], offset: int, limit: int
    ) -> tuple[list[tuple[str, LogLine]], int]:
        """Log lines of the runs, newest first (with each line's run), at ``levels`` (every level
        when empty); and how many."""
        ...

    async def interrupt_orphans(self) -> int:
        """Mark ``interrupted`` every active run whose owning process has died; how many."""
        ...

    async def interrupt_own(self, keep: Sequence[str] = ()) -> int:
        """This process's active runs, but those in ``keep``, are ``interrupted`` (resumable): it
        stops, or lost track of them (a write of their end that failed)."""
        ...

    async def prune(self, older_than: float) -> int:
        """Delete the finished runs that finished before ``older_than`` (epoch seconds), and the
        evidence of the scans made before it (their index entries stay); how many runs."""
        ...

    async def counts(self) -> dict[str, int]:
        """How many runs the store holds, by status."""
        ...


class CrawlJournal(Protocol):
    """A crawl run's journal, by seed (``part``): the URLs it queued (its frontier) and its visits,
    so that a resumed or a later run goes on from where it stood."""

    async def checkpoint(self, run_id: str, part: int) -> Checkpoint: ...

    async def seed(self, run_id: str, part: int, url: str) -> None:
        """Queue a crawl's start URL (seq 0), unless the crawl has begun already."""
        ...

    async def queued_after(self, run_id: str, part: int, seq: int, limit: int) -> list[Queued]:
        """The crawl's URLs queued after ``seq`` and not visited yet, in order; at most
        ``limit``."""
        ...

    async def known_urls(self, run_id: str, part: int, urls: Sequence[str]) -> set[str]:
        """Which of ``urls`` the crawl has queued (visited or not)."""
        ...

    async def read_at(self, run_id: str, part: int, canonical: str) -> str | None:
        """The URL at which the crawl read a page of canonical URL ``canonical``, if it read one."""
        ...

    async def record_visits(self, run_id: str, part: int, visits: Sequence[Visited]) -> None:
        """Keep a crawl's next visits, each with the links it queued and its log line, in one
        transaction."""
        ...

    async def items(
        self, run_id: str, *, offset: int, limit: int, part: int | None = None
    ) -> tuple[list[Item], int]:
        """A run's items in order (of one part only, when given), and how many there are."""
        ...

    async def adopt(self, run_id: str, earlier: str, *, failed: bool) -> int:
        """Give ``run_id`` (not begun) the checkpoint of ``earlier``, a run of the same job: its
        queued URLs and its visits (``failed`` ones too, or not, so they are read again); how many
        visits it took."""
        ...


class SharedFrontier(Protocol):
    """A crawl run's frontier worked by several processes at once (netglean.scraping.fleet): the
    URLs waiting to be read are claimed in host slices, each claim a lease (renewed while its worker
    works; a dead worker's claims expire and another worker takes them); a URL is queued once
    (whoever found it) and its page recorded once (whoever read it), and the crawl's max_pages is
    counted here, so it holds for the fleet. SQLite gives the same meaning within its single
    writer; PostgreSQL claims with ``FOR UPDATE SKIP LOCKED``."""

    async def share(self, run_id: str, part: int, url: str) -> None:
        """Queue a shared crawl's start URL (seq 0, waiting), unless the crawl has begun
        already."""
        ...

    async def claim_pages(
        self, run_id: str, part: int, worker: str, most: int, lease: float
    ) -> list[Queued]:
        """Up to ``most`` waiting URLs of one host, in order, for ``worker`` for ``lease`` seconds:
        none claimed by another worker whose lease holds; a host no worker holds a claim on first,
        so workers (and one worker's claims) spread over hosts. Empty: none is free now
        (``waiting`` says whether any is left)."""
        ...

    async def renew_claims(self, run_id: str, part: int, worker: str, lease: float) -> int:
        """``worker``'s claims held ``lease`` seconds from now; how many it holds."""
        ...

    async def release_claims(self, run_id: str, part: int, worker: str) -> int:
        """``worker``'s claims given up (it stops before reading them); how many."""
        ...

    async def record_claimed(
        self, run_id: str, part: int, visits: Sequence[Found], *, max_pages: int
    ) -> list[Kept]:
        """Keep a shared crawl's visits, in one transaction: each page recorded once (a page
        another worker recorded first is left as it was, and its links with it), no longer waiting;
        the URLs it found that the crawl has not queued, queued while fewer than ``max_pages`` are
        (their number counted here, for every worker)."""
        ...

    async def waiting(self, run_id: str, part: int) -> int:
        """URLs a shared crawl has queued and not recorded yet (claimed or not)."""
        ...


class HostTurns(Protocol):
    """Politeness for a fleet of processes sharing the store: each host's requests spaced and
    capped for all of them (netglean.scraping.fleet.FleetLimiter over this)."""

    async def take_turn(
        self, host: str, holder: str, *, interval: float, per_host: int, lease: float
    ) -> float | None:
        """A request to ``host`` (``holder`` names it) in flight from now, for ``lease`` seconds
        at most unless ended: the seconds to wait before it starts (``interval`` after the host's
        request before); None, and nothing taken, when ``per_host`` requests are in flight to it
        already."""
        ...

    async def renew_turn(self, host: str, holder: str, lease: float) -> None:
        """The request ``holder`` is still in flight: its place is held ``lease`` seconds more."""
        ...

    async def end_turn(self, host: str, holder: str) -> None:
        """The request ``holder`` is done: its place is free."""
        ...


class ProjectRecords(Protocol):
    """Saved projects, their runs and the rows of their datasets."""

    async def save_project(self, project: Project) -> Project:
        """Create the project, or replace the one of its id (its name stays unique: InvalidArguments
        if another project has it); the project as kept."""
        ...

    async def project(self, project_id: str) -> Project | None: ...

    async def projects_named(self, name: str) -> list[Project]: ...

    async def projects_named_any_case(self, name: str, *, limit: int) -> list[Project]:
        """The first ``limit`` projects named ``name`` but for ASCII case, last updated first."""
        ...

    async def list_projects(
        self, *, where: Condition | None, order: Sequence[Sort], offset: int, limit: int
    ) -> tuple[list[Project], int]:
        """Projects matching ``where`` (a filter over their columns: id, name, kind, schedule,
        created, updated; None: every project), in ``order`` (then by id); one page of them and how
        many match."""
        ...

    async def delete_project(self, project_id: str) -> bool:
        """Delete the project and its rows; whether there was one."""
        ...

    async def write_rows(
        self,
        project_id: str,
        run_id: str,
        rows: Mapping[str, Sequence[tuple[str, dict[str, Any]]]],
        *,
        visits: Callable[[dict[str, Written]], Sequence[Visited]] = lambda _: (),
        part: int = 0,
    ) -> dict[str, Written]:
        """Keep ``rows`` (key, data) by dataset, and the run's visits that read them (``visits``
        makes them from what was written), in one transaction, so a run resumed after a crash
        neither loses nor counts twice what a page gave: a new key is added, a known one updated
        when its data changed and left alone when not."""
        ...

    async def link_run(self, project_id: str, run_id: str) -> None:
        """Note ``run_id`` as a run of the project."""
        ...

    async def project_runs(
        self, project_id: str, *, statuses: Sequence[str], offset: int, limit: int
    ) -> tuple[list[Run], int]:
        """The project's runs at ``statuses`` (every status when empty), newest first; and how
        many."""
        ...

    async def rows(
        self,
        project_id: str,
        dataset: str,
        *,
        where: Condition | None,
        order: Sequence[Sort],
        offset: int,
        limit: int,
    ) -> tuple[list[Row], int]:
        """One page of a dataset's rows matching ``where`` (a filter over the columns key, run_id,
        created and updated, and the row's JSON properties), in ``order`` (then by key); and how
        many match."""
        ...

    async def datasets(self, project_id: str) -> dict[str, int]:
        """The project's datasets that hold rows, with how many each."""
        ...


class ServedFeeds(Protocol):
    """Feed projects' feeds as netglean serve serves them: the last good one, the last failure."""

    async def feed_projects(self, limit: int) -> tuple[list[Project], int]:
        """The first ``limit`` feed projects by name (the feeds netglean serve serves), and how many
        there are."""
        ...

    async def keep_feed(
        self, project_id: str, run_id: str, rss: str, json_feed: str, etag: str
    ) -> None:
        """The project's new good feed, replacing the last (and the failure noted since)."""
        ...

    async def feed_failed(self, project_id: str, message: str) -> None:
        """A refresh failed: the last good feed stays served, with why this one failed."""
        ...

    async def project_feed(self, project_id: str) -> ProjectFeed | None: ...


class ScanIndex(Protocol):
    """The local index of scans (scan_url, scan_site), with each scan's evidence."""

    async def record_scan(self, scan: ScanRecord, evidence: bytes) -> None:
        """Keep a scan in the local index, with its evidence (canonical JSON)."""
        ...

    async def scans(
        self,
        *,
        domain: str | None = None,
        run_id: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> tuple[list[ScanRecord], int]:
        """A domain's scans, or a run's, latest first, and how many there are."""
        ...

    async def scan_evidence(self, scan_id: str) -> bytes | None:
        """A scan's evidence as recorded (canonical JSON), or None for no such scan (or one pruned
        past the retention, whose index entry is kept without it)."""
        ...


class RunStore(
    RunRecords,
    CrawlJournal,
    SharedFrontier,
    HostTurns,
    ProjectRecords,
    ServedFeeds,
    ScanIndex,
    Protocol,
):
    """The whole store: every concern's Protocol (one backend class implements them all; a caller
    that needs one concern types against its Protocol). Every method may raise StoreFailure (a
    write the disk would not take) or Unavailable (the database stayed locked by another process
    past the wait)."""

    @property
    def location(self) -> str:
        """Where the store's file is (a path), for the operator's messages (engine_info names its
        folder)."""
        ...

    @property
    def kind(self) -> str: ...

    def close(self) -> None: ...
