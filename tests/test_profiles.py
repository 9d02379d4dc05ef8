"""The wire-profile mechanism end to end (issue 30): a profile written as catalog data, checked and
turned into tables by the generator, served by the one call path and read by the official MCP
client. The profile here is a made-up seed ("Seedling") over two local tools, so every part of the
mechanism is exercised without a network: renamed arguments and the seed's defaults, an argument
accepted and not applied, a projected structuredContent and its listed outputSchema, templated
(once, or once per item) and pretty-JSON text, an argument the seed requires, an argument that only
chooses the text block, a failure as a JSON-RPC error, the server's identity, the seed's environment
variables, and which profiles are refused together."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from mcp.client._memory import InMemoryTransport
from mcp.shared.exceptions import MCPError

from codegen.catalog import load_catalog
from codegen.errors import Collector
from codegen.profiles import make_profiles, runtime_table
from codegen.yaml_source import load
from netglean.app import build_runner
from netglean.calls.profiles import Profile, seed_environment, start_notices
from netglean.calls.registry import Registry
from netglean.core.errors import ConfigurationError
from netglean.core.settings import Settings
from netglean.serve.mcp import build_server
from tests.support.clients import SyncClient, open_client
from tests.support.environment import TEST_ENVIRONMENT
from tests.support.paths import PROJECT

SEEDLING = """
name: crawlberg
title: Seedling
reference: a made-up seed's docs
description: Every part of the mechanism, over two local tools.
server: {name: seedling-mcp, title: Seedling, instructions: Cite things.}
environment:
  SEEDLING_LOG: {setting: log_level, values: {warn: warning}, default: error}
  SEEDLING_SCRAPER_URL: {not_applied: netglean renders in its own browser, inside the operator's
    policy.}
  SEEDLING_BUDGET: {setting: session_budget, default: 20, clamp: [5, 500], fallback: true}
  SEEDLING_INDEX: {setting: index_url, default: "https://seed.example", fallback: true}
tools:
  cite:
    tool: generate_citations
    arguments:
      text: {as: markdown}
      start: {as: first_number, default: 10}
      style: {not_applied: netglean numbers citations one way, schema: {type: string}}
    result:
      from: /payload
      keep: [markdown, citation_count]
      set: {/cited: {when: {/payload/citation_count: 0}, then: {const: false}, else: {const: true}}}
    text: {template: "Cited: {/payload/markdown}"}
    errors:
      invalid_arguments: {jsonrpc: invalid_params, message: {from: /payload/error/message}}
    failed_when:
      - {when: {/payload/citation_count: 0},
         text: {template: "Nothing to cite in: {/payload/markdown}"}}
  version:
    tool: get_version
    result: {from: /payload, keep: [version]}
    text: pretty_json
  get_version: {text: json}
  crawl_site: {tool: crawl, result: {from: /payload}}
  references:
    tool: generate_citations
    arguments:
      first_number: {required: true}
      heading: {answer_only: "the text block: the references, or their count",
                schema: {enum: [list, count]}}
    result: {from: /payload, keep: [markdown, citation_count]}
    text:
      by_argument: heading
      forms:
        count: {template: "{/payload/citation_count} citation(s)"}
      otherwise:
        head: "References of {/payload/citation_count}:"
        template: "[{/number}] {/url}\\n  titled {/title}"
        each: /payload/references
        join: "\\n"
        skip_empty: true
    errors:
      invalid_arguments: {jsonrpc: invalid_params, message: {from: /payload/error/message}}
  cite_framed:
    tool: generate_citations
    text: {template: "{/payload/markdown}", frame: seed}
  cited:
    tool: generate_citations
    arguments: {text: {as: markdown}, heading: {fixed: Sources}}
    result:
      when: {/payload/citation_count: 0}
      then: {from: /payload, keep: [citation_count]}
      else: {from: /payload, keep: [markdown],
             set: {/numbers: {each: /payload/references, as: {keep: [number]}}}}
    text: json
  logs:
    tool: get_logs
    arguments: {level: {values: {WARN: warning, ERROR: error}}}
    result: {from: /payload, keep: [lines, total]}
quarantine:
  notice: "From {source}:"
  begin: "--BEGIN UNTRUSTED CONTENT {nonce} source={source}--"
  end: "--END UNTRUSTED CONTENT {nonce}--"
  nonce_digits: 16
  source_argument: heading
resources:
  "seedling://projects/{projectId}/config": project_config
contract: []
"""


def _profile(tmp_path: Path, text: str) -> Profile:
    """``text`` as the generator makes it a profile of the real catalog (its problems fail the
    test)."""
    catalog = load_catalog(PROJECT / "catalog", PROJECT / "netglean" / "handlers")
    path = tmp_path / "crawlberg.yaml"
    path.write_text(text)
    out = Collector(tmp_path)
    [made] = make_profiles(
        [load(path, "crawlberg.yaml")],
        list(catalog.tools),
        list(catalog.resources),
        list(catalog.prompts),
        out,
    )
    assert not out.problems, out.problems
    return Profile.from_table(runtime_table(made))


@pytest.fixture(scope="module")
def seedling(registry: Registry, tmp_path_factory: pytest.TempPathFactory) -> Profile:
    return _profile(tmp_path_factory.mktemp("seedling"), SEEDLING)


@pytest.fixture(scope="module")
def client(registry: Registry, seedling: Profile) -> Iterator[SyncClient]:
    """A server of the real catalog serving only the Seedling profile, under --compat crawlberg."""
    served = dataclasses.replace(registry, profiles={"crawlberg": seedling}, conflicts=())
    runner = build_runner(served, Settings.load({"compat": "crawlberg"}, environ=TEST_ENVIRONMENT))
    with open_client(InMemoryTransport(build_server(runner)), runner) as session:
        yield session


def test_the_seeds_names_are_listed_with_the_schemas_its_client_reads(client: SyncClient) -> None:
    listed = {tool.name: tool for tool in client.run("list_tools").tools}
    cite = listed["cite"]
    assert cite.title == "Turn inline links into numbered citations (Seedling's name)"
    arguments = cite.input_schema["properties"]
    assert "markdown" not in arguments and arguments["text"]["type"] == "string"
    assert arguments["start"]["default"] == 10 and cite.input_schema["required"] == ["text"]
    assert arguments["style"]["description"].startswith(
        "Accepted, not applied here: netglean numbers"
    )
    # netglean's own
    assert listed["generate_citations"].input_schema["properties"]["first_number"]["default"] == 1
    outcome = cite.output_schema
    answered = {"markdown": "x", "citation_count": 0, "cited": False}
    assert Draft202012Validator(outcome).is_valid(answered)
    assert not Draft202012Validator(outcome).is_valid({**answered, "references": []})  # not kept


def test_the_server_announces_the_seeds_identity(client: SyncClient) -> None:
    info = client.client.server_info
    assert info is not None and (info.name, info.title) == ("seedling-mcp", "Seedling")
    assert client.client.instructions == "Cite things."


def test_a_call_under_the_seeds_names_answers_in_the_seeds_shape(client: SyncClient) -> None:
    result = client.call("cite", {"text": "See [a](https://a.example/)."})
    assert result.is_error is False
    assert result.structured_content == {
        "markdown": "See a [10].\n\n## References\n\n[10]: https://a.example/\n",
        "citation_count": 1,
        "cited": True,
    }  # the seed's default first number (10), the projection's keep and set
    assert result.content[0].text == "Cited: " + result.structured_content["markdown"]
    version = client.call("version", {})
    assert list(version.structured_content) == ["version"]
    assert (
        json.loads(version.content[0].text) == version.structured_content
        and "\n  " in version.content[0].text
    )


def test_a_name_of_netglean_own_is_answered_in_the_seeds_shape_and_others_as_netglean(
    client: SyncClient,
) -> None:
    ours = client.call("get_version", {})
    assert (
        json.loads(ours.content[0].text) == ours.structured_content
        and ours.structured_content["ok"] is True
    )
    plain = client.call(
        "generate_citations", {"markdown": "[a](https://a.example/)", "heading": ""}
    )
    # netglean's default, netglean's shape
    assert plain.structured_content["payload"]["references"][0]["number"] == 1


def test_a_projection_by_equalities_answers_one_of_two_shapes(client: SyncClient) -> None:
    assert client.call("cited", {"text": "No links."}).structured_content == {"citation_count": 0}
    linked = client.call("cited", {"text": "[a](https://a.example/)"}).structured_content
    assert linked["numbers"] == [{"number": 1}]  # each item of a list projected
    assert "## Sources" in linked["markdown"]  # the seed's fixed heading, not netglean's default


def test_a_fixed_argument_is_not_listed_nor_the_callers_to_give(client: SyncClient) -> None:
    listed = {tool.name: tool for tool in client.run("list_tools").tools}
    assert "heading" not in listed["cited"].input_schema["properties"]
    refused = client.call("cited", {"text": "[a](https://a.example/)", "heading": "Mine"})
    assert refused.is_error and "unknown argument 'heading'" in refused.content[0].text


def test_an_argument_takes_the_seeds_spelling_of_its_values(client: SyncClient) -> None:
    listed = {tool.name: tool for tool in client.run("list_tools").tools}
    assert listed["logs"].input_schema["properties"]["level"]["enum"] == ["WARN", "ERROR"]
    answered = client.call("logs", {"run_id": "0" * 32, "level": "WARN"})
    # the level taken, the run looked for
    assert answered.is_error and "no run" in answered.content[0].text


def test_a_seeds_address_spells_the_templates_variables_its_own_way(client: SyncClient) -> None:
    definition = {
        "start_urls": ["http://shop.test/"],
        "datasets": [
            {
                "name": "items",
                "item_selector": "li",
                "properties": [{"key": "title", "selector": "h2"}],
            }
        ],
    }
    saved = client.call(
        "save_project", {"name": "seedling", "definition": definition}
    ).structured_content
    project_id = saved["payload"]["project"]["project_id"]
    read = client.run("read_resource", f"seedling://projects/{project_id}/config")
    assert json.loads(read.contents[0].text)["project_id"] == project_id


def test_an_argument_accepted_and_not_applied_is_checked_as_the_seed_types_it(
    client: SyncClient,
) -> None:
    result = client.call("cite", {"text": "[a](https://a.example/)", "style": "apa"})
    assert result.is_error is False and result.structured_content["citation_count"] == 1
    with pytest.raises(MCPError, match="argument 'style'") as raised:
        # accepted is not unchecked: the seed's type holds
        client.call("cite", {"text": "x", "style": 5})
    assert raised.value.error.code == -32602


def test_the_not_applied_note_reaches_the_guidance(registry: Registry, seedling: Profile) -> None:
    """The projection above leaves the guidance out; netglean's envelope (the REST API's) carries
    the note."""
    import anyio

    served = dataclasses.replace(registry, profiles={"crawlberg": seedling}, conflicts=())
    runner = build_runner(served, Settings.load({"compat": "crawlberg"}, environ=TEST_ENVIRONMENT))

    async def call() -> str:
        try:
            envelope, _ = await runner.call("cite", {"text": "x", "style": "apa"})
            return envelope.guidance
        finally:
            await runner.services.aclose()

    guidance = anyio.run(call)
    assert guidance.endswith(
        "Accepted and not applied here: style (the crawlberg profile says why)."
    )


def test_a_seed_frame_names_the_argument_that_names_the_source_when_netglean_names_none(
    client: SyncClient,
) -> None:
    result = client.call(
        "cite_framed", {"markdown": "[a](https://a.example/)", "heading": "Notes here"}
    )
    lines = result.content[0].text.split("\n")
    assert lines[0] == "From Notes here:" and lines[2].endswith(" source=Notes%20here--")
    assert lines[2].startswith("--BEGIN UNTRUSTED CONTENT ") and lines[-1].startswith(
        "--END UNTRUSTED CONTENT "
    )


def test_a_success_the_seed_calls_a_failure_is_answered_as_one(client: SyncClient) -> None:
    result = client.call("cite", {"text": "No links here."})
    assert result.is_error is True and result.structured_content is None
    assert result.content[0].text == "Nothing to cite in: No links here."


def test_a_failure_the_seed_answers_as_json_rpc_is_one(client: SyncClient) -> None:
    with pytest.raises(MCPError) as raised:
        client.call("cite", {"text": 5})
    assert raised.value.error.code == -32602 and "invalid arguments for generate_citations" in str(
        raised.value
    )
    # netglean's own name: a result, as always
    plain = client.call("generate_citations", {"markdown": 5})
    assert (
        plain.is_error is True
        and plain.structured_content["payload"]["error"]["code"] == "invalid_arguments"
    )


def test_the_seeds_environment_variables_set_netglean_settings(seedling: Profile) -> None:
    assert seed_environment([seedling], {"SEEDLING_LOG": "WARN"})["NETGLEAN_LOG_LEVEL"] == "warning"
    assert seed_environment([seedling], {})["NETGLEAN_LOG_LEVEL"] == "error"  # the seed's default
    kept = {"SEEDLING_LOG": "debug", "NETGLEAN_LOG_LEVEL": "info"}
    # netglean's own variable first
    assert seed_environment([seedling], kept)["NETGLEAN_LOG_LEVEL"] == "info"
    assert (
        Settings.load(environ=seed_environment([seedling], {"SEEDLING_LOG": "warn"})).log_level
        == "warning"
    )
    with pytest.raises(ConfigurationError, match="NETGLEAN_LOG_LEVEL: 'loud' is not one of"):
        Settings.load(environ=seed_environment([seedling], {"SEEDLING_LOG": "loud"}))
    [said] = start_notices([seedling], {"SEEDLING_SCRAPER_URL": "https://scraper.example/"})
    assert said.startswith(
        "netglean: SEEDLING_SCRAPER_URL is set and not used (crawlberg profile): netglean renders"
    )
    assert start_notices([seedling], {}) == []


@pytest.mark.parametrize(
    ("given", "budget"),
    [("100", "100"), ("2", "5"), ("9000", "500"), ("lots", "20"), ("-3", "5"), ("", "20")],
)
def test_a_seeds_number_is_clamped_and_a_value_it_refuses_falls_back(
    seedling: Profile, given: str, budget: str
) -> None:
    assert (
        seed_environment([seedling], {"SEEDLING_BUDGET": given})["NETGLEAN_SESSION_BUDGET"]
        == budget
    )


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("https://index.example", "https://index.example"),
        ("http://index.example", "https://seed.example"),
        ("https://user:secret@index.example", "https://seed.example"),
        ("https://index.example/?q=1", "https://seed.example"),
    ],
)
def test_a_seeds_url_it_would_refuse_falls_back_to_its_default_saying_so(
    seedling: Profile, given: str, used: str
) -> None:
    environ = {"SEEDLING_INDEX": given}
    assert Settings.load(environ=seed_environment([seedling], environ)).index_url == used
    said = start_notices([seedling], environ)
    if used == given:
        assert said == []
    else:  # said without the value, which may hold a credential
        assert said == [
            "netglean: SEEDLING_INDEX is no value Seedling takes; https://seed.example is used, "
            "as it does"
        ]


def test_profiles_that_collide_are_refused_at_start_naming_both_and_why(registry: Registry) -> None:
    refused = {
        "profiles": ("html2rss", "rtila"),
        "reasons": ("html2rss and rtila both answer the tool 'x'",),
    }
    colliding = dataclasses.replace(registry, conflicts=(refused,))
    with pytest.raises(
        ConfigurationError, match="compat: these profiles cannot be served together: html2rss and"
    ):
        colliding.with_profiles(["rtila", "html2rss"])
    assert colliding.with_profiles(["rtila", "crawlberg"]).served == ("rtila", "crawlberg")


def test_a_template_is_written_once_per_item_and_leaves_out_lines_that_find_nothing(
    client: SyncClient,
) -> None:
    given = {"markdown": "[a](https://a.example/) and [b](https://b.example/)", "first_number": 3}
    result = client.call("references", given)
    assert (
        result.content[0].text == "References of 2:\n[3] https://a.example/\n[4] https://b.example/"
    )
    assert (
        client.call("references", {**given, "heading": "count"}).content[0].text == "2 citation(s)"
    )


def test_an_argument_that_only_chooses_the_text_is_not_passed_to_netglean(
    client: SyncClient,
) -> None:
    listed = {tool.name: tool for tool in client.run("list_tools").tools}["references"].input_schema
    assert listed["properties"]["heading"] == {
        "enum": ["list", "count"],
        "description": "the text block: the references, or their count",
    }
    result = client.call(
        "references", {"markdown": "[a](https://a.example/)", "first_number": 1, "heading": "count"}
    )
    # netglean's heading, its default
    assert "## References" in result.structured_content["markdown"]
    with pytest.raises(MCPError, match="argument 'heading'"):
        client.call("references", {"markdown": "x", "first_number": 1, "heading": "## Sources"})


def test_an_argument_the_seed_requires_is_required(client: SyncClient) -> None:
    listed = {tool.name: tool for tool in client.run("list_tools").tools}["references"].input_schema
    assert listed["required"] == ["markdown", "first_number"]
    with pytest.raises(MCPError, match="argument 'first_number' is required") as raised:
        client.call("references", {"markdown": "[a](https://a.example/)"})
    assert raised.value.error.code == -32602


def test_a_projection_of_a_value_of_several_shapes_lists_each(client: SyncClient) -> None:
    """crawl's payload is the crawl, or its run when the call stopped waiting: the seed's result may
    be either."""
    listed = {tool.name: tool for tool in client.run("list_tools").tools}[
        "crawl_site"
    ].output_schema
    shapes = [set(shape["properties"]) for shape in listed["anyOf"]]
    assert {"run"} in shapes and any({"pages", "read"} <= shape for shape in shapes)
    assert {"ok", "payload"} <= shapes[-1]  # and netglean's failure envelope
