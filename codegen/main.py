"""`netglean gen`: validate the catalog and emit the generated package, or check that it is current.

By default it reads this checkout's catalog and handlers and writes netglean/generated; a tool pack
kept elsewhere names its folders and the import names of its packages (served with ``--registry
PACKAGE.registry``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from codegen.catalog import load_catalog
from codegen.emit import Packages, render, stale, write
from codegen.errors import CatalogError

PROJECT = Path(__file__).resolve().parent.parent


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="netglean gen",
        description="Validate catalog/ and emit the generated package (netglean/generated).",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming stale files"
    )
    parser.add_argument("--catalog", type=Path, default=PROJECT / "catalog", help="catalog folder")
    parser.add_argument(
        "--handlers", type=Path, default=PROJECT / "netglean" / "handlers", help="handlers folder"
    )
    parser.add_argument(
        "--out", type=Path, default=PROJECT / "netglean" / "generated", help="output folder"
    )
    parser.add_argument(
        "--package",
        default=Packages().generated,
        help="import name of the output folder (default %(default)s)",
    )
    parser.add_argument(
        "--handlers-package",
        default=Packages().handlers,
        help="import name of the handlers folder (default %(default)s)",
    )
    return parser


def main(argv: list[str]) -> int:
    return run(build_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    try:
        catalog = load_catalog(args.catalog, args.handlers)
    except CatalogError as exc:
        print(
            f"catalog invalid ({len(exc.problems)} problem(s)); nothing was written:",
            file=sys.stderr,
        )
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    files = render(catalog, Packages(args.package, args.handlers_package))
    if args.check:
        problems = stale(files, args.out)
        if problems:
            print(
                f"{args.out} is stale ({len(problems)} file(s)); run `netglean gen`:",
                file=sys.stderr,
            )
            for path in problems:
                print(f"  {path}", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date ({len(files)} files).", file=sys.stderr)
        return 0
    write(files, args.out)
    elapsed = time.perf_counter() - started
    print(
        f"generated {len(files)} files for {len(catalog.tools)} tool(s) into {args.out} in "
        f"{elapsed:.2f} s",
        file=sys.stderr,
    )
    return 0
