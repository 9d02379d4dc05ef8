"""Feed configs (netglean.feeds.config): the 56 real html2rss configs load, typical mistakes are
named with their path and a sentence, keys the format does not know are warnings (as html2rss
ignores them) with the closest known key, and YAML that would expand, nest without end or hold what
JSON cannot is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from netglean.core.errors import InvalidFeedConfig
from netglean.core.validation import quote_value
from netglean.feeds import config as feed_config
from netglean.feeds.config_yaml import parse_yaml
from tests.support.paths import CORPUS

CORPUS_FILES = sorted(CORPUS.glob("*/*.yml"))


def test_the_corpus_is_there() -> None:
    assert len(CORPUS_FILES) == 56, f"expected the 56 corpus configs in {CORPUS}"


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_config_validates_and_loads(path: Path) -> None:
    raw = parse_yaml(path.read_text(encoding="utf-8"))
    assert feed_config.problems(raw) == []
    loaded = feed_config.load(raw)
    assert "%<" not in loaded.config["channel"]["url"] and loaded.config["channel"][
        "url"
    ].startswith("https://")
    # selectors and templates are kept as written
    assert loaded.config["selectors"] == raw["selectors"]
    assert loaded.warnings == ()  # the corpus holds no key the format does not know


MINIMAL: dict[str, Any] = {
    "channel": {"url": "https://example.com/news", "time_zone": "UTC"},
    "selectors": {"items": {"selector": "article"}, "title": {"selector": "h2"}},
}


def _with(**changes: Any) -> dict[str, Any]:
    config = yaml.safe_load(yaml.safe_dump(MINIMAL))
    for pointer, value in changes.items():
        *parents, last = pointer.split("__")
        node = config
        for part in parents:
            node = node.setdefault(part, {})
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value
    return config


@pytest.mark.parametrize(
    ("config", "path", "words"),
    [
        (_with(channel__ttl="60"), "/channel/ttl", 'must be an integer, not a string "60"'),
        (_with(selectors__items__selector=None), "/selectors/items", "items needs 'selector'"),
        (
            _with(selectors__title={"selector": "h2", "extractor": "txt"}),
            "/selectors/title/extractor",
            '"txt"',
        ),
        (
            _with(selectors__title={"extractor": "attribute"}),
            "/selectors/title",
            "needs 'attribute'",
        ),
        (
            _with(
                selectors__title={
                    "selector": "h2",
                    "post_process": [{"name": "gsub", "pattern": "x"}],
                }
            ),
            "/selectors/title/post_process/0",
            "gsub needs 'replacement'",
        ),
        (
            _with(
                selectors__title={
                    "selector": "h2",
                    "post_process": [{"name": "substring", "begin": 1}],
                }
            ),
            "/selectors/title/post_process/0",
            "substring needs 'start'",
        ),
        (
            _with(
                selectors__title={
                    "selector": "h2",
                    "post_process": [{"name": "gsub", "pattern": "/(/", "replacement": ""}],
                }
            ),
            "/selectors/title/post_process/0/pattern",
            "does not compile",
        ),
        (
            _with(
                selectors__title={"post_process": [{"name": "template", "string": "%{nothing}"}]}
            ),
            "/selectors/title/post_process/0/string",
            '"nothing", which is no field',
        ),
        (
            _with(channel__time_zone="Mars/Olympus"),
            "/channel/time_zone",
            "not a known IANA time zone",
        ),
        (_with(selectors=None), "", "selectors (with items) or auto_source"),
        (
            _with(strategy="selenium"),
            "/strategy",
            "use one of: auto, faraday, botasaurus, browserless",
        ),
        (_with(directory={"title": "News"}), "/directory", "directory needs 'topics'"),
        (
            _with(directory={"title": "News", "topics": []}),
            "/directory/topics",
            "should be non-empty",
        ),
        (
            _with(directory={"title": "N", "topics": ["a"], "summary": "x" * 161}),
            "/directory/summary",
            "is too long",
        ),
        (_with(registry={}), "/registry", "registry needs 'id'"),
        (_with(strategy="local_file"), "/strategy", '"local_file" is not allowed for strategy'),
        (
            _with(request={"local_file_path": "feed.html"}),
            "/request/local_file_path",
            "never read local files",
        ),
        (
            _with(selectors__items__selector="li[["),
            "/selectors/items/selector",
            '"li[[" is not a CSS selector',
        ),
        (
            _with(selectors__title={"selector": "h2::"}),
            "/selectors/title/selector",
            "not a CSS selector netglean",
        ),
        (
            _with(selectors__title={"selector": "+ div"}),
            "/selectors/title/selector",
            "a field is read from inside",
        ),
        (
            _with(selectors__url={"selector": "a"}, selectors__link={"selector": "a"}),
            "/selectors/link",
            "url or link",
        ),
        (
            _with(selectors__items__pagination={"selector": "a[[rel"}),
            "/selectors/items/pagination/selector",
            "is not a CSS selector",
        ),
        # found by the contract fuzzer: a step without a name was taken for a gsub missing its
        # pattern
        (
            _with(selectors__title={"post_process": [{}]}),
            "/selectors/title/post_process/0",
            "needs 'name'",
        ),
        (
            _with(selectors__title={"post_process": {}}),
            "/selectors/title/post_process",
            "needs 'name'",
        ),
    ],
)
def test_typical_mistakes_are_named_with_their_path_and_a_sentence(
    config: Any, path: str, words: str
) -> None:
    found = feed_config.problems(config)
    assert any(p.path == path and words in p.message for p in found), [p.as_dict() for p in found]


def test_yaml_values_json_cannot_hold_are_text_or_named_problems() -> None:
    """Found by the contract fuzzer: a plain date in free-form metadata broke the call's answer (a
    date is not JSON), and .inf made a text block that was not JSON."""
    head = "channel: {url: 'https://e.com/'}\nselectors: {items: {selector: li}}\n"
    assert parse_yaml(head + "directory: {since: 2026-11-29}")["directory"] == {
        "since": "2026-11-29"
    }
    with pytest.raises(InvalidFeedConfig) as refused:
        parse_yaml(
            head + "parameters: {x: {default: .inf}}\ndirectory: {b: !!binary aGk=, n: .nan}"
        )
    assert [(p["path"], p["message"].split(" ")[0]) for p in refused.value.detail["errors"]] == [
        ("/directory/b", "YAML"),
        ("/directory/n", "nan"),
        ("/parameters/x/default", "inf"),
    ]


def test_yaml_errors_name_the_line_and_local_files_are_refused() -> None:
    with pytest.raises(InvalidFeedConfig) as broken:
        parse_yaml("channel:\n  url: [unclosed\n")
    assert "line 3" in broken.value.message or "line 2" in broken.value.message
    with pytest.raises(InvalidFeedConfig) as local:
        feed_config.load(_with(channel__url="file:///etc/passwd"))
    assert local.value.detail["errors"] == [
        {
            "path": "/channel/url",
            "message": '"file:///etc/passwd" is not an http(s) URL; tools never read local files',
        }
    ]


@pytest.mark.parametrize(
    ("tail", "words"),
    [
        (  # nine levels of nine aliases: 550 bytes standing for 387 million strings
            "directory:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
            + "".join(f"  a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]\n" for n in range(1, 9)),
            "stands for more than 50000 values once its aliases are expanded (at line",
        ),
        (
            "directory: &a {x: [1, *a]}\n",
            "the alias *a at line 3, column 23 refers to a value that holds it",
        ),
        (
            "directory: " + "[" * 5000 + "]" * 5000 + "\n",
            "nests deeper than 32 levels at line 3, column 43",
        ),
        # YAML's null and yes are not names
        ("directory: {yes: 1, ~: 2}\n", "the key null is not text; quote it"),
    ],
)
def test_yaml_that_would_expand_or_nest_without_end_is_refused_before_it_is_built(
    tail: str, words: str
) -> None:
    head = "channel: {url: 'https://example.com/'}\nselectors: {items: {selector: li}}\n"
    with pytest.raises(InvalidFeedConfig) as refused:
        parse_yaml(head + tail)
    assert words in refused.value.message
    shared = parse_yaml(head + "directory: {a: &x [1, 2], b: *x, c: {<<: {d: 1}}}\n")
    # aliases within bounds still work
    assert shared["directory"] == {"a": [1, 2], "b": [1, 2], "c": {"d": 1}}


def test_parameters_fill_the_channel_and_unknown_ones_are_refused() -> None:
    config = _with(parameters={"section": {"type": "string", "default": "news"}})
    config["channel"]["url"] = "https://example.com/%<section>s"
    assert feed_config.load(config).config["channel"]["url"] == "https://example.com/news"
    assert (
        feed_config.load(config, {"section": "sport"}).config["channel"]["url"]
        == "https://example.com/sport"
    )
    with pytest.raises(InvalidFeedConfig, match='no parameter "region"'):
        feed_config.load(config, {"region": "x"})


def test_unknown_keys_are_warnings_at_their_pointer_and_the_config_runs_without_them() -> None:
    """html2rss ignores keys it does not know (a comment, a template step's methods), so real
    configs carry them: each is a warning naming the closest known key (a typo is still caught), and
    the config runs without it."""
    config = _with(
        comment="written for html2rss",
        channel__colour="red",
        selectors__items__selectr="li",
        selectors__title={
            "selector": "h2",
            "post_process": [{"name": "template", "string": "%{self}", "methods": 1}],
        },
        directory={"title": "News", "topics": ["sea"], "sumary": "x"},
    )
    assert feed_config.problems(config) == []
    loaded = feed_config.load(config)
    assert [(w.path, w.message) for w in loaded.warnings] == [
        ("/channel/colour", _unknown("colour", "channel", "the keys there are: " + CHANNEL_KEYS)),
        ("/comment", _unknown("comment", "the config", "the keys there are: " + TOP_KEYS)),
        ("/directory/sumary", _unknown("sumary", "directory", "did you mean 'summary'?")),
        ("/selectors/items/selectr", _unknown("selectr", "items", "did you mean 'selector'?")),
        (
            "/selectors/title/post_process/0/methods",
            _unknown("methods", "post_process[0]", "the keys there are: " + STEP_KEYS),
        ),
    ]
    assert tuple(feed_config.without_unknown_keys(config)[1]) == loaded.warnings
    assert "comment" not in loaded.config and "colour" not in loaded.config["channel"]
    assert loaded.config["selectors"]["items"] == {"selector": "article"}
    assert loaded.config["selectors"]["title"]["post_process"] == [
        {"name": "template", "string": "%{self}"}
    ]


TOP_KEYS = (
    "auto_source, channel, directory, enhance, headers, parameters, registry, request, "
    "selectors, strategy, stylesheets"
)
CHANNEL_KEYS = "author, description, image, json, language, time_zone, title, ttl, url"
STEP_KEYS = "end, name, pattern, replacement, start, string, time_zone"


def _unknown(key: str, where: str, then: str) -> str:
    return (
        f"{quote_value(key)} is not a key of {where}, so it is ignored (as html2rss ignores it); "
        f"{then}"
    )


def test_a_typo_in_a_required_key_is_an_error_and_a_warning_naming_the_key_meant() -> None:
    config = _with(selectors__items={"selectr": "article"})
    with pytest.raises(InvalidFeedConfig) as refused:
        feed_config.load(config)
    detail = refused.value.detail
    assert {
        "path": "/selectors/items",
        "message": "items needs 'selector': CSS selector of each item element.",
    } in (detail["errors"])
    assert detail["warnings"] == [
        {
            "path": "/selectors/items/selectr",
            "message": _unknown("selectr", "items", "did you mean 'selector'?"),
        }
    ]


def test_values_of_open_mappings_are_not_unknown_keys() -> None:
    """Fields, headers and parameters are named by the config: none of their names is unknown."""
    config = _with(
        selectors__headline={"selector": "h2"},
        headers={"X-Anything": "1"},
        parameters={"section": {"type": "string", "default": "news"}},
        request={"botasaurus": {"navigation_mode": "get"}},
    )
    assert feed_config.without_unknown_keys(config) == (config, [])


def test_a_url_stands_in_for_a_missing_channel_url_and_never_overrides_one() -> None:
    bare = _with(channel__url=None)
    assert (
        feed_config.load(bare, url="https://example.com/given").config["channel"]["url"]
        == "https://example.com/given"
    )
    no_channel = {"selectors": MINIMAL["selectors"]}
    assert feed_config.load(no_channel, url="https://example.com/x").config["channel"] == {
        "url": "https://example.com/x"
    }
    own = feed_config.load(MINIMAL, url="https://example.com/other")
    assert own.config["channel"]["url"] == "https://example.com/news"
    assert [w.path for w in own.warnings] == ["/channel/url"] and "url argument" in own.warnings[
        0
    ].message
    assert feed_config.load(MINIMAL, url="https://example.com/news").warnings == ()
    with pytest.raises(InvalidFeedConfig, match="channel needs 'url'"):
        feed_config.load(bare)
    with pytest.raises(InvalidFeedConfig, match="not an http"):
        feed_config.load(bare, url="file:///etc/passwd")


def test_strategies_are_the_fetch_layers_and_auto_validates() -> None:
    from netglean.net import strategy

    schema = feed_config.config_schema()
    assert schema["properties"]["strategy"]["enum"] == list(strategy.STRATEGIES)
    assert list(feed_config.STRATEGIES) == list(strategy.STRATEGIES)
    assert set(feed_config.MCP_STRATEGIES) <= set(strategy.STRATEGIES)
    assert feed_config.problems(_with(strategy="auto")) == []
    assert feed_config.load(_with(strategy="auto")).config["strategy"] == "auto"


def test_the_extractors_table_is_the_schemas() -> None:
    field = feed_config.config_schema()["$defs"]["FeedField"]
    assert set(feed_config.EXTRACTORS) == set(field["properties"]["extractor"]["enum"])
    assert list(feed_config.EXTRACTORS) == sorted(feed_config.EXTRACTORS)
    # what the html extractor gives (test_items.py)
    assert "outer HTML" in feed_config.EXTRACTORS["html"]


def test_html2rss_configs_directory_keys_validate() -> None:
    config = _with(
        registry={"id": "example-news"},
        directory={
            "title": "Example news",
            "topics": ["news"],
            "summary": "The latest from Example.",
        },
        channel__title="Example news",
    )
    assert feed_config.problems(config) == [] and feed_config.without_unknown_keys(config)[1] == []
