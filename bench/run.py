"""Run every benchmark: `uv run python -m bench.run` (or `just bench`). Prints a table, writes
JSON."""

from __future__ import annotations

import argparse
import json
import platform
from pathlib import Path
from typing import Any

from bench import (
    browser,
    crawl,
    devset,
    extraction,
    feeds,
    fetch,
    frontier,
    generator,
    http,
    projects,
    readability,
    runs,
    startup,
    stdio,
)

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="fewer repetitions (a smoke run, not for figures)"
    )
    args = parser.parse_args()
    scale = (3, 1, 200) if args.quick else (15, 5, 1000)
    figures = {
        "machine": {"python": platform.python_version(), "cpus": __import__("os").cpu_count()},
        "stdio": stdio.run(*scale),
        "startup": startup.run(runs=1 if args.quick else 7),
        "generator": generator.run(repeats=1 if args.quick else 3),
        "http": http.run(seconds=1.0 if args.quick else 3.0, repeats=1 if args.quick else 3)
        | {"session_flood": http.session_flood(sessions=1000 if args.quick else 10_000)},
        "extraction": extraction.run(
            per_layout=2 if args.quick else 5, repeats=1 if args.quick else 3
        ),
        "devset": devset.run(every=5 if args.quick else 1),
        "browser": browser.run(pages=10 if args.quick else 30, repeats=1 if args.quick else 3),
        "feeds": feeds.run(repeats=5 if args.quick else 15),
        "fetch": fetch.run(
            pages=200 if args.quick else 1000,
            repeats=1 if args.quick else 3,
            reference_pages=50 if args.quick else 200,
            spawns=2 if args.quick else 5,
        ),
        "crawl": crawl.run(
            pages=50 if args.quick else 200,
            repeats=1 if args.quick else 3,
            long_pages=None if args.quick else 2000,
        ),
        "runs": runs.run(
            pages=300 if args.quick else 2000,
            repeats=1 if args.quick else 5,
            handle_pairs=20 if args.quick else 100,
            memory_sizes=(50, 300) if args.quick else (200, 2000),
            memory_repeats=1 if args.quick else 3,
            store_visits=500 if args.quick else 5000,
            families=("lean",) if args.quick else ("news", "lean"),
        ),
        "projects": projects.run(
            rows=10_000 if args.quick else 100_000,
            items=200 if args.quick else 1000,
            repeats=3 if args.quick else 15,
            e2e_repeats=1 if args.quick else 5,
        ),
        "readability": readability.run(repeats=3 if args.quick else 15)
        | {"cold_scans": readability.cold_scans()},
        "frontier": frontier.run(
            hostile_pages=3 if args.quick else 10,
            links=5_000 if args.quick else 60_000,
            flat_pages=2_000 if args.quick else 100_000,
        ),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(figures, indent=2) + "\n")

    s = figures["stdio"]
    print(
        f"stdio servers (medians; {s['startup_repeats']} spawns, {s['call_repeats']} x "
        f"{s['calls']} calls)"
    )
    print(
        f"{'server':<15}{'initialize':>12}{'ratio':>8}{'tools/list':>12}{'ratio':>8}{'calls':>10}{'ratio':>8}"
    )
    for name, row in s["servers"].items():
        print(
            f"{name:<15}{row['initialize_ms']:>10.0f}ms{row['initialize_ratio']:>8.2f}"
            f"{row['tools_list_ms']:>10.0f}ms{row['tools_list_ratio']:>8.2f}"
            f"{row['calls_s']:>9.2f}s{row['calls_ratio']:>8.2f}"
        )
    startup.show(figures["startup"])
    g = figures["generator"]
    print(
        f"\ngenerator: real catalog {g['real_catalog_s']:.2f} s; {g['synthetic_tools']}-tool "
        f"synthetic catalog {g['synthetic_catalog_s']:.2f} s (median of {g['repeats']})"
    )
    h = figures["http"]
    print(
        f"\nhttp get_version (medians of {h['repeats']} x {h['seconds']:g} s; ratio = throughput "
        "/ sdk-minimal /mcp)"
    )
    print(f"{'target':<24}{'clients':>8}{'req/s':>9}{'ratio':>7}{'p50':>9}{'p99':>9}{'errors':>8}")
    for target, rows in h["targets"].items():
        for clients, row in rows.items():
            print(
                f"{target:<24}{clients:>8}{row['throughput']:>9.0f}{row['throughput_ratio']:>7.2f}"
                f"{row['p50_ms']:>7.1f}ms{row['p99_ms']:>7.1f}ms{row['errors']:>8}"
            )
    flood = h["session_flood"]
    print(
        f"session flood: one address opened {flood['sessions']} MCP sessions in"
        f" {flood['seconds']:.1f} s ({flood['sessions_per_s']:.0f}/s); server resident memory"
        f" {flood['rss_before_mb']:.0f} -> {flood['rss_after_mb']:.0f} MB; a second address's"
        f" initialize then: {flood['second_address_status']}"
    )
    e = figures["extraction"]
    print(
        f"\nmain-content extraction on {e['pages']} pages (bag-of-words F1; median time per page)"
    )
    for name, row in e["extractors"].items():
        print(
            f"{name:<12} F1 {row['f1']:.3f}  precision {row['precision']:.3f}  recall "
            f"{row['recall']:.3f}  {row['ms_per_page']:.2f} ms/page"
        )
    devset.show(figures["devset"])
    browser.show(figures["browser"])
    d = figures["feeds"]
    print(
        f"\nfeed configs, network excluded (medians of {d['repeats']}; floor = one selectolax "
        "parse of the page)"
    )
    for name in ("apply_config", "capture_config"):
        row = d[name]
        print(
            f"  {name:<15} {row['page_bytes'] / 1024:>5.0f} KB {row['items']:>4} items "
            f"{row['ms_per_call']:>6.1f} ms/call {row['items_per_s']:>8.0f} items/s  "
            f"floor {row['parse_floor_ms']:.2f} ms -> {row['ratio_to_floor']:.1f}x"
        )
    f = figures["fetch"]
    print(
        f"\nbatch_scrape of {f['pages']} pages over stdio; mcp-server-fetch "
        f"({f['reference_pages']} news pages, one call each) {f['reference_pages_per_s']:.1f} "
        f"pages/s -> netglean {f['speedup']:.0f}x on news pages"
    )
    for family, row in f["families"].items():
        print(
            f"  {family:<6} netglean {row['netglean_pages_per_s']:>6.0f} pages/s; in-process "
            f"extraction {row['in_process_pages_per_s']:>6.0f} pages/s -> served/in-process time "
            f"{row['overhead_ratio']:.2f}x (a fresh server's first pass "
            f"{row['first_pass_pages_per_s']:.0f} pages/s, {row['first_pass_ratio']:.2f}x)"
        )
    p = f["first_page"]
    print(
        f"  a fresh stdio server's first scrape, {p['pause_s']:g} s after initialize: "
        f"{p['first_ms']:.0f} ms; its next: {p['next_ms']:.0f} ms (medians of {p['spawns']} "
        "servers)"
    )
    c = figures["crawl"]
    print(
        f"\ncrawl of {c['pages']} pages over stdio by width (pages read at once; medians of "
        f"{c['repeats']})"
    )
    for family, rows in c["families"].items():
        for width, row in rows.items():
            print(
                f"  {family:<6} width {width:>3}: crawl {row['crawl_pages_per_s']:>6.0f} pages/s "
                f"({row['speedup_over_width_1']:.2f}x width 1), batch_scrape of the same pages "
                f"{row['batch_scrape_pages_per_s']:>6.0f} pages/s -> crawl/batch "
                f"{row['crawl_to_batch_scrape']:.2f}"
            )
    r = c["scrapy"]
    print(
        f"crawl against Scrapy {r['version']} (a minimal breadth-first spider: same start URL, "
        f"width {r['width']}, max_depth {r['max_depth']}, max_chars {r['max_chars']}; Scrapy "
        "timed from engine start to close, with its whole process in brackets; medians of "
        f"{c['repeats']} pair(s), the order alternating)"
    )
    for family, row in r["families"].items():
        print(f"  {family:<6} {c['pages']:>5} pages: {_versus(row)}")
    if "long" in r:
        long = r["long"]
        for family, row in long["families"].items():
            if "ratio" in row:
                print(
                    f"  {family:<6} {long['pages']:>5} pages ({long['site_pages']}-page site, "
                    f"one pair): {_versus(row)}"
                )
            else:
                print(
                    f"  {family:<6} {long['pages']:>5} pages: not compared, netglean's crawl "
                    f"stopped at {row['netglean_stopped']} after {row['netglean_read']} pages in "
                    "one call"
                )
    runs.show(figures["runs"])
    projects.show(figures["projects"])
    readability.show(figures["readability"])
    frontier.show(figures["frontier"])
    print(f"\nwritten to {RESULTS / 'latest.json'}")


def _versus(row: dict[str, Any]) -> str:
    return (
        f"netglean {row['netglean_pages_per_s']:>5.0f} pages/s, Scrapy "
        f"{row['scrapy_pages_per_s']:>4.0f} pages/s ({row['scrapy_process_pages_per_s']:.0f}) -> "
        f"netglean/Scrapy {row['ratio']:.2f}x"
    )


if __name__ == "__main__":
    main()
