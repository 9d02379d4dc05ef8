"""The blocks of an extraction (netglean.read.extract) written as markdown, text, html or json, in
time proportional to the blocks, and cut into the slices the page tools return: characters of the
text formats, whole blocks of json (every slice parses)."""

from __future__ import annotations

import bisect
import html as html_lib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from netglean.read.extract import Block, Extraction

_PART_WIDTH = 10**6
"""A part number no split reaches, as wide as any it does: a piece is sized with it, then
numbered."""


@dataclass(frozen=True, slots=True)
class Slice:
    """One slice of a page's formatted content: where it starts and where the next one does, in
    characters of the whole (for json, the whole JSON array of blocks; a json slice starts and ends
    between blocks)."""

    content: str
    start_index: int
    total_chars: int
    next_start: int | None = None


PLAIN_FORMATS = frozenset({"text", "html"})
"""Formats written from blocks whose inline content is plain text (``extract(..., plain=True)``)."""


def render(extraction: Extraction, fmt: str) -> str:
    """The blocks as markdown, text, html or json (a JSON array of typed blocks)."""
    if extraction.plain != (fmt in PLAIN_FORMATS):
        raise ValueError(
            f"{fmt} is written from {'plain' if fmt in PLAIN_FORMATS else 'markdown'} blocks"
        )
    if fmt == "json":
        return "[" + ",".join(json_pieces(extraction.blocks, math.inf)) + "]"
    if fmt == "html":
        return "\n".join(_block_html(b) for b in extraction.blocks)
    if fmt == "markdown":
        cited = extraction.references
        parts = [_block_markdown(block, cited) for block in extraction.blocks]
        if cited:
            parts += ["## References", "\n".join(_definition(url, n) for url, n in cited.items())]
    else:
        parts = [_block_text(block) for block in extraction.blocks]
    return "\n\n".join(part for part in parts if part)


def _definition(url: str, number: int) -> str:
    """A reference's line, as generate_citations writes it (a URL with blanks or brackets in angle
    brackets, so "[n]" stays a link)."""
    if not url or any(char in url for char in " ()<>\t\n"):
        url = f"<{url}>"
    return f"[{number}]: {url}"


def format_blocks(extraction: Extraction, fmt: str, start: int, limit: int | None) -> Slice:
    """``limit`` characters of the blocks in ``fmt`` from ``start`` (all of them when ``limit`` is
    None)."""
    if fmt == "json":
        return json_slice(
            json_pieces(extraction.blocks, math.inf if limit is None else limit - 2), start, limit
        )
    return text_slice(render(extraction, fmt), start, limit)


def text_slice(text: str, start: int, limit: int | None) -> Slice:
    piece = text[start:] if limit is None else text[start : start + limit]
    end = start + len(piece)
    return Slice(piece, start, len(text), end if end < len(text) else None)


def json_pieces(blocks: Iterable[Block], room: float) -> list[str]:
    """Each block as a JSON object of at most ``room`` characters: a longer block is split into
    parts of the same type, its rows, items or text shared out and each part numbered ("part": 1, 2,
    ...), so no slice cuts JSON."""
    pieces: list[str] = []
    for block in blocks:
        data = _block_json(block)
        whole = json.dumps(data, ensure_ascii=False)
        if len(whole) <= room:
            pieces.append(whole)
            continue
        parts: list[dict[str, Any]] = []
        _split({**data, "part": _PART_WIDTH}, room, parts)
        pieces += (
            json.dumps({**part, "part": number}, ensure_ascii=False)
            for number, part in enumerate(parts, 1)
        )
    return pieces


def _split(data: dict[str, Any], room: float, parts: list[dict[str, Any]]) -> None:
    """``data`` as parts that each fit ``room``, in order, by halving what it holds: its rows or
    items while there are two or more, else the text of its one item, its one row's cells, its one
    cell, or its text."""
    if len(json.dumps(data, ensure_ascii=False)) <= room:
        parts.append(data)
        return
    for key in ("rows", "items"):
        values = data.get(key)
        if values and len(values) > 1:
            half = len(values) // 2
            _split({**data, key: values[:half]}, room, parts)
            _split({**data, key: values[half:]}, room, parts)
            return
    rows, items, text = data.get("rows"), data.get("items"), data.get("text", "")
    if rows and len(rows[0]) > 1:
        half = len(rows[0]) // 2
        halves = [{**data, "rows": [rows[0][:half]]}, {**data, "rows": [rows[0][half:]]}]
    elif rows and len(rows[0][0]) > 1:
        cell = rows[0][0]
        halves = [
            {**data, "rows": [[cell[: len(cell) // 2]]]},
            {**data, "rows": [[cell[len(cell) // 2 :]]]},
        ]
    elif items and len(items[0]) > 1 and len(items[0]) >= len(text):
        item = items[0]
        halves = [
            {**data, "items": [item[: len(item) // 2]]},
            {**data, "items": [item[len(item) // 2 :]]},
        ]
    elif len(text) > 1:
        halves = [
            {**data, "text": text[: len(text) // 2]},
            {**data, "text": text[len(text) // 2 :]},
        ]
    # nothing left to share out: the smallest part there is (room is far wider than one character)
    else:
        parts.append(data)
        return
    for half_data in halves:
        _split(half_data, room, parts)


def json_slice(pieces: Sequence[str], start: int, limit: int | None) -> Slice:
    """The pieces as one JSON array, ``[p0,p1,...]``, sliced: from the piece ``start`` falls in, as
    many whole pieces as ``limit`` characters hold with their brackets (at least one). Piece k
    begins at the bracket or comma before it, so offsets are characters of the whole array and the
    first slice starts at 0."""
    offsets, at = [], 0
    for piece in pieces:
        offsets.append(at)
        at += len(piece) + 1
    total = at + 1 if pieces else 2  # the closing bracket; "[]" when there is nothing
    if start >= total or not pieces:
        return Slice("[]", start, total)
    first = max(bisect.bisect_right(offsets, start) - 1, 0)
    end, size = first, 2
    while end < len(pieces) and (
        end == first or limit is None or size + len(pieces[end]) + 1 <= limit
    ):
        size += len(pieces[end]) + (end > first)
        end += 1
    content = "[" + ",".join(pieces[first:end]) + "]"
    return Slice(content, offsets[first], total, offsets[end] if end < len(pieces) else None)


def _block_json(block: Block) -> dict[str, Any]:
    data: dict[str, Any] = {"type": block.kind}
    if block.text:
        data["text"] = block.text
    if block.kind == "heading":
        data["level"] = block.level
    if block.items:
        data["items"] = list(block.items)
    if block.rows:
        data["rows"] = [list(row) for row in block.rows]
    return data


def _block_markdown(block: Block, cited: dict[str, int]) -> str:
    if block.kind == "heading":
        return f"{'#' * block.level} {block.text}"
    if block.kind == "list":
        return "\n".join(
            f"{index}. {item}" if block.level else f"- {item}"
            for index, item in enumerate(block.items, 1)
        )
    if block.kind == "quote":  # its paragraphs apart, each line marked
        return "\n".join(f"> {line}" if line else ">" for line in block.text.split("\n"))
    if block.kind == "code":
        return f"```\n{block.text}\n```"
    if block.kind == "table":
        # The header row gives the columns; shorter rows below read as if padded (GFM), so they are
        # not: padding every row to the widest made a row of 4,000 cells over 4,000 short rows 48 MB
        # of markdown.
        header, *body = block.rows
        width = max(len(row) for row in block.rows)
        lines = [
            "| " + " | ".join((*header, *[""] * (width - len(header)))) + " |",
            "|" + " --- |" * width,
        ]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines)
    if block.kind == "image":
        url = block.items[0]
        return f"![{block.text}][{cited[url]}]" if url in cited else f"![{block.text}]({url})"
    if block.kind == "rule":
        return "---"
    return block.text


def _block_text(block: Block) -> str:
    if block.kind == "image":  # its alt text is no line of the text
        return ""
    if block.kind == "list":
        return "\n".join(f"- {item}" for item in block.items)
    if block.kind == "table":
        return "\n".join("\t".join(row) for row in block.rows)
    if block.kind == "code":
        return block.text
    if block.kind == "rule":
        return ""
    return block.text


def _block_html(block: Block) -> str:
    escape = html_lib.escape
    if block.kind == "heading":
        return f"<h{block.level}>{escape(block.text)}</h{block.level}>"
    if block.kind == "list":
        tag = "ol" if block.level else "ul"
        return f"<{tag}>" + "".join(f"<li>{escape(i)}</li>" for i in block.items) + f"</{tag}>"
    if block.kind == "quote":
        paragraphs = block.text.split("\n\n")
        if len(paragraphs) == 1:
            return f"<blockquote>{escape(block.text)}</blockquote>"
        return (
            "<blockquote>"
            + "".join(f"<p>{escape(part)}</p>" for part in paragraphs)
            + "</blockquote>"
        )
    if block.kind == "code":
        return f"<pre>{escape(block.text)}</pre>"
    if block.kind == "table":
        rows = "".join(
            "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
            for row in block.rows
        )
        return f"<table>{rows}</table>"
    if block.kind == "image":
        return f'<img alt="{escape(block.text)}" src="{escape(block.items[0])}">'
    if block.kind == "rule":
        return "<hr>"
    return f"<p>{escape(block.text)}</p>"
