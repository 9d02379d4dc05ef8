"""The next-step graph as data and as an SVG picture, laid out by Graphviz's dot (layered left to
right)."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

from codegen.catalog_types import Catalog
from codegen.errors import CatalogError, CatalogProblem
from netglean.core.envelope import DONE

DOT = "dot"
"""Graphviz's layered layout (apt-get install graphviz): the picture's positions and edge routes are
its."""
_ATTRIBUTES = (
    'graph [rankdir=LR, splines=true, nodesep=0.25, ranksep=0.9, fontname="sans-serif", '
    'bgcolor="transparent"];\nnode [shape=box, style="rounded,filled", fontname="sans-serif", '
    'fontsize=11, color="#334455", height=0.35];\nedge [color="#556677", arrowsize=0.6, '
    "penwidth=1.1];\n"
)
_COMMENT = re.compile(r"<!--.*?-->\s*", re.DOTALL)


def graph_data(catalog: Catalog) -> dict[str, Any]:
    return {
        "entry_points": sorted(t.name for t in catalog.tools if t.entry_point),
        "edges": {t.name: list(t.next_step) for t in catalog.tools},
        "terminal": DONE,
        "retry_rule": "A failed call's next_step is the tool itself: correct the arguments and "
        "call it again.",
    }


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def graph_dot(catalog: Catalog, link_prefix: str = "tools/") -> str:
    """The graph in Graphviz's language: a box per tool (entry points blue, linked to their pages),
    done last, an edge per next step but a tool's own (a failed call's retry, said in words on the
    page)."""
    lines = ["digraph next_steps {\n", _ATTRIBUTES]
    for tool in catalog.tools:
        fill = "#e6eefc" if tool.entry_point else "#f6f6f8"
        url = f"{link_prefix}{tool.name}.html"
        lines.append(
            f"{_quoted(tool.name)} [fillcolor={_quoted(fill)}, URL={_quoted(url)}, "
            f"tooltip={_quoted(tool.title)}];\n"
        )
    lines.append(f'{_quoted(DONE)} [shape=ellipse, fillcolor="#eef6ee"];\n')
    lines.append(f"{{rank=sink; {_quoted(DONE)}}}\n")
    for tool in catalog.tools:
        for target in tool.next_step:
            if target != tool.name:
                lines.append(f"{_quoted(tool.name)} -> {_quoted(target)};\n")
    lines.append("}\n")
    return "".join(lines)


def graph_svg(catalog: Catalog, link_prefix: str = "tools/") -> str:
    """The graph laid out by Graphviz's dot, as inline SVG (its version comments left out: the file
    is the same wherever it is generated with the same dot)."""
    if shutil.which(DOT) is None:
        raise CatalogError(
            [
                CatalogProblem(
                    "catalog",
                    1,
                    "the next-step graph is laid out by Graphviz: apt-get install graphviz",
                )
            ]
        )
    drawn = subprocess.run(
        [DOT, "-Tsvg"],
        input=graph_dot(catalog, link_prefix),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if drawn.returncode != 0:
        raise CatalogError(
            [
                CatalogProblem(
                    "catalog", 1, f"dot could not draw the next-step graph: {drawn.stderr.strip()}"
                )
            ]
        )
    svg = drawn.stdout[drawn.stdout.index("<svg") :]
    return _COMMENT.sub("", svg).replace(
        "<svg width", '<svg role="img" aria-label="next-step graph" width', 1
    )
