"""The markup reader agent readability scores with: ARS's tokenizer rules, byte offsets, counted
text."""

from __future__ import annotations

import pytest

from netglean.read.readability.markup import collapse, decode_entities, tokenize


def _tags(html: str) -> list[tuple[str, str | None]]:
    """Each element's tag and its parent's tag."""
    markup = tokenize(html)
    return [
        (e.tag, markup.elements[e.parent].tag if e.parent >= 0 else None) for e in markup.elements
    ]


def test_offsets_are_utf8_bytes_of_the_decoded_body() -> None:
    markup = tokenize("€ <p>é</p><b>x</b>")
    assert [(e.tag, e.offset) for e in markup.elements] == [("p", 4), ("b", 13)]
    assert [(t.text, t.offset) for t in markup.texts] == [("€ ", 0), ("é", 7), ("x", 16)]


def test_start_tags_close_what_html_implies() -> None:
    assert _tags("<ul><li>a<li>b</ul>") == [("ul", None), ("li", "ul"), ("li", "ul")]
    assert _tags("<dl><dt>q<dd>a</dl>") == [("dl", None), ("dt", "dl"), ("dd", "dl")]
    assert _tags("<p>one<div>two</div>") == [("p", None), ("div", None)]
    assert _tags("<table><tr><td>a<td>b<tr><td>c</table>")[1:] == [
        ("tr", "table"),
        ("td", "tr"),
        ("td", "tr"),
        ("tr", "table"),
        ("td", "tr"),
    ]


def test_end_tags_close_their_own_element_only() -> None:
    assert _tags("<div><span>x</div><b>y</b>") == [("div", None), ("span", "div"), ("b", None)]
    assert _tags("<div><span>x</div class=y><b>y</b>") == [
        ("div", None),
        ("span", "div"),
        ("b", "span"),
    ]
    assert _tags("<br/><img src=x><p>t</p>") == [("br", None), ("img", None), ("p", None)]


def test_scripts_styles_and_titles_hold_raw_text() -> None:
    markup = tokenize(
        "<title>A &amp; B</title><script>if (a < b) {x = '</p>'}</script><style>p{}</style><p>t"
    )
    assert [t.text for t in markup.texts] == ["A & B", "if (a < b) {x = '</p>'}", "p{}", "t"]
    assert markup.counted_text() == "A & B t"


def test_a_lone_less_than_sign_is_text() -> None:
    assert tokenize("<p>3 < 4 and 5<6</p>").counted_text() == "3 < 4 and 5<6"


def test_json_ld_is_kept_verbatim_and_is_no_counted_text() -> None:
    markup = tokenize(
        '<p>a</p><script type="application/ld+json; charset=utf-8">{"x": "&amp;"}</script>'
    )
    assert markup.json_ld == [('{"x": "&amp;"}', 58)]
    assert markup.counted_text() == "a"


@pytest.mark.parametrize(
    "hidden",
    [
        "<div hidden>",
        "<div style='display: none'>",
        "<div style='visibility:hidden'>",
        "<div aria-hidden='true'>",
        "<template>",
        "<dialog>",
    ],
)
def test_text_a_browser_does_not_show_does_not_count(hidden: str) -> None:
    tag = hidden[1:].split(maxsplit=1)[0].rstrip(">")
    markup = tokenize(f"<p>shown</p>{hidden}<p>secret <b>price $9</b></p></{tag}><p>after</p>")
    assert markup.counted_text() == "shown after"


def test_noscript_text_counts() -> None:
    assert (
        tokenize("<noscript><p>No scripts? Read this.</p></noscript>").counted_text()
        == "No scripts? Read this."
    )


def test_element_text_is_its_counted_text() -> None:
    markup = tokenize("<a href=/x>Buy <span hidden>secret</span> <b>now</b></a><p>later</p>")
    assert markup.element_text(0) == "Buy now"
    assert markup.element_text(3) == "later"
    assert markup.element_text_end(0).endswith("now")


def test_metas_and_links_are_read_from_anywhere() -> None:
    markup = tokenize(
        '<meta property="OG:Type" content="Article"><meta name="Description" content="D">'
        '<body><link rel="alternate  Alternate canonical" type="Text/Markdown" href="/x.md"></body>'
    )
    assert [(m.key, m.content) for m in markup.metas] == [
        ("og:type", "Article"),
        ("description", "D"),
    ]
    assert [(link.rel, link.type, link.href) for link in markup.links] == [
        (("alternate", "canonical"), "text/markdown", "/x.md")
    ]


def test_attributes_first_wins_and_values_decode() -> None:
    element = tokenize('<a href="/a?x=1&amp;y=2" href="/b" title=\'q\' data-x=bare>t</a>').elements[
        0
    ]
    assert element.attrs == {"href": "/a?x=1&y=2", "title": "q", "data-x": "bare"}


def test_entities_are_decoded_from_a_pinned_table() -> None:
    assert (
        decode_entities("&euro;5 &#8364; &#x20AC; &#146; &hearts; &amp &copy;")
        == "€5 € € ’ &hearts; &amp ©"
    )
    assert decode_entities("&#0; &#xD800; &#1114112;") == "\ufffd \ufffd \ufffd"


def test_blanks_fold_as_javascript_folds_them() -> None:
    assert collapse("\u00a0 a\u2003\n b \ufeff") == "a b"


def test_any_input_is_read_and_deep_nesting_is_bounded() -> None:
    for html in ("<", "<!--", "</", "<a href='x", "<<<>>>", "\x00\ud7ff<p", "<script>never closed"):
        tokenize(html)
    deep = tokenize("<div>" * 100_000 + "x")
    assert max(e.parent for e in deep.elements[-10:]) < 300  # past 256 levels nothing opens
    assert deep.counted_text() == "x"
