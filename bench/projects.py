"""Extract projects (issue 17): reading a large dataset back, and reading a listing's rows, each
against a peer.

1. data: ``get_project_data`` on a dataset of 100,000 rows (title, price, url, date, category;
   written 100 a write, as a run writes a page's rows), a filtered, sorted page (``price>10 &&
   category="books"``, ``-price``, 50 a page), a page deep in the matches (page 100) and the last
   one (short of 50), through the tool's whole call path (ToolRunner: schema validation, the
   handler, the store, the envelope), against the same answer (the page and how many match) from
   plain SQL with the sqlite3 module: the rows as typed columns with an index on (category, price),
   and the store's own JSON rows with an index on each property's ``json_extract``. The store's
   ``rows`` alone is timed too, so the call path's share shows. Each answer is checked against the
   peers' (the same keys, the same total).
2. extraction: one 1,000-item listing read by an extract definition (item selector, five typed
   properties, most with transformations) and by the html2rss config with the same selectors, each
   engine's reader job (decode, parse, select, transform: read.jobs.dataset_rows against
   feeds.jobs.feed_page), in process; and, end to end, ``run_project`` (its 1,000 rows written to
   the store as new) against ``apply_config`` (its RSS rendered) on the page served from 127.0.0.1,
   through one ToolRunner.

Medians of repeated runs; the two sides of a comparison take turns, the order swapped each repeat,
so the machine's noise hits them alike.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio

from bench.fetch import LIFTED
from bench.runs import _settings_of
from bench.site import WORDS

RESULTS = Path(__file__).resolve().parent / "results"
CATEGORIES = ("books", "music", "garden", "kitchen", "toys", "tools", "games", "sports")
PROPERTIES = ("title", "price", "url", "date", "category")
ROWS_A_WRITE = 100
"""Rows written at a time, as a run writes one page's rows."""
FILTER = 'price>10 && category="books"'
SORT = "-price"
PER_PAGE = 50
DEEP_PAGE = 100
ORIGIN = "https://shop.example"
PROJECT_ID = "b" * 32


def catalogue(rows: int, seed: int = 17) -> list[tuple[str, dict[str, Any]]]:
    """``rows`` products as an extract project keeps them (key, data): its URL the key."""
    rng = random.Random(seed)
    made = []
    for n in range(rows):
        url = f"{ORIGIN}/p/{n}"
        cents = rng.choice((0, 50, 95, 99, rng.randint(1, 98)))
        price: int | float = (
            rng.randint(1, 250) if cents == 0 else rng.randint(1, 250) + cents / 100
        )
        data = {
            "title": " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8))).capitalize(),
            "price": price,
            "url": url,
            "date": f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}T{n % 24:02d}:15:00+00:00",
            "category": rng.choice(CATEGORIES),
        }
        made.append((url, data))
    return made


def _definition(start_url: str) -> dict[str, Any]:
    """The extract definition of the listing ``listing`` builds: five properties, four with
    transformations."""
    return {
        "start_urls": [start_url],
        "strategy": "http",
        "datasets": [
            {
                "name": "products",
                "item_selector": "li.product",
                "key": "url",
                "properties": [
                    {
                        "key": "title",
                        "selector": "h2 a",
                        "transformations": [{"name": "trim"}, {"name": "collapse_whitespace"}],
                    },
                    {
                        "key": "price",
                        "type": "number",
                        "selector": ".price",
                        "transformations": [
                            {"name": "regex_replace", "pattern": "[^\\d,.]", "replacement": ""},
                            {"name": "parse_number"},
                        ],
                    },
                    {"key": "url", "type": "url", "selector": "h2 a"},
                    {
                        "key": "date",
                        "type": "date",
                        "selector": ".listed",
                        "transformations": [
                            {"name": "regex_replace", "pattern": "^Listed\\s+", "replacement": ""},
                            {"name": "parse_date"},
                        ],
                    },
                    {
                        "key": "category",
                        "selector": ".category",
                        "transformations": [{"name": "trim"}, {"name": "lowercase"}],
                    },
                ],
            }
        ],
    }


def _feed_config(url: str) -> dict[str, Any]:
    """The html2rss config that reads what ``_definition`` reads, by the same selectors (the price
    as the description: a feed item has no number). ``enhance`` off: the extract engine guesses no
    field either."""
    return {
        "channel": {"url": url, "title": "Shop", "time_zone": "UTC"},
        "selectors": {
            "items": {"selector": "li.product", "enhance": False},
            "title": {"selector": "h2 a"},
            "url": {"selector": "h2 a", "extractor": "href"},
            "description": {
                "selector": ".price",
                "post_process": [{"name": "gsub", "pattern": "[^\\d,.]", "replacement": ""}],
            },
            "published_at": {
                "selector": ".listed",
                "post_process": [
                    {"name": "gsub", "pattern": "^Listed\\s+", "replacement": ""},
                    {"name": "parse_time"},
                ],
            },
            "category": {"selector": ".category"},
            "categories": ["category"],
        },
    }


def listing(items: int, seed: int = 7) -> bytes:
    """A shop's listing page: a menu, ``items`` product cards (title link, price in euros, category,
    a listed date in words, a blurb, an image), a footer."""
    rng = random.Random(seed)

    def words(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

    def card(n: int) -> str:
        euros = f"{rng.randint(1, 2500):,}".replace(",", ".")  # as a German shop writes 1.234,50
        return (
            f'<li class="product" data-sku="s{n}"><img src="/img/{n}.jpg" '
            f'alt="{words(2, 4)}"><h2 class="name"><a href="/p/{n}">\n  '
            f'{words(3, 8).capitalize()}  \n</a></h2><span class="price">€ '
            f'{euros},{rng.randint(0, 99):02d}</span><span class="category"> '
            f'{rng.choice(CATEGORIES).title()} </span><span class="listed">Listed {1 + n % 28} '
            f"{months[n % 12]} 2026, {n % 24:02d}:15</span><p "
            f'class="blurb">{words(10, 25).capitalize()}.</p></li>'
        )

    menu = "".join(f'<li><a href="/c/{c}">{c.title()}</a></li>' for c in CATEGORIES)
    cards = "".join(card(n) for n in range(items))
    footer = "".join(f'<li><a href="/f/{i}">{words(1, 3)}</a></li>' for i in range(30))
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Shop</title></head>"
        "<body>"
        f"<header><nav><ul>{menu}</ul></nav></header><main><h1>All products</h1><ul "
        f"class='products'>{cards}</ul>"
        f"</main><footer><ul>{footer}</ul></footer></body></html>"
    ).encode()


def _runner(data_dir: str, *, lifted: bool = False) -> Any:
    from netglean.app import build_runner
    from netglean.calls.registry import load_registry
    from netglean.core.settings import Settings

    overrides = {**(_settings_of(LIFTED) if lifted else {}), "data_dir": data_dir}
    return build_runner(load_registry(), Settings.load(overrides, environ={}))


async def _timed(work: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = await work()
    return time.perf_counter() - started, result


async def _take_turns(
    sides: dict[str, Callable[[], Awaitable[Any]]], repeats: int
) -> dict[str, list[float]]:
    """Seconds of each side's ``repeats`` runs (after one untimed run each), the order rotated each
    repeat."""
    for work in sides.values():
        await work()
    times: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for k in range(repeats):
        for name in names[k % len(names) :] + names[: k % len(names)]:
            times[name].append((await _timed(sides[name]))[0])
    return times


# -- 1. data ---------------------------------------------------------------------------------------


def _columns_peer(path: Path, rows: list[tuple[str, dict[str, Any]]]) -> sqlite3.Connection:
    """The rows as a table of typed columns, indexed for the filter and the sort (category, price,
    key)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(
        "CREATE TABLE products (key TEXT PRIMARY KEY, title TEXT, price REAL, url TEXT, date "
        "TEXT, category TEXT)"
    )
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO products VALUES (?, ?, ?, ?, ?, ?)",
        [(key, *(data[p] for p in PROPERTIES)) for key, data in rows],
    )
    db.execute("COMMIT")
    db.execute("CREATE INDEX products_by_category_price ON products (category, price, key)")
    db.execute("ANALYZE")
    return db


def _json_index_peer(store_file: Path, path: Path) -> sqlite3.Connection:
    """A copy of the store's own database with an index on each property's json_extract (the path a
    literal in the index and the query, as SQLite matches an expression index only to the same
    expression), analysed."""
    source = sqlite3.connect(store_file)
    db = sqlite3.connect(path, isolation_level=None)
    source.backup(db)
    source.close()
    for prop in PROPERTIES:
        db.execute(
            f"CREATE INDEX rows_{prop} ON dataset_rows (project_id, dataset, json_extract(data, "
            f"'$.\"{prop}\"'))"
        )
    db.execute("ANALYZE")
    return db


def _peer_page(
    db: sqlite3.Connection, count_sql: str, page_sql: str, offset: int
) -> tuple[int, list[str]]:
    total = db.execute(count_sql).fetchone()[0]
    rows = db.execute(page_sql, (PER_PAGE, offset)).fetchall()
    return total, [row[0] for row in rows]


_COLUMNS_WHERE = "price > 10 AND category = 'books'"
_JSON_WHERE = (
    f"project_id = '{PROJECT_ID}' AND dataset = 'products' AND json_extract(data, '$.\"price\"') "
    "> 10 AND json_extract(data, '$.\"category\"') = 'books'"
)


async def _fill(runner: Any, rows: list[tuple[str, dict[str, Any]]]) -> None:
    from netglean.store.base import Project

    store = runner.services.runs.store
    now = time.time()
    definition = _definition(f"{ORIGIN}/all")
    await store.save_project(
        Project(PROJECT_ID, "shop", "extract", definition, {}, None, "0" * 32, now, now)
    )
    for first in range(0, len(rows), ROWS_A_WRITE):
        run_id = f"{first // (len(rows) // 10 or 1):032x}"  # ten runs wrote the dataset
        await store.write_rows(PROJECT_ID, run_id, {"products": rows[first : first + ROWS_A_WRITE]})


def data(rows: int = 100_000, repeats: int = 15) -> dict[str, Any]:
    """Milliseconds for a filtered, sorted page of a ``rows``-row dataset: the tool, the store, the
    two peers."""
    from netglean.handlers.projects import ROW_FIELDS
    from netglean.store.filters import parse_filter, parse_sort
    from netglean.store.sqlite import FILE_NAME

    made = catalogue(rows)
    condition, ordering = parse_filter(FILTER, ROW_FIELDS), parse_sort(SORT, ROW_FIELDS, "-created")

    async def measure(folder: str) -> dict[str, Any]:
        runner = _runner(folder)
        try:
            started = time.perf_counter()
            await _fill(runner, made)
            filled = time.perf_counter() - started
            store = runner.services.runs.store
            columns = _columns_peer(Path(folder) / "peer-columns.sqlite3", made)
            indexed = _json_index_peer(Path(folder) / FILE_NAME, Path(folder) / "peer-json.sqlite3")
            figures: dict[str, Any] = {}
            matches = (
                await store.rows(
                    PROJECT_ID,
                    "products",
                    where=condition,
                    order=ordering,
                    offset=0,
                    limit=1,
                )
            )[1]
            last = -(-matches // PER_PAGE)
            # at a small scale, the deep page is the last
            pages = {"first": 1, "deep": min(DEEP_PAGE, last)}
            if last > DEEP_PAGE:
                pages["last"] = last  # short of a full page (2 rows here), its total needs no count
            for name, page in pages.items():
                offset = (page - 1) * PER_PAGE
                arguments = {
                    "project_id": PROJECT_ID,
                    "dataset": "products",
                    "filter": FILTER,
                    "sort": SORT,
                    "page": page,
                    "per_page": PER_PAGE,
                }

                async def tool(arguments: dict[str, Any] = arguments) -> tuple[int, list[str]]:
                    envelope, _ = await runner.call("get_project_data", arguments)
                    if not envelope.ok:
                        raise RuntimeError(
                            f"get_project_data failed: {json.dumps(envelope.payload)[:300]}"
                        )
                    return envelope.payload["total"], [
                        row["key"] for row in envelope.payload["rows"]
                    ]

                async def kept(offset: int = offset) -> tuple[int, list[str]]:
                    found, total = await store.rows(
                        PROJECT_ID,
                        "products",
                        where=condition,
                        order=ordering,
                        offset=offset,
                        limit=PER_PAGE,
                    )
                    return total, [row.key for row in found]

                async def by_columns(offset: int = offset) -> tuple[int, list[str]]:
                    return _peer_page(
                        columns,
                        f"SELECT count(*) FROM products WHERE {_COLUMNS_WHERE}",
                        "SELECT key, title, price, url, date, category FROM products WHERE "
                        f"{_COLUMNS_WHERE} ORDER BY price DESC, key LIMIT ? OFFSET ?",
                        offset,
                    )

                async def by_json_index(offset: int = offset) -> tuple[int, list[str]]:
                    return _peer_page(
                        indexed,
                        f"SELECT count(*) FROM dataset_rows WHERE {_JSON_WHERE}",
                        f"SELECT key, data FROM dataset_rows WHERE {_JSON_WHERE}"
                        " ORDER BY json_extract(data, '$.\"price\"') DESC, key LIMIT ? OFFSET ?",
                        offset,
                    )

                sides = {
                    "tool": tool,
                    "store": kept,
                    "sql_columns": by_columns,
                    "sql_json_index": by_json_index,
                }
                answers = {name: await work() for name, work in sides.items()}
                if (
                    len({json.dumps(answer) for answer in answers.values()}) != 1
                    or not answers["tool"][1]
                ):
                    totals = {name: answer[0] for name, answer in answers.items()}
                    raise RuntimeError(
                        f"page {page}: the answers differ (totals {totals}) or the page is empty"
                    )
                times = await _take_turns(sides, repeats)
                ms = {name: statistics.median(values) * 1000 for name, values in times.items()}
                figures[name] = {
                    "page": page,
                    "total": answers["tool"][0],
                    **{f"{name}_ms": value for name, value in ms.items()},
                    "tool_to_sql_columns": ms["tool"] / ms["sql_columns"],
                    "tool_to_sql_json_index": ms["tool"] / ms["sql_json_index"],
                    "store_share": ms["store"] / ms["tool"],
                }
            columns.close()
            indexed.close()
            plan = _plan(Path(folder) / FILE_NAME, condition, ordering)
        finally:
            await runner.services.aclose()
        return {"fill_s": filled, "matches": matches, **figures, "plan": plan}

    with tempfile.TemporaryDirectory(prefix="netglean-bench-projects-") as folder:
        figures = anyio.run(measure, folder)
    return {
        "rows": rows,
        "repeats": repeats,
        "filter": FILTER,
        "sort": SORT,
        "per_page": PER_PAGE,
        **figures,
    }


def _plan(store_file: Path, where: Any, order: Any) -> list[str]:
    """SQLite's plan for the store's page query, as its ``rows`` builds it (the EXPLAIN QUERY PLAN
    details)."""
    from netglean.store.sqlite import _ROWS
    from netglean.store.sqlite_filters import ROWS, condition_sql, order_sql

    condition, ordering = condition_sql(where, ROWS), order_sql(order, ROWS)
    scope = f"project_id = ? AND dataset = ? AND ({condition.sql})"
    db = sqlite3.connect(store_file)
    try:
        found = db.execute(
            f"EXPLAIN QUERY PLAN SELECT key, data FROM {_ROWS} WHERE {scope} ORDER BY "
            f"{ordering.sql}, key LIMIT 1",
            [PROJECT_ID, "products", *condition.params, *ordering.params],
        ).fetchall()
    finally:
        db.close()
    return [str(row[-1]) for row in found]


# -- 2. extraction ---------------------------------------------------------------------------------


def _reads(body: bytes, url: str) -> dict[str, Callable[[], int]]:
    """Each engine's reader job on the page, counting what it read: rows, items, and the parse alone
    (the floor)."""
    from netglean.feeds.config import load
    from netglean.feeds.jobs import feed_page
    from netglean.read.document import Document
    from netglean.read.html_tree import parse_html
    from netglean.read.jobs import dataset_rows

    document = Document(url, body)
    datasets = _definition(url)["datasets"]
    config = load(_feed_config(url)).config

    def rows() -> int:
        return len(dataset_rows(document=document, datasets=datasets))

    def items() -> int:
        return len(feed_page(document=document, config=config, want_title=False).items)

    def parse() -> int:
        parse_html(document.text())  # the tree goes with the call (see bench.feeds._parse)
        return 0

    return {"rows": rows, "items": items, "parse": parse}


def extraction(items: int = 1000, repeats: int = 15) -> dict[str, Any]:
    """Rows/s of the extract engine against items/s of the feed engine on one ``items``-item
    listing."""
    body = listing(items)
    reads = _reads(body, f"{ORIGIN}/all")
    counts = {name: work() for name, work in reads.items()}  # and each side's first run, untimed
    if counts["rows"] != items or counts["items"] != items:
        raise RuntimeError(
            f"the engines read {counts['rows']} rows and {counts['items']} items of {items}"
        )

    times: dict[str, list[float]] = {name: [] for name in reads}
    names = list(reads)
    for k in range(repeats):
        for name in names[k % len(names) :] + names[: k % len(names)]:
            started = time.perf_counter()
            reads[name]()
            times[name].append(time.perf_counter() - started)
    ms = {name: statistics.median(values) * 1000 for name, values in times.items()}
    return {
        "items": items,
        "repeats": repeats,
        "page_bytes": len(body),
        "rows_ms": ms["rows"],
        "items_ms": ms["items"],
        "parse_ms": ms["parse"],
        "rows_per_s": items / ms["rows"] * 1000,
        "items_per_s": items / ms["items"] * 1000,
        "rows_to_items": ms["items"] / ms["rows"],
    }


class _Page(BaseHTTPRequestHandler):
    """One page at every path, its headers and body written in one send on a TCP_NODELAY socket,
    kept alive: the server adds no wait of its own (Nagle's algorithm holding a body behind
    unacknowledged headers costs 40 ms)."""

    protocol_version = "HTTP/1.1"
    body = b""

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            body, kind, status = b"User-agent: *\nAllow: /\n", "text/plain", 200
        else:
            body, kind, status = self.body, "text/html; charset=utf-8", 200
        head = (
            f"HTTP/1.1 {status} OK\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.wfile.write(head.encode() + body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@contextmanager
def _serving(body: bytes) -> Iterator[str]:
    """``body`` served at every path of 127.0.0.1 (a free port) while the with block lasts; its
    URL."""
    handler = type("Listing", (_Page,), {"body": body})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/all"
    finally:
        server.shutdown()
        server.server_close()


def end_to_end(items: int = 1000, repeats: int = 5) -> dict[str, Any]:
    """``run_project`` (a fresh project each time, so its rows are new) against ``apply_config`` on
    the listing served from 127.0.0.1, through one ToolRunner with politeness lifted."""
    body = listing(items)

    async def measure(folder: str, url: str) -> dict[str, Any]:
        runner = _runner(folder, lifted=True)
        made = 0

        async def ok(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            envelope, _ = await runner.call(tool, arguments)
            if not envelope.ok:
                raise RuntimeError(f"{tool} failed: {json.dumps(envelope.payload)[:300]}")
            payload: dict[str, Any] = envelope.payload
            return payload

        async def project() -> float:
            """Seconds of one run of a project saved for it (the saving untimed)."""
            nonlocal made
            made += 1
            saved = await ok(
                "save_project", {"name": f"shop {made}", "definition": _definition(url)}
            )
            project_id = saved["project"]["project_id"]
            started = time.perf_counter()
            ran = await ok("run_project", {"project_id": project_id, "wait": True})
            seconds = time.perf_counter() - started
            new = ran["datasets"]["products"]["new"]
            if new != items:
                raise RuntimeError(f"run_project wrote {new} new rows of {items}")
            return seconds

        async def feed() -> int:
            answer = await ok("apply_config", {"config": _feed_config(url), "strategy": "http"})
            if answer["item_count"] != items:
                raise RuntimeError(f"apply_config rendered {answer['item_count']} items of {items}")
            return answer["item_count"]  # type: ignore[no-any-return]

        try:
            await project()
            await feed()  # each side's first call (its tool built, the readers started): untimed
            runs: list[float] = []
            feeds: list[float] = []
            for k in range(repeats):
                for side in ("run", "feed") if k % 2 == 0 else ("feed", "run"):
                    if side == "run":
                        runs.append(await project())
                    else:
                        feeds.append((await _timed(feed))[0])
        finally:
            await runner.services.aclose()
        run_ms, feed_ms = statistics.median(runs) * 1000, statistics.median(feeds) * 1000
        return {
            "run_project_ms": run_ms,
            "apply_config_ms": feed_ms,
            "run_project_rows_per_s": items / run_ms * 1000,
            "apply_config_items_per_s": items / feed_ms * 1000,
            "run_to_apply": feed_ms / run_ms,
        }

    with (
        tempfile.TemporaryDirectory(prefix="netglean-bench-projects-") as folder,
        _serving(body) as url,
    ):
        figures = anyio.run(measure, folder, url)
    return {"items": items, "repeats": repeats, **figures}


def run(
    *, rows: int = 100_000, items: int = 1000, repeats: int = 15, e2e_repeats: int = 5
) -> dict[str, Any]:
    return {
        "data": data(rows, repeats),
        "extraction": extraction(items, repeats),
        "end_to_end": end_to_end(items, e2e_repeats),
    }


def show(r: dict[str, Any]) -> None:
    """The figures of ``run`` as bench.run's table prints them."""
    d, x, e = r["data"], r["extraction"], r["end_to_end"]
    print(
        f"\nproject data: get_project_data on {d['rows']:,} rows, filter {d['filter']}, sort "
        f"{d['sort']}, {d['per_page']} a page (medians of {d['repeats']}; peers: plain SQL, the "
        f"same page and total; the dataset written in {d['fill_s']:.1f} s)"
    )
    for row in (d[name] for name in ("first", "deep", "last") if name in d):
        print(
            f"  page {row['page']:>3} of {row['total']:,} matches: tool {row['tool_ms']:>6.1f} "
            f"ms (store {row['store_ms']:.1f} ms); typed columns {row['sql_columns_ms']:.2f} ms "
            f"-> {row['tool_to_sql_columns']:.0f}x; json_extract indexes "
            f"{row['sql_json_index_ms']:.2f} ms -> {row['tool_to_sql_json_index']:.1f}x"
        )
    print(f"  the store's page query: {'; '.join(d['plan'])}")
    print(
        f"extraction of a {x['items']}-item listing ({x['page_bytes'] / 1024:.0f} KB; reader "
        f"jobs in process, medians of {x['repeats']}): rows {x['rows_ms']:.1f} ms "
        f"({x['rows_per_s']:.0f} rows/s); feed items {x['items_ms']:.1f} ms "
        f"({x['items_per_s']:.0f} items/s) -> rows/items {x['rows_to_items']:.2f}; one parse "
        f"{x['parse_ms']:.1f} ms"
    )
    print(
        f"  end to end from 127.0.0.1 (medians of {e['repeats']}): run_project "
        f"{e['run_project_ms']:.0f} ms ({e['run_project_rows_per_s']:.0f} rows/s, written new); "
        f"apply_config {e['apply_config_ms']:.0f} ms ({e['apply_config_items_per_s']:.0f} "
        f"items/s, RSS rendered) -> run/apply {e['run_to_apply']:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="10,000 rows, a 200-item listing, 3 repeats (a smoke run)",
    )
    args = parser.parse_args()
    figures = run(rows=10_000, items=200, repeats=3, e2e_repeats=1) if args.quick else run()
    show(figures)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "projects.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"\nwritten to {RESULTS / 'projects.json'}")


if __name__ == "__main__":
    main()
