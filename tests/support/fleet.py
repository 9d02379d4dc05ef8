"""A crawl shared by worker processes, as the fleet tests and bench/fleet.py run it.

``FleetSite``: a site on several loopback hosts (127.0.0.2, .3, ...; one port), served by a bare
asyncio server in a thread of the calling process (TCP_NODELAY, headers and body in one write: it
adds no latency of its own). Page n links pages n*WIDTH+1 to n*WIDTH+WIDTH (up to ``pages``), each
on host m % hosts: a crawl from page 0 spreads over every host. Each request is recorded (host,
path, when it came, when it was answered); ``hold`` seconds pass between the two, so requests in
flight together are seen together.

``python -m tests.support.fleet STORE RUN SEED MAX_PAGES INTERVAL PER_HOST WIDTH WORKER LEASE``:
one worker process joining the run's crawl (netglean.scraping.crawl_run.join_as_run), WIDTH pages
read at once, each visit kept as the crawl tool keeps it, with the fleet's politeness (FleetLimiter
over the store; its claims and its places at a host held LEASE seconds); a folder for STORE runs
the crawl embedded instead (crawl_as_run over SQLite, in this process alone). With
NETGLEAN_FLEET_WAIT set, it waits for a line on stdin before it begins;
it prints ``joined`` once it has the store, then one JSON line: the visits it recorded and the
crawl as it left it."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

WIDTH = 10
_PAGE = re.compile(rb"GET /p/(\d+) ")


@dataclasses.dataclass(frozen=True, slots=True)
class Request:
    host: str
    path: str
    came: float
    answered: float


class FleetSite:
    def __init__(self, pages: int, hosts: int, hold: float = 0.0) -> None:
        self.pages, self.hosts, self.hold = pages, [f"127.0.0.{n + 2}" for n in range(hosts)], hold
        self.requests: list[Request] = []
        self.port = 0

    def url(self, n: int) -> str:
        return f"http://{self.hosts[n % len(self.hosts)]}:{self.port}/p/{n}"

    def _page(self, n: int) -> bytes:
        first = n * WIDTH + 1
        links = "".join(
            f'<a href="{self.url(m)}">Page {m}</a> '
            for m in range(first, min(first + WIDTH, self.pages))
        )
        text = f"Page {n} of the fleet's site, where the pilots went out at the turn. " * 5
        return (
            f"<!doctype html><html><head><title>Page {n}</title></head><body><nav>{links}</nav>"
            f"<main><article><h1>Page {n}</h1><p>{text}</p></article></main></body></html>"
        ).encode()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        host = writer.get_extra_info("sockname")[0]
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                came = time.time()
                found = _PAGE.match(head)
                if found is None or int(found[1]) >= self.pages:
                    body, status = b"not found", b"404 Not Found"
                else:
                    body, status = self._page(int(found[1])), b"200 OK"
                if self.hold:
                    await asyncio.sleep(self.hold)
                path = head.split(b" ", 2)[1].decode()
                self.requests.append(Request(host, path, came, time.time()))
                writer.write(
                    b"HTTP/1.1 " + status + b"\r\ncontent-type: text/html; charset=utf-8\r\n"
                    b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    @contextmanager
    def serving(self) -> Iterator[FleetSite]:
        loop = asyncio.new_event_loop()
        servers = []
        for host in self.hosts:
            server = loop.run_until_complete(
                asyncio.start_server(self._answer, host, self.port or 0)
            )
            self.port = int(server.sockets[0].getsockname()[1])
            servers.append(server)
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(5)

    def pages_asked(self) -> list[str]:
        return [r.path for r in self.requests if r.path.startswith("/p/")]


@dataclasses.dataclass(frozen=True, slots=True)
class Arguments:
    """A crawl's arguments (SiteCrawlArguments), as a worker is given them."""

    url: str
    max_pages: int
    max_depth: int = 100
    stay_on_domain: bool = False
    include_patterns: tuple[str, ...] | None = None
    exclude_patterns: tuple[str, ...] | None = None
    format: str = "markdown"
    main_content: bool = True
    max_chars: int = 2_000
    strategy: str = "http"
    links: str = "inline"
    respect_robots_txt: bool | None = False


@dataclasses.dataclass
class _Run:
    id: str
    store: Any
    current: str | None = None


async def work(argv: list[str]) -> dict[str, Any]:
    """One worker, as the module's docstring says; a folder for STORE: the embedded default (the
    run's crawl in this one process, crawl_as_run over SQLite, its own HostLimiter)."""
    import anyio

    from netglean.core.settings import Settings
    from netglean.handlers.sites import run_journal
    from netglean.net.fetcher import Fetcher
    from netglean.net.policy import FetchPolicy
    from netglean.scraping.crawl_run import crawl_as_run, join_as_run
    from netglean.scraping.fleet import FleetLimiter
    from netglean.store.open import open_store
    from netglean.workers.pool import Readers

    store_url, run_id, seed, max_pages, interval, per_host, width, worker, lease = argv
    embedded = not store_url.startswith("postgresql")
    store = open_store(store_url, "") if embedded else open_store("", store_url)
    policy = dataclasses.replace(
        FetchPolicy.from_settings(Settings.load(environ={})),
        allow_private_hosts=True,
        obey_robots=False,
        host_interval=float(interval),
        host_concurrency=int(per_host),
        global_concurrency=int(width),
        session_budget=10**9,
    )
    limiter = (
        None
        if embedded
        else FleetLimiter(lambda: store, int(per_host), int(width), lease=float(lease))
    )
    fetcher = Fetcher(policy, limiter=limiter)
    print("joined", flush=True)
    if os.environ.get("NETGLEAN_FLEET_WAIT"):
        sys.stdin.readline()  # the benchmark starts every worker's clock at once

    async def report(visited: int, most: int, url: str) -> None:
        return None

    arguments: Any = Arguments(seed, int(max_pages))
    run = _Run(run_id, store)
    try:
        if embedded:
            crawl = await crawl_as_run(
                fetcher, Readers(0), arguments, run, run_journal, report=report, stop=anyio.Event()
            )
            recorded = crawl.visited
        else:
            joined = await join_as_run(
                fetcher,
                Readers(0),
                arguments,
                run,
                run_journal,
                report=report,
                stop=anyio.Event(),
                worker=worker,
                lease=float(lease),
            )
            crawl, recorded = joined.crawl, joined.recorded
    finally:
        await fetcher.aclose()
        store.close()
    return {"recorded": recorded, "visited": crawl.visited, "unvisited": crawl.unvisited}


if __name__ == "__main__":
    import anyio

    print(json.dumps(anyio.run(work, sys.argv[1:])), flush=True)
