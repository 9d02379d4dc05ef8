"""Generator benchmark: the real catalog, and a synthetic catalog of many tools."""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from codegen.catalog import load_catalog
from codegen.emit import render, write

ROOT = Path(__file__).resolve().parent.parent
HANDLERS = ROOT / "netglean" / "handlers"

_TOOL = """\
name: synthetic_{n}
title: Synthetic tool {n}
description: A generated tool used to measure the generator at scale ({n}).
origin: local
handler: synthetic.synthetic_{n}
annotations: {{read_only: true, destructive: false, idempotent: true, open_world: false}}
execution: sync
input:
  type: object
  properties:
    text: {{type: string, maxLength: 1000, description: Some text.}}
    count: {{type: integer, minimum: 0, maximum: 100, default: 3}}
    mode: {{enum: [fast, careful]}}
    tags: {{type: array, items: {{type: string}}, maxItems: 10}}
  required: [text]
output:
  type: object
  properties:
    text: {{type: string}}
    references: {{type: array, items: {{$ref: "#/$defs/Reference"}}}}
  required: [text]
  additionalProperties: false
next_step: [{next}]
examples:
  - title: Minimal
    arguments: {{text: hello}}
    expect: {{ok: true, next_step: {next}}}
"""


def synthetic_project(tools: int, into: Path) -> tuple[Path, Path]:
    """The real catalog plus ``tools`` chained synthetic tools (each reachable from the first)."""
    shutil.copytree(ROOT / "catalog", into / "catalog")
    shutil.copytree(HANDLERS, into / "handlers", ignore=shutil.ignore_patterns("__pycache__"))
    folder = into / "catalog/tools/synthetic"
    folder.mkdir()
    for n in range(tools):
        text = _TOOL.format(n=n, next=f"synthetic_{n + 1}" if n + 1 < tools else "done")
        if n == 0:
            text = text.replace("execution: sync", "execution: sync\nentry_point: true")
        (folder / f"synthetic_{n}.yaml").write_text(text)
    handlers = "".join(
        f"async def synthetic_{n}(args, ctx):\n    return None\n\n\n" for n in range(tools)
    )
    (into / "handlers/synthetic.py").write_text(handlers)
    return into / "catalog", into / "handlers"


def time_generation(catalog_dir: Path, handlers_dir: Path, out: Path) -> float:
    started = time.perf_counter()
    write(render(load_catalog(catalog_dir, handlers_dir)), out)
    return time.perf_counter() - started


def run(repeats: int = 3, synthetic_tools: int = 500) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        real = [
            time_generation(ROOT / "catalog", HANDLERS, root / f"real-{i}") for i in range(repeats)
        ]
        catalog_dir, handlers_dir = synthetic_project(synthetic_tools, root / "synthetic")
        big = [
            time_generation(catalog_dir, handlers_dir, root / f"big-{i}") for i in range(repeats)
        ]
    return {
        "real_catalog_s": statistics.median(real),
        "synthetic_tools": synthetic_tools,
        "synthetic_catalog_s": statistics.median(big),
        "repeats": repeats,
    }
