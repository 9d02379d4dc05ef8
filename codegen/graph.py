"""The next-step graph as data and as an SVG picture (layered left to right, no dependencies)."""

from __future__ import annotations

from html import escape
from typing import Any

from codegen.catalog_types import Catalog
from netglean.core.envelope import DONE

_W, _H, _GAP_X, _GAP_Y, _PAD = 190, 40, 90, 26, 20


def graph_data(catalog: Catalog) -> dict[str, Any]:
    return {
        "entry_points": sorted(t.name for t in catalog.tools if t.entry_point),
        "edges": {t.name: list(t.next_step) for t in catalog.tools},
        "terminal": DONE,
        "retry_rule": "A failed call's next_step is the tool itself: correct the arguments and call it again.",
    }


def _layers(catalog: Catalog) -> list[list[str]]:
    depth: dict[str, int] = {t.name: 0 for t in catalog.tools if t.entry_point}
    frontier = sorted(depth)
    edges = {t.name: [s for s in t.next_step if s != DONE] for t in catalog.tools}
    while frontier:
        following: list[str] = []
        for name in frontier:
            for target in edges[name]:
                if target not in depth:
                    depth[target] = depth[name] + 1
                    following.append(target)
        frontier = sorted(following)
    deepest = max(depth.values(), default=-1)
    layers: list[list[str]] = [[] for _ in range(deepest + 1)]
    for name, level in sorted(depth.items()):
        layers[level].append(name)
    return [*layers, [DONE]]


def graph_svg(catalog: Catalog, link_prefix: str = "tools/") -> str:
    """Tools as boxes (linked to their pages), edges as arrows, ``done`` as the last column."""
    layers = _layers(catalog)
    position: dict[str, tuple[int, int]] = {}
    tallest = max(len(layer) for layer in layers)
    for column, layer in enumerate(layers):
        offset = (tallest - len(layer)) * (_H + _GAP_Y) // 2
        for row, name in enumerate(layer):
            position[name] = (_PAD + column * (_W + _GAP_X), _PAD + offset + row * (_H + _GAP_Y))
    width = _PAD * 2 + len(layers) * _W + (len(layers) - 1) * _GAP_X
    height = _PAD * 2 + tallest * _H + (tallest - 1) * _GAP_Y
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'role="img" aria-label="next-step graph" font-family="system-ui, sans-serif" font-size="13">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#556"/></marker></defs>',
    ]
    for tool in catalog.tools:
        x1, y1 = position[tool.name]
        for target in tool.next_step:
            if target == tool.name:
                continue
            x2, y2 = position[target]
            sx, sy, ex, ey = x1 + _W, y1 + _H // 2, x2, y2 + _H // 2
            if ex <= sx:
                sx, ex = x1 + _W // 2, x2 + _W // 2
                sy, ey = y1 + _H, y2 + _H
                bend = max(sy, ey) + 40
                path = f"M{sx},{sy} C{sx},{bend} {ex},{bend} {ex},{ey}"
            else:
                mid = (sx + ex) // 2
                path = f"M{sx},{sy} C{mid},{sy} {mid},{ey} {ex},{ey}"
            out.append(f'<path d="{path}" fill="none" stroke="#556" stroke-width="1.4" marker-end="url(#arrow)"/>')
    for name, (x, y) in sorted(position.items()):
        is_done = name == DONE
        fill = "#eef6ee" if is_done else ("#e6eefc" if catalog.tool(name).entry_point else "#f6f6f8")
        box = (
            f'<rect x="{x}" y="{y}" width="{_W}" height="{_H}" rx="8" fill="{fill}" stroke="#334"/>'
            f'<text x="{x + _W // 2}" y="{y + _H // 2 + 5}" text-anchor="middle">{escape(name)}</text>'
        )
        out.append(box if is_done else f'<a href="{link_prefix}{escape(name)}.html">{box}</a>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
