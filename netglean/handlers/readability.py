"""Agent readability: a page scanned and scored (scan_url), a site's pages as a run (scan_site), a
check explained (explain_check), a domain's past scans (get_index_entry). The scale itself is the
catalog's (catalog/readability/), generated into netglean.generated.readability."""

from __future__ import annotations

import statistics
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import anyio

from netglean.calls.context import Context
from netglean.core.envelope import DONE, Guidance, Outcome, say
from netglean.core.errors import (
    BadUrl,
    BudgetExhausted,
    CallTimeout,
    CheckNotFound,
    StoreFailure,
    ToolError,
    Unavailable,
)
from netglean.core.untrusted import PAYLOAD_NOTICE
from netglean.generated.models import (
    ExplainCheckInput,
    ExplainCheckOutput,
    GetIndexEntryInput,
    GetIndexEntryOutput,
    IndexedScan,
    RemoteIndexEntry,
    ScanSiteInput,
    ScanSiteOutput,
    ScanUrlInput,
    SiteFix,
    SitePage,
)
from netglean.generated.readability import ENTRIES, TABLE
from netglean.handlers.pages import item_error
from netglean.handlers.sites import run_of
from netglean.net.politeness import CountedBudget
from netglean.read.document import decode
from netglean.read.html_tree import page_json
from netglean.read.readability.evidence import canonical
from netglean.read.readability.report import report
from netglean.scraping.discovery import discover, read_sitemaps
from netglean.scraping.probe import vantage_fetcher
from netglean.scraping.scan import Scan, scan, site_fixes
from netglean.store.base import ScanRecord

if TYPE_CHECKING:
    from netglean.net.fetcher import Fetcher

PAGE_SECONDS = 120
"""The most one page of a site's scan may take (its fetches, and the score in a reader process that
is replaced when it runs past): a page built to be slow fails alone, as timeout."""
MAX_SITE_SCANS = 10_000
"""More than a run can have scanned (max_pages is 500, each page once): a resumed run reads all it
kept."""
REMOTE_MAX_BYTES = 262_144
"""The most of a remote index's answer read: one domain's entry."""
AFTER_UNSCORED = {
    "unreachable": "scan_url",
    "robots_disallows_scanner": DONE,
    "robots_unavailable": DONE,
}
"""What follows a page that could not be scored, by reason; else compare_agent_view shows what was
answered."""


def domain_of(given: str) -> str:
    """The host an index entry is kept under: lower case, IDNA, no port or final dot; a URL is read
    for its host."""
    try:
        host = urlsplit(given.strip()).hostname if "://" in given else given.strip().split("/")[0]
        if host and host.count(":") == 1 and not host.startswith("["):
            host = host.split(":")[0]  # a port, not an IPv6 address
        domain = (host or "").strip("[]").rstrip(".").encode("idna").decode("ascii").lower()
    except (UnicodeError, ValueError):
        domain = ""
    if not domain or any(not (c.isalnum() or c in "-._:") for c in domain):
        raise BadUrl(
            f"{len(given)} characters that are no host name (example.com)",
            detail={"argument": "domain"},
        )
    return domain


async def _record(
    ctx: Context, domain: str, url: str, scanned: Scan, run_id: str | None = None
) -> ScanRecord:
    result = scanned.result
    record = ScanRecord(
        id=uuid.uuid4().hex,
        domain=domain,
        url=url,
        scanned_at=time.time(),
        outcome=result["outcome"],
        reason=result["reason"],
        grade=result["grade"],
        score=result["score"],
        evidence_hash=scanned.evidence_hash,
        result=result,
        run_id=run_id,
    )
    await ctx.runs.store.record_scan(record, canonical(scanned.evidence))
    return record


def _scan_guidance(result: dict[str, Any]) -> tuple[str, Guidance]:
    """The next step and what to say of a result: its grade and its first fix, in the catalog's
    words (the scale is netglean's own text; nothing of the page is said outside the frame)."""
    if result["outcome"] == "opt_out":
        return DONE, say(
            "robots.txt closes this page to assistants (opt_out): it is not scored, as its owner "
            "asked."
        )
    if result["outcome"] == "unscored":
        outcome = TABLE["outcomes"]["unscored"][result["reason"]]
        told = say("Not scored (payload.result.reason says why).")
        next_step = AFTER_UNSCORED.get(result["reason"], "compare_agent_view")
        return next_step, Guidance(f"{told} {outcome['description']} {outcome['fix']}")
    graded = say("Scored {score} of 100,", score=result["score"])
    fixes = result["fixes"]
    if not fixes:
        return DONE, Guidance(f"{graded} grade {result['grade']}: every check passed.")
    first = fixes[0]
    more = say(
        "{count} fixes are ranked in payload.result.fixes; the first gains up to {points} points:",
        count=len(fixes),
        points=first["points"],
    )
    return "install_snippet", Guidance(
        f"{graded} grade {result['grade']}. {more} {first['title']} ({first['effort']}). "
        "explain_check says how to close a check; install_snippet writes the install for a "
        "framework."
    )


async def scan_url(args: ScanUrlInput, ctx: Context) -> Outcome:
    fetcher = vantage_fetcher(args.vantage, ctx.fetcher)
    domain = domain_of(args.url)  # before any request: a URL the index could not keep is no scan
    scanned = await scan(fetcher, ctx.readers, args.url, TABLE, well_known=args.well_known)
    record = await _record(ctx, domain, args.url, scanned)
    next_step, guidance = _scan_guidance(scanned.result)
    # a mapping, not a model: the result's nulls (no grade, no reason) are part of its shape
    payload = {
        "url": args.url,
        "scan_id": record.id,
        "requests": scanned.requests,
        "result": scanned.result,
        "report": report(scanned.result),
        "untrustedContentNotice": PAYLOAD_NOTICE,
    }
    return Outcome(payload, next_step=next_step, guidance=guidance, source=args.url)


async def _site_urls(args: ScanSiteInput, fetcher: Fetcher, ctx: Context) -> tuple[list[str], int]:
    """The pages to scan, within max_pages, and how many were found: the sitemap's, else what map
    finds."""
    home = urlsplit(args.url).hostname
    if args.sitemap is not None:
        listed = await read_sitemaps(fetcher, ctx.readers, [args.sitemap], args.max_pages * 4)
        found = list(dict.fromkeys(url for url in listed.urls if urlsplit(url).hostname == home))
    else:
        found_there = await discover(
            fetcher,
            ctx.readers,
            args.url,
            limit=args.max_pages * 4,
            include_sitemaps=True,
            search="",
            same_domain=True,
            strategy="http",
        )
        found = list(dict.fromkeys([args.url, *found_there.urls]))
    return found[: args.max_pages], len(found)


async def scan_site(args: ScanSiteInput, ctx: Context) -> Outcome:
    run = run_of(ctx)
    counted = CountedBudget(ctx.fetcher.budget)
    fetcher = ctx.fetcher.obeying_robots().spending(counted)
    urls, found = await _site_urls(args, fetcher, ctx)
    kept, _ = await run.store.scans(run_id=run.id, limit=MAX_SITE_SCANS)
    # a resumed run skips the pages it already scanned
    earlier = {record.url: record for record in kept}
    records: list[ScanRecord] = []
    errors: dict[str, ToolError] = {}
    for done, url in enumerate(urls):
        if run.stop.is_set():
            break
        await ctx.report(done, len(urls), f"scanned {done} of {len(urls)} pages")
        if url in earlier:
            records.append(earlier[url])
            continue
        run.current = url
        try:
            domain = domain_of(url)
            with anyio.fail_after(PAGE_SECONDS):
                scanned = await scan(fetcher, ctx.readers, url, TABLE, well_known=args.well_known)
        except TimeoutError:
            errors[url] = CallTimeout(f"scanning the page took longer than {PAGE_SECONDS} s")
            continue
        except (StoreFailure, Unavailable, BudgetExhausted):
            # the run's, not the page's: it fails, resumable (a budget is spent for every page
            # alike)
            raise
        except ToolError as error:
            errors[url] = error
            continue
        records.append(await _record(ctx, domain, url, scanned, run.id))
    return _site_report(
        args, urls, found=found, records=records, errors=errors, requests=counted.spent
    )


def _site_report(
    args: ScanSiteInput,
    urls: list[str],
    *,
    found: int,
    records: list[ScanRecord],
    errors: dict[str, ToolError],
    requests: int,
) -> Outcome:
    by_url = {record.url: record for record in records}
    pages = []
    for url in urls:
        if url in errors:
            error = errors[url]
            pages.append(
                SitePage(url=url, outcome="unscored", reason=error.code, error=item_error(error))
            )
        elif url in by_url:
            record = by_url[url]
            pages.append(
                SitePage(
                    url=url,
                    scan_id=record.id,
                    outcome=record.outcome,  # type: ignore[arg-type]  # the scorer's outcomes are the schema's
                    reason=record.reason,
                    grade=record.grade,
                    score=record.score,
                    page_kind=record.result.get("page_kind"),
                )
            )
    scores = [record.score for record in records if record.score is not None]
    grades = Counter(record.grade or record.outcome for record in records)
    fixes = site_fixes([record.result for record in records])
    payload = ScanSiteOutput(
        url=args.url,
        found=found,
        scanned=len(records),
        requests=requests,
        # absent when no page was scored
        median_score=statistics.median_low(scores) if scores else None,
        grades=dict(sorted(grades.items())),
        pages=pages,
        fixes=[
            SiteFix(
                check=fix.check,
                dimension=fix.dimension,
                title=fix.title,
                effort=fix.effort,
                fix=fix.fix,
                pages=fix.pages,
                points=fix.points,
                mean_points=fix.mean_points,
            )
            for fix in fixes
        ],
    )
    if not records:
        told = say("No page of the site could be scanned.")
        return Outcome(payload, next_step="scan_url", guidance=told, source=args.url)
    told = say(
        "{scanned} pages scanned, {scored} scored (median {median} of 100); {fixes} fixes across "
        "the site are ranked in payload.fixes.",
        scanned=len(records),
        scored=len(scores),
        median=payload.median_score or 0,
        fixes=len(fixes),
    )
    return Outcome(
        payload, next_step="install_snippet" if fixes else DONE, guidance=told, source=args.url
    )


async def explain_check(args: ExplainCheckInput, ctx: Context) -> Outcome:
    entry = ENTRIES.get(args.check_id)
    if entry is None:
        raise CheckNotFound(
            f"the readability scale has no check or finding {args.check_id!r}",
            detail={"known": sorted(ENTRIES)},
            next_step="explain_check",
        )
    check = entry["kind"] == "check"
    dimension = (
        next(d for d in TABLE["dimensions"] if d["id"] == entry["dimension"]) if check else {}
    )
    payload = ExplainCheckOutput(
        id=entry["id"],
        kind=entry["kind"],
        title=entry["title"],
        scale=TABLE["name"],
        measures=entry["measures"],
        rule=entry["rule"],
        fix=entry["fix"],
        weight=entry.get("weight", 0),
        dimension=dimension.get("id"),
        dimension_title=dimension.get("title"),
        dimension_weight=dimension.get("weight"),
        basis=entry["basis"] if check else None,
        effort=entry["effort"] if check else None,
        reference=None if check else entry["reference"],
    )
    return Outcome(payload, next_step=DONE)


def _indexed(record: ScanRecord) -> IndexedScan:
    return IndexedScan(
        scan_id=record.id,
        url=record.url,
        scanned_at=datetime.fromtimestamp(record.scanned_at, UTC)
        .isoformat(timespec="seconds")
        .replace("+00:00", "Z"),
        outcome=record.outcome,  # type: ignore[arg-type]  # the scorer's outcomes are the schema's
        reason=record.reason,
        grade=record.grade,
        score=record.score,
        page_kind=record.result.get("page_kind"),
        evidence_hash=record.evidence_hash,
        run_id=record.run_id,
    )


async def _remote(ctx: Context, domain: str) -> RemoteIndexEntry:
    """The operator's remote index asked about ``domain``, and nothing else: a GET that carries only
    the domain."""
    url = f"{ctx.settings.index_url.rstrip('/')}/{quote(domain)}"
    try:
        # No redirect is followed: one would carry the domain to wherever the index pointed it.
        page = await ctx.fetcher.fetch(
            url,
            accept="application/json",
            max_bytes=REMOTE_MAX_BYTES,
            error_pages=True,
            max_redirects=0,
        )
    except ToolError as error:
        return RemoteIndexEntry(url=url, error=item_error(error))
    if page.status >= 400:
        return RemoteIndexEntry(url=url, status=page.status)
    try:
        entry = page_json(decode(page.body, page.charset))
    except ValueError:
        entry = None
    if not isinstance(entry, dict):
        return RemoteIndexEntry(
            url=url,
            status=page.status,
            error=item_error(ToolError("the remote index did not answer with a JSON object")),
        )
    return RemoteIndexEntry(url=url, status=page.status, entry=entry)


async def get_index_entry(args: GetIndexEntryInput, ctx: Context) -> Outcome:
    domain = domain_of(args.domain)
    records, total = await ctx.runs.store.scans(domain=domain, offset=args.offset, limit=args.limit)
    latest = records[0] if args.offset == 0 and records else None
    if latest is None and total:
        latest = (await ctx.runs.store.scans(domain=domain, limit=1))[0][0]
    payload = GetIndexEntryOutput(
        domain=domain,
        scans=total,
        latest=_indexed(latest) if latest is not None else None,
        history=[_indexed(record) for record in records],
        remote=await _remote(ctx, domain) if ctx.settings.index_url else None,
    )
    if not total:
        told = say("This domain was never scanned here: scan_url scans a page.")
        return Outcome(payload, next_step="scan_url", guidance=told, source=domain)
    return Outcome(
        payload,
        next_step=DONE,
        guidance=say("{total} scans of this domain; payload.latest is the latest.", total=total),
        source=domain,
    )
