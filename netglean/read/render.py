"""The blocks of an extraction (netglean.read.extract) written as markdown, text, html or json, in time
proportional to the blocks (link and image marks are dropped for text in one forward pass)."""

from __future__ import annotations

import html as html_lib
import json
from typing import Any

from netglean.read.extract import Block, Extraction


def render(extraction: Extraction, fmt: str) -> str:
    """The blocks as markdown, text, html or json."""
    if fmt == "json":
        return json.dumps(
            {"title": extraction.title, "blocks": [_block_json(b) for b in extraction.blocks]}, ensure_ascii=False
        )
    if fmt == "html":
        return "\n".join(_block_html(b) for b in extraction.blocks)
    parts = [_block_markdown(b) if fmt == "markdown" else _block_text(b) for b in extraction.blocks]
    return "\n\n".join(part for part in parts if part)


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


def _block_markdown(block: Block) -> str:
    if block.kind == "heading":
        return f"{'#' * block.level} {block.text}"
    if block.kind == "list":
        return "\n".join(
            f"{index}. {item}" if block.level else f"- {item}" for index, item in enumerate(block.items, 1)
        )
    if block.kind == "quote":
        return f"> {block.text}"
    if block.kind == "code":
        return f"```\n{block.text}\n```"
    if block.kind == "table":
        # The header row gives the columns; shorter rows below read as if padded (GFM), so they are not: padding
        # every row to the widest made a row of 4,000 cells over 4,000 short rows 48 MB of markdown.
        header, *body = block.rows
        width = max(len(row) for row in block.rows)
        lines = ["| " + " | ".join((*header, *[""] * (width - len(header)))) + " |", "|" + " --- |" * width]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines)
    if block.kind == "image":
        return f"![{block.text}]({block.items[0]})"
    if block.kind == "rule":
        return "---"
    return block.text


def _plain(markdown: str) -> str:
    """The text of markdown: images by their alt text, then links by theirs, without emphasis or code marks, a
    hard break as a plain newline."""
    text = _unlinked(_unlinked(markdown, "!["), "[").replace("*", "").replace("`", "")
    return text.replace("  \n", "\n") if "  \n" in text else text


def _unlinked(markdown: str, opener: str) -> str:
    r"""``markdown`` with each ``opener``text](url) replaced by its text, as ``re.sub(r"OPENER([^\]]*)\]\([^)]*\)",
    r"\1", markdown)`` does, in one pass: the pattern looked for a ] and a ) after every opener, so 80 KB of
    "![" took 17 s. The first ] and ) after a place are remembered until the search passes them."""
    parts: list[str] = []
    done = 0  # markdown[:done] is in parts
    close = paren = -2  # the first "]" / ")" after where it was last looked for; -1: there is none
    start = markdown.find(opener)
    while start >= 0:
        text = start + len(opener)
        if close != -1 and close < text:
            close = markdown.find("]", text)
        if close == -1:
            break
        if not markdown.startswith("(", close + 1):
            start = markdown.find(opener, start + 1)
            continue
        if paren != -1 and paren < close + 2:
            paren = markdown.find(")", close + 2)
        if paren == -1:
            break
        parts += (markdown[done:start], markdown[text:close])
        done = paren + 1
        start = markdown.find(opener, done)
    parts.append(markdown[done:])
    return "".join(parts)


def _block_text(block: Block) -> str:
    if block.kind == "list":
        return "\n".join(f"- {_plain(item)}" for item in block.items)
    if block.kind == "table":
        return "\n".join("\t".join(row) for row in block.rows)
    if block.kind == "code":
        return block.text
    if block.kind == "rule":
        return ""
    return _plain(block.text)


def _block_html(block: Block) -> str:
    escape = html_lib.escape
    if block.kind == "heading":
        return f"<h{block.level}>{escape(block.text)}</h{block.level}>"
    if block.kind == "list":
        tag = "ol" if block.level else "ul"
        return f"<{tag}>" + "".join(f"<li>{escape(_plain(i))}</li>" for i in block.items) + f"</{tag}>"
    if block.kind == "quote":
        return f"<blockquote>{escape(block.text)}</blockquote>"
    if block.kind == "code":
        return f"<pre>{escape(block.text)}</pre>"
    if block.kind == "table":
        rows = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in block.rows)
        return f"<table>{rows}</table>"
    if block.kind == "image":
        return f'<img alt="{escape(block.text)}" src="{escape(block.items[0])}">'
    if block.kind == "rule":
        return "<hr>"
    return f"<p>{escape(_plain(block.text))}</p>"
