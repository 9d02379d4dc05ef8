"""generate_citations' engine: every markdown construct the issue names, and text outside links kept
intact."""

from __future__ import annotations

import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from netglean.text.citations import cite


def test_inline_links_and_repeated_urls_share_a_number() -> None:
    result = cite("[a](https://x.test) [b](https://y.test) [c](https://x.test)", heading="")
    assert result.markdown == "a [1] b [2] c [1]\n\n[1]: https://x.test\n[2]: https://y.test\n"
    assert [r.number for r in result.references] == [1, 2] and result.citation_count == 3


def test_titles_in_all_three_quotings() -> None:
    result = cite("[a](u1 \"T1\") [b](u2 'T2') [c](u3 (T3))", heading="")
    assert [r.title for r in result.references] == ["T1", "T2", "T3"]
    assert '[1]: u1 "T1"' in result.markdown


def test_a_later_title_fills_in_a_missing_one() -> None:
    assert cite('[a](u) [b](u "Later")').references[0].title == "Later"


def test_images_stay_images_and_linked_images_get_cited() -> None:
    result = cite("![alt](pic.png) [![logo](logo.png)](https://home.test)", heading="")
    assert result.markdown.startswith("![alt](pic.png) ![logo](logo.png) [1]\n")
    assert [r.url for r in result.references] == ["https://home.test"]


def test_reference_style_links_full_collapsed_shortcut() -> None:
    text = '[one][R] and [R][] and [r].\n\n[r]: https://r.test "Ref"\n[unused]: https://u.test\n'
    result = cite(text, heading="Sources")
    assert result.markdown.startswith("one [1] and R [1] and r [1].\n")
    assert "[unused]: https://u.test" in result.markdown  # definitions nobody used are kept
    assert "[r]: https://r.test" not in result.markdown  # the used one moved into the list
    assert result.markdown.endswith('## Sources\n\n[1]: https://r.test "Ref"\n')


def test_undefined_reference_is_not_a_link() -> None:
    result = cite("[not a link] and [x][missing]")
    assert result.markdown == "[not a link] and [x][missing]" and result.references == ()


def test_code_spans_and_fenced_and_indented_code_are_untouched() -> None:
    text = (
        "Inline `[a](b)` and ``[c](d) with ` inside``.\n\n"
        "```md\n[e](f)\n```\n\n~~~~\n[g](h)\n~~~~\n\n    [i](j)\n\nBut [k](https://k.test).\n"
    )
    result = cite(text, heading="")
    for untouched in (
        "`[a](b)`",
        "``[c](d) with ` inside``",
        "```md\n[e](f)\n```",
        "~~~~\n[g](h)\n~~~~",
        "    [i](j)",
    ):
        assert untouched in result.markdown
    assert [r.url for r in result.references] == ["https://k.test"]


def test_list_continuation_is_not_mistaken_for_code() -> None:
    result = cite("- item\n\n    more about [it](https://it.test)\n")
    assert [r.url for r in result.references] == ["https://it.test"]


def test_autolinks_and_email_autolinks() -> None:
    result = cite("See <https://a.test/x?y=1> or <me@mail.test>.", heading="")
    assert result.markdown.startswith("See https://a.test/x?y=1 [1] or me@mail.test [2].")
    assert [r.url for r in result.references] == ["https://a.test/x?y=1", "mailto:me@mail.test"]


def test_escapes_nested_brackets_parentheses_and_angle_destinations() -> None:
    result = cite(
        r"\[no](link) [a [nested] text](https://w.test/a_(b)) [sp](<https://s.test/a b>)",
        heading="",
    )
    assert result.markdown.startswith(r"\[no](link) a [nested] text [1] sp [2]")
    assert [r.url for r in result.references] == ["https://w.test/a_(b)", "https://s.test/a b"]
    assert "[2]: <https://s.test/a b>" in result.markdown


def test_empty_link_text_and_following_parenthesis() -> None:
    result = cite("[](https://e.test)(aside)", heading="")
    assert result.markdown.startswith("[1] (aside)")


def test_no_links_means_unchanged_text() -> None:
    text = "Plain text, `code`, and [brackets]."
    assert cite(text).markdown == text


def test_first_number_offsets_the_numbering() -> None:
    result = cite("[a](u) [b](v) [c](u)", heading="", first_number=7)
    assert result.markdown.startswith("a [7] b [8] c [7]")
    assert [r.number for r in result.references] == [7, 8]


# Words carry text: a run of 4+ spaces at the start of the document would (rightly) make it an
# indented code block.
_words = (
    st.text(alphabet=string.ascii_letters + string.digits + " ,;?é中", min_size=1, max_size=12)
    .map(str.strip)
    .filter(bool)
)
_urls = st.sampled_from(["https://a.test", "https://b.test/p?q=1", "http://c.test/x_(y)"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_words, st.one_of(st.none(), st.tuples(_words, _urls))), max_size=8))
def test_prose_is_preserved_and_every_link_becomes_one_citation(
    parts: list[tuple[str, tuple[str, str] | None]],
) -> None:
    source: list[str] = []
    expected: list[str] = []
    for word, link in parts:
        source.append(word)
        expected.append(word)
        if link:
            text, url = link
            source.append(f"[{text}]({url})")
            expected.append(f"{text.strip()} [n]" if text.strip() else "[n]")
    result = cite(" ".join(source), heading="")
    links = [link for _, link in parts if link]
    assert result.citation_count == len(links)
    assert len(result.references) == len({url for _, url in links})
    body = result.markdown.split("\n\n")[0] if links else result.markdown
    assert re.sub(r"\[\d+\]", "[n]", body) == " ".join(expected)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_handled(text: str) -> None:
    result = cite(text)
    assert result.citation_count >= len(result.references)
    assert [r.number for r in result.references] == list(range(1, len(result.references) + 1))


def test_pathological_inputs_finish() -> None:
    for hostile in (
        "[" * 50_000,
        "[a](" * 20_000,
        "`` ` " * 20_000,
        '[a](x "' * 20_000,
        "[x](" + "(" * 50_000,
    ):
        assert cite(hostile).citation_count == 0
