"""Resources and prompts (netglean.calls.resources): a resource found by its URI or template, its
body as text, and a prompt's arguments inserted as data."""

from __future__ import annotations

import json

import anyio
import pytest

from netglean.calls.context import Context
from netglean.calls.resources import (
    PromptError,
    ResourceBody,
    ResourceNotFound,
    read_resource,
    render_prompt,
)
from tests.support.toy_tools import toy_registry, toy_services


def _read(uri: str) -> ResourceBody:
    services = toy_services(call_timeout=7.0)
    return anyio.run(read_resource, services.registry.resources, Context(services), uri)


def test_a_resource_is_read_by_its_uri_and_a_mapping_written_as_sorted_json() -> None:
    body = _read("toy://policy")
    assert (body.uri, body.mime_type) == ("toy://policy", "application/json")
    assert body.text == json.dumps({"a": 7.0, "z": 1}, indent=2, sort_keys=True)


def test_a_template_fills_its_variables_from_the_uri() -> None:
    assert _read("toy://tools/shout") == ResourceBody(
        "toy://tools/shout", "text/plain", "tool shout"
    )


@pytest.mark.parametrize(
    "uri", ["toy://nothing", "toy://tools/", "toy://tools/a/b", "toy://tools/a?b", "toy://policy/"]
)
def test_a_uri_nothing_matches_is_not_found(uri: str) -> None:
    with pytest.raises(ResourceNotFound):
        _read(uri)


GREET = toy_registry().prompts["greet"]


def test_a_prompt_fills_its_arguments_and_defaults() -> None:
    assert render_prompt(GREET, {"who": "Ana"}) == [("user", "Greet Ana warmly; it costs $5.")]
    assert render_prompt(GREET, {"who": "Ana", "tone": "briskly"}) == [
        ("user", "Greet Ana briskly; it costs $5.")
    ]


def test_argument_values_are_inserted_as_data_never_expanded() -> None:
    [(_, text)] = render_prompt(GREET, {"who": "$tone ${who} $$", "tone": "{0} %s"})
    assert text == "Greet $tone ${who} $$ {0} %s; it costs $5."


def test_a_prompt_request_that_does_not_fit_says_why() -> None:
    with pytest.raises(PromptError, match="prompt 'greet' needs the argument 'who'"):
        render_prompt(GREET, None)
    with pytest.raises(PromptError, match=r"prompt 'greet' has no argument\(s\) colour, mood"):
        render_prompt(GREET, {"who": "Ana", "mood": "x", "colour": "y"})
