"""The extraction benchmark's pages: varied real-world layouts written for this project, each with
its gold text.

Every page puts known paragraphs (the gold main content) into a different kind of
markup - semantic HTML5, div soup with nondescript class names, tables for layout,
a forum thread, a recipe, a product page, a docs page with a long table of contents,
a long read with pull quotes and inline ads - surrounded by the boilerplate such sites
carry. Class names are deliberately not the obvious ones in several layouts, so an
extractor cannot score well by matching words like "comment" or "sidebar".
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

_WORDS = (
    "river harbour engine circuit protein signal archive market theory climate orbit garden ledger "
    "museum treaty vaccine glacier startup bridge lantern violin census mineral canyon satellite "
    "festival algorithm parliament monsoon harvest telescope pipeline festival fossil courier"
).split()


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    html: str
    gold: str


def _sentences(rng: random.Random, count: int) -> str:
    out = []
    for _ in range(count):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(9, 22))]
        out.append(" ".join(words).capitalize() + ".")
    return " ".join(out)


def _paragraphs(rng: random.Random, count: int) -> list[str]:
    return [_sentences(rng, rng.randint(2, 5)) for _ in range(count)]


def _nav(rng: random.Random, tag: str = "nav", cls: str = "") -> str:
    links = "".join(
        f'<a href="/s/{i}">{rng.choice(_WORDS).title()} {i}</a> ' for i in range(rng.randint(6, 14))
    )
    attribute = f' class="{cls}"' if cls else ""
    return f"<{tag}{attribute}>{links}</{tag}>"


def _teasers(rng: random.Random, count: int, cls: str) -> str:
    items = "".join(
        f'<div class="{cls}"><a href="/t/{i}">{_sentences(rng, 1)}</a><span>{rng.randint(1, 28)} '
        "min read</span></div>"
        for i in range(count)
    )
    return f"<div>{items}</div>"


def _semantic_news(rng: random.Random) -> tuple[str, list[str]]:
    gold = _paragraphs(rng, 7)
    body = "".join(f"<p>{p}</p>" for p in gold)
    return (
        f"<header>{_nav(rng)}</header><main><article><h1>{_sentences(rng, 1)}</h1>"
        f"<p class='byline'>By Staff Reporter</p>{body}</article>"
        f"<aside><h2>Most read</h2>{_teasers(rng, 6, 'teaser')}</aside></main>"
        f"<footer><p>{_sentences(rng, 2)}</p></footer>",
        gold,
    )


def _div_soup_blog(rng: random.Random) -> tuple[str, list[str]]:
    gold = _paragraphs(rng, 6)
    body = "".join(f'<div class="x1">{p}</div>' for p in gold)
    responses = "".join(
        f'<div class="r9"><b>reader{i}</b><div class="x1">{_sentences(rng, 2)}</div></div>'
        for i in range(5)
    )
    return (
        f'<div class="top">{_nav(rng, "div", "m3")}</div><div class="wrap"><div '
        f'class="c7">{body}</div><div class="k2"><h3>Responses</h3>{responses}</div><div '
        f'class="z4">{_teasers(rng, 5, "q")}</div></div>',
        gold,
    )


def _table_layout(rng: random.Random) -> tuple[str, list[str]]:
    gold = _paragraphs(rng, 5)
    body = "".join(f"<p>{p}</p>" for p in gold)
    left = "".join(f'<a href="/l/{i}">{rng.choice(_WORDS)}</a><br>' for i in range(15))
    return (
        f"<table><tr><td colspan=2>{_nav(rng, 'div')}</td></tr><tr><td width=150>{left}</td>"
        f"<td><font size=4><b>{_sentences(rng, 1)}</b></font>{body}</td></tr>"
        f"<tr><td colspan=2><small>{_sentences(rng, 2)}</small></td></tr></table>",
        gold,
    )


def _forum_thread(rng: random.Random) -> tuple[str, list[str]]:
    gold = _paragraphs(rng, 3)
    post = "".join(f"<p>{p}</p>" for p in gold)
    replies = "".join(
        f'<div class="post"><div class="who">user{i}</div><p>{_sentences(rng, 1)}</p></div>'
        for i in range(6)
    )
    return (
        f"{_nav(rng)}<div class='thread'><h1>{_sentences(rng, 1)}</h1><div class='post first'>"
        f"<div class='who'>original poster</div>{post}</div>{replies}</div>",
        gold,
    )


def _recipe(rng: random.Random) -> tuple[str, list[str]]:
    intro = _paragraphs(rng, 2)
    steps = [_sentences(rng, 2) for _ in range(5)]
    gold = [*intro, *steps]
    return (
        f"{_nav(rng)}<div class='recipe'><h1>{rng.choice(_WORDS).title()} stew</h1>"
        + "".join(f"<p>{p}</p>" for p in intro)
        + "<h2>Method</h2><ol>"
        + "".join(f"<li>{s}</li>" for s in steps)
        + f"</ol></div><div class='newsletter-box'><p>{_sentences(rng, 2)}</p></div>",
        gold,
    )


def _product(rng: random.Random) -> tuple[str, list[str]]:
    gold = _paragraphs(rng, 3)
    return (
        f"{_nav(rng)}<div class='product'><h1>{rng.choice(_WORDS).title()} 3000</h1><div "
        "class='price'>$99</div>" + "".join(f"<p>{p}</p>" for p in gold) + "</div><div "
        f"class='reco'>{_teasers(rng, 8, 'card')}</div><footer>{_sentences(rng, 1)}</footer>",
        gold,
    )


def _docs(rng: random.Random) -> tuple[str, list[str]]:
    gold = _paragraphs(rng, 6)
    toc = "".join(f'<li><a href="#s{i}">{_sentences(rng, 1)[:40]}</a></li>' for i in range(25))
    body = "".join(f"<h2 id='s{i}'>Section {i}</h2><p>{p}</p>" for i, p in enumerate(gold))
    return (
        f"<div class='layout'><div class='toc'><ul>{toc}</ul></div><div class='doc'>{body}"
        f"<pre>run --flag value</pre></div></div>",
        gold,
    )


def _long_read(rng: random.Random) -> tuple[str, list[str]]:
    gold = _paragraphs(rng, 12)
    parts = []
    for index, paragraph in enumerate(gold):
        parts.append(f"<p>{paragraph}</p>")
        if index % 4 == 3:
            parts.append(f'<div class="promo-inline"><a href="/sub">{_sentences(rng, 1)}</a></div>')
    return (
        f"<header>{_nav(rng)}</header><article>"
        f"<h1>{_sentences(rng, 1)}</h1>{''.join(parts)}</article>"
        f"<div class='more'>{_teasers(rng, 10, 'tile')}</div>",
        gold,
    )


LAYOUTS: tuple[Callable[[random.Random], tuple[str, list[str]]], ...] = (
    _semantic_news,
    _div_soup_blog,
    _table_layout,
    _forum_thread,
    _recipe,
    _product,
    _docs,
    _long_read,
)


def samples(per_layout: int = 5) -> list[Sample]:
    found = []
    for layout in LAYOUTS:
        for n in range(per_layout):
            rng = random.Random(f"{layout.__name__}-{n}")
            body, gold = layout(rng)
            html = (
                "<!doctype html><html><head><title>Page "
                f"{n}</title></head><body>{body}</body></html>"
            )
            found.append(Sample(f"{layout.__name__.strip('_')}-{n}", html, "\n".join(gold)))
    return found
