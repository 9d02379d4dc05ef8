"""The catalog is strict: every kind of mistake is an error naming its file and line, and writes
nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from codegen.catalog import load_catalog
from codegen.emit import render
from codegen.main import main as gen_main
from codegen.profiles import conflicts
from tests.support.catalog_copy import assert_problem, catalog_problems, copy_project, edit, line_of
from tests.support.paths import PROJECT

TOOL = "catalog/tools/text/generate_citations.yaml"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path)


def test_the_real_catalog_is_valid() -> None:
    catalog = load_catalog(PROJECT / "catalog", PROJECT / "netglean" / "handlers")
    assert {t.name for t in catalog.tools} >= {"get_version", "generate_citations"}


def test_unknown_key(project: Path) -> None:
    edit(project, TOOL, "execution: sync", "execution: sync\nexecuton: async")
    assert_problem(project, TOOL, line_of(project, TOOL, "executon:"), "unknown key 'executon'")
    assert len(catalog_problems(project)) == 1, "one typo must give one error, not a cascade"


def test_missing_field(project: Path) -> None:
    edit(project, TOOL, "origin: local\n", "")
    assert_problem(project, TOOL, 1, "missing 'origin'")


def test_invalid_json_schema(project: Path) -> None:
    edit(project, TOOL, "      maxLength: 200\n", "      maxLength: lots\n")
    assert_problem(
        project, TOOL, line_of(project, TOOL, "maxLength: lots"), "not a valid JSON Schema 2020-12"
    )


def test_a_schema_word_json_schema_would_ignore_is_an_error(project: Path) -> None:
    """A description with a comma in a YAML flow mapping ends at the comma, and the rest became a
    silent keyword (six catalog files had such halves, 'after redirects.' among them)."""
    edit(project, TOOL, "      maxLength: 200\n", "      maxLength: 200\n      maxLenght: 10\n")
    assert_problem(
        project,
        TOOL,
        line_of(project, TOOL, "maxLenght"),
        "'maxLenght' is not a JSON Schema 2020-12",
    )
    site_map = "catalog/tools/sites/map.yaml"
    edit(
        project,
        site_map,
        "count: {type: integer, minimum: 0}",
        "count: {type: integer, description: URLs, kept}",
    )
    assert_problem(
        project, site_map, line_of(project, site_map, "URLs, kept"), "quote a flow-mapping text"
    )


def test_dangling_ref(project: Path) -> None:
    edit(project, TOOL, '$ref: "#/$defs/Reference"', '$ref: "#/$defs/Refrence"')
    assert_problem(project, TOOL, line_of(project, TOOL, "Refrence"), "does not resolve")


def test_duplicate_tool_name(project: Path) -> None:
    copy = project / "catalog/tools/text/copy.yaml"
    copy.write_text((project / TOOL).read_text())
    problems = catalog_problems(project)
    assert any("duplicate tool name 'generate_citations'" in p for p in problems), problems
    assert any(
        p.startswith("catalog/tools/text/copy.yaml:1:") and "must equal the file name" in p
        for p in problems
    )


def test_next_step_pointing_nowhere(project: Path) -> None:
    edit(project, TOOL, "next_step: [done]", "next_step: [done, scrape_everything]")
    assert_problem(
        project, TOOL, line_of(project, TOOL, "next_step:"), "'scrape_everything' is neither a tool"
    )


def test_unreachable_tool(project: Path) -> None:
    # no tool leads to it: without entry_point it is unreachable
    version = "catalog/tools/meta/get_version.yaml"
    edit(project, version, "entry_point: true\n", "")
    assert_problem(project, version, line_of(project, version, "name: get_version"), "unreachable")


def test_example_that_fails_its_schema(project: Path) -> None:
    edit(project, TOOL, "first_number: 4}", "first_number: 0}")
    assert_problem(
        project, TOOL, line_of(project, TOOL, "first_number: 0}"), "break the input schema"
    )


def test_example_payload_that_fails_the_output_schema(project: Path) -> None:
    edit(project, TOOL, "        citation_count: 3", "        citation_count: -3")
    assert_problem(
        project, TOOL, line_of(project, TOOL, "citation_count: -3"), "breaks the output schema"
    )


def test_third_party_fields_are_marked_on_target_tools_only(project: Path) -> None:
    edit(project, TOOL, "    citation_count:\n", "    citation_count:\n      x-untrusted: true\n")
    assert_problem(
        project,
        TOOL,
        line_of(project, TOOL, "x-untrusted"),
        "a local tool returns no third-party text",
    )
    site_map = "catalog/tools/sites/map.yaml"
    path = project / site_map
    path.write_text(
        path.read_text().replace(", x-untrusted: true", "").replace("      x-untrusted: true\n", "")
    )
    assert_problem(
        project,
        site_map,
        line_of(project, site_map, "output:"),
        "mark the fields that carry third-party",
    )


def test_tool_without_handler(project: Path) -> None:
    edit(project, TOOL, "handler: text.generate_citations", "handler: text.make_citations")
    problems = catalog_problems(project)
    line = line_of(project, TOOL, "handler:")
    assert any(
        p.startswith(f"{TOOL}:{line}:") and "'text.make_citations' not found" in p for p in problems
    )
    # ...and the function it no longer names is now a handler without a tool.
    assert any(p.startswith("handlers/text.py:") and "has no tool" in p for p in problems), problems


def test_a_handler_lives_in_the_module_of_its_family(project: Path) -> None:
    scrape = "catalog/tools/pages/scrape.yaml"
    edit(project, scrape, "handler: pages.scrape", "handler: sites.scrape")
    assert_problem(
        project, scrape, line_of(project, scrape, "handler:"), "its handler in handlers/pages.py"
    )


def test_handler_without_tool(project: Path) -> None:
    (project / "handlers/extra.py").write_text("async def orphan(args, ctx):\n    return None\n")
    assert_problem(project, "handlers/extra.py", 1, "'extra.orphan' has no tool or resource")


def test_yaml_syntax_error_and_duplicate_key(project: Path) -> None:
    edit(project, TOOL, "execution: sync", "execution: sync\nexecution: async")
    assert_problem(
        project, TOOL, line_of(project, TOOL, "execution: async"), "duplicate key 'execution'"
    )
    (project / TOOL).write_text("name: [unclosed\n")
    assert_problem(project, TOOL, 2, "invalid YAML")


def test_bad_tool_name(project: Path) -> None:
    edit(project, TOOL, "name: generate_citations", "name: generate citations!")
    assert_problem(project, TOOL, 1, "does not match")


def test_prompt_placeholder_must_be_an_argument(project: Path) -> None:
    relative = "catalog/prompts/cite_sources.yaml"
    edit(project, relative, "Audience: ${audience}", "Audience: ${reader}")
    assert_problem(
        project,
        relative,
        line_of(project, relative, "text: |"),
        "'${reader}' is not a declared argument",
    )


def test_resource_template_variables_match_handler(project: Path) -> None:
    relative = "catalog/resources/tool_spec.yaml"
    edit(project, relative, "netglean://tools/{name}", "netglean://tools/{tool}")
    assert_problem(
        project, relative, line_of(project, relative, "uri_template"), "must match the parameters"
    )


def test_stray_file(project: Path) -> None:
    (project / "catalog/notes.txt").write_text("todo")
    assert_problem(project, "catalog/notes.txt", 1, "unexpected file")


def test_problems_are_all_reported_at_once(project: Path) -> None:
    edit(project, TOOL, "execution: sync", "execution: sometimes")
    (project / "handlers/extra.py").write_text("async def orphan(args, ctx):\n    return None\n")
    assert len(catalog_problems(project)) >= 2


def test_a_bad_catalog_writes_nothing(project: Path) -> None:
    out = project / "generated"
    assert (
        gen_main(
            [
                "--catalog",
                str(project / "catalog"),
                "--handlers",
                str(project / "handlers"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    edit(project, TOOL, "next_step: [done]", "next_step: [nowhere]")
    edit(project, TOOL, "title: Turn inline links", "title: Changed title, turn inline links")
    assert (
        gen_main(
            [
                "--catalog",
                str(project / "catalog"),
                "--handlers",
                str(project / "handlers"),
                "--out",
                str(out),
            ]
        )
        == 1
    )
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before


def test_generation_is_deterministic() -> None:
    first = render(load_catalog(PROJECT / "catalog", PROJECT / "netglean" / "handlers"))
    second = render(load_catalog(PROJECT / "catalog", PROJECT / "netglean" / "handlers"))
    assert first == second


def test_committed_generated_tree_is_current() -> None:
    assert gen_main(["--check"]) == 0


def test_check_names_stale_files(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = project / "generated"
    args = [
        "--catalog",
        str(project / "catalog"),
        "--handlers",
        str(project / "handlers"),
        "--out",
        str(out),
    ]
    assert gen_main(args) == 0
    (out / "openapi.json").write_text("{}")
    (out / "leftover.txt").write_text("x")
    (out / "registry.py").unlink()
    assert gen_main([*args, "--check"]) == 1
    err = capsys.readouterr().err
    assert (
        "openapi.json (changed)" in err
        and "leftover.txt (not generated" in err
        and "registry.py (missing)" in err
    )


def test_every_generated_file_says_it_is_generated() -> None:
    for path in (PROJECT / "generated").rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        if path.suffix == ".json":
            document = json.loads(path.read_text())
            head = document.get("$comment") or document.get("x-generated")
        else:
            head = path.read_text()[:400]
        assert "Generated by netglean codegen" in head and "Do not edit" in head, path


def test_shared_schema_names_cannot_collide_with_generated_ones(project: Path) -> None:
    (project / "catalog/schemas/GetVersionResult.yaml").write_text(
        "title: GetVersionResult\ntype: object\n"
    )
    assert_problem(
        project,
        "catalog/schemas/GetVersionResult.yaml",
        1,
        "collides with the name generated for tool",
    )


RTILA = "catalog/profiles/rtila.yaml"
HTML2RSS = "catalog/profiles/html2rss.yaml"
CRAWLBERG = "catalog/profiles/crawlberg.yaml"


def _profile_problems(project: Path, *expected: tuple[str, str, str]) -> None:
    """The copy's catalog has each problem ``(file, needle, fragment)``: in the file, at the line
    holding the needle, saying the fragment (the catalog is read once for them all)."""
    found = catalog_problems(project)
    for relative, needle, fragment in expected:
        line = line_of(project, relative, needle)
        assert any(p.startswith(f"{relative}:{line}: ") and fragment in p for p in found), (
            needle,
            fragment,
            found,
        )


def test_the_real_profiles_are_valid_and_their_tools_are_the_catalogs() -> None:
    catalog = load_catalog(PROJECT / "catalog", PROJECT / "netglean" / "handlers")
    names = {tool.name for tool in catalog.tools}
    assert {p.name for p in catalog.profiles} == {"html2rss", "rebilder", "crawlberg", "rtila"}
    assert all(t.tool in names for p in catalog.profiles for t in p.tools)


def test_a_profile_is_one_the_compat_setting_takes_named_as_its_file(project: Path) -> None:
    edit(project, RTILA, "name: rtila", "name: rtla")
    edit(project, CRAWLBERG, "\ncontract:\n", "\nwires: {}\ncontract:\n")
    _profile_problems(
        project,
        (RTILA, "name: rtla", "profile name 'rtla' must equal the file name 'rtila'"),
        (RTILA, "name: rtla", "'rtla' is no profile the compat setting takes (html2rss,"),
        (CRAWLBERG, "wires: {}", "unknown key 'wires'"),
    )


def test_a_seeds_tool_name_runs_a_real_tool_and_takes_no_other_tools_name(project: Path) -> None:
    edit(
        project,
        RTILA,
        "rtila_get_project:\n    tool: get_project\n",
        "rtila_get_project:\n    tool: get_projct\n",
    )
    edit(
        project,
        RTILA,
        "  rtila_list_runs:\n    tool: list_runs",
        "  list_projects:\n    tool: list_runs",
    )
    _profile_problems(
        project,
        (RTILA, "get_projct", "'get_projct' is no tool of the catalog"),
        (RTILA, "  list_projects:", "'list_projects' is netglean's tool"),
    )


def test_a_profiles_pointers_point_at_what_the_tool_answers(project: Path) -> None:
    """A dangling pointer (a payload field the tool's output schema has not) is a problem with its
    line."""
    edit(
        project,
        HTML2RSS,
        "  scrape_url: {}",
        "  scrape_url:\n    result:\n      set:\n        /payload/count: /payload/totl\n        "
        "/payload/items/x: {const: 1}\n        /next_step: {when: {/payload/total: many}, then: "
        "{const: done}, else: /next_step}\n    text: {template: '{/titel}', each: "
        "/payload/items, head: '{/payload/totl}'}",
    )
    edit(
        project,
        HTML2RSS,
        "  capture_config: {}",
        "  capture_config: {result: {from: /payload/nothing}}",
    )
    edit(
        project,
        HTML2RSS,
        "  apply_config:\n",
        "  apply_config:\n    text: {template: 'Feed {/payload/rs}'}\n",
    )
    edit(
        project,
        HTML2RSS,
        "  validate_config:",
        "  validate_config:\n    text: {template: x, each: /payload}",
    )
    _profile_problems(
        project,
        (HTML2RSS, "/payload/count", "'/payload/totl' points at nothing netglean's result holds"),
        (HTML2RSS, "/payload/items/x", "which is no object of the result"),
        (HTML2RSS, "/payload/total: many", "'many' is no value '/payload/total' can hold"),
        (HTML2RSS, "/payload/nothing", "'/payload/nothing' points at nothing"),
        (HTML2RSS, "Feed {", "the template's '{/payload/rs}' points at nothing"),
        (HTML2RSS, "{/titel}", "the template's '{/titel}' points at nothing"),
        (HTML2RSS, "{/titel}", "the template's '{/payload/totl}' points at nothing"),
        (HTML2RSS, "each: /payload}", "'/payload' points at no array netglean's result holds"),
    )


def test_a_profiles_arguments_are_the_tools_renamed_defaulted_or_accepted(project: Path) -> None:
    arguments = (
        "  scrape_url:\n    arguments:\n      page: {as: uri}\n      url_hint: {as: "
        "limit}\n      max: {as: limit, default: 0}\n      items_selector: {default: 5}\n      "
        "show_instance: {not_applied: a headless browser}\n      strategy: {not_applied: never, "
        "schema: {}}\n      url: {required: true}\n      channel: {answer_only: shapes the text, "
        "schema: {}, default: 1}"
    )
    edit(project, HTML2RSS, "  scrape_url: {}", arguments)
    _profile_problems(
        project,
        (HTML2RSS, "page: {as: uri}", "'uri' is no argument of scrape_url"),
        (HTML2RSS, "max: {as: limit", "'limit' is already the seed's 'url_hint'"),
        (HTML2RSS, "items_selector: {default: 5}", "5 is no value of 'items_selector'"),
        (HTML2RSS, "show_instance:", "say what a call may give for it (schema: the seed's type)"),
        (HTML2RSS, "strategy: {not_applied", "'strategy' is an argument of scrape_url"),
        (HTML2RSS, "url: {required", "scrape_url requires 'url' already"),
        (HTML2RSS, "channel: {answer_only", "an answer_only argument has no default"),
    )


def test_a_profiles_item_keys_rename_keys_the_items_have(project: Path) -> None:
    edit(
        project,
        CRAWLBERG,
        "actions: {item_keys: {type: action}}",
        "actions: {item_keys: {type: actoin, url: action}}",
    )
    edit(
        project,
        CRAWLBERG,
        "      max_chars: {default: 200000}",
        "      url: {item_keys: {a: b}}\n      max_chars: {default: 200000}",
    )
    _profile_problems(
        project,
        (CRAWLBERG, "actoin", "'actoin' is no key of the items"),
        (CRAWLBERG, "actoin", "'url' is the items' own key already"),
        (CRAWLBERG, "url: {item_keys", "item_keys renames the keys of an array of objects' items"),
    )


def test_a_profiles_resources_and_prompts_are_the_catalogs(project: Path) -> None:
    edit(project, RTILA, '"rtila://runs/{runId}": run', '"rtila://runs/{runId}/{part}": run')
    edit(project, RTILA, '"rtila://runs": runs', '"netglean://runs": projects')
    edit(project, RTILA, '"rtila://engine/info": engine_info', '"rtila://engine/info": engine')
    edit(
        project, RTILA, "rtila_build_scraper: build_scraper", "rtila_build_scraper: build_scrapper"
    )
    edit(project, RTILA, "rtila_explain_dataset: explain_dataset", "feed_now: explain_dataset")
    _profile_problems(
        project,
        (
            RTILA,
            "{runId}/{part}",
            "the variables of 'rtila://runs/{runId}/{part}' must be 1, standing for",
        ),
        (RTILA, "netglean://runs", "'netglean://runs' is already the address of resource 'runs'"),
        (RTILA, "rtila://engine/info", "'engine' is no resource of the catalog"),
        (RTILA, "build_scrapper", "'build_scrapper' is no prompt of the catalog"),
        (RTILA, "feed_now:", "'feed_now' is netglean's prompt 'feed_now'"),
    )


def test_a_profile_that_leaves_the_frame_says_what_is_given_up_and_keeps_the_notice(
    project: Path,
) -> None:
    profile = project / HTML2RSS
    profile.write_text(
        re.sub(r"^unframed: >-\n(  .*\n)+", "", profile.read_text(), count=1, flags=re.MULTILINE)
    )
    edit(project, HTML2RSS, "  scrape_url: {}", "  scrape_url: {result: {from: /payload}}")
    _profile_problems(
        project,
        (
            HTML2RSS,
            "tools:",
            "scrape_url, inspect_url, capture_config, apply_config answer(s) third-party text",
        ),
        (HTML2RSS, "scrape_url: {result", "its result must carry /untrusted_content_notice"),
    )


def test_a_profile_that_keeps_the_frame_gives_nothing_up(project: Path) -> None:
    edit(project, HTML2RSS, "  text: json", "  text: netglean")
    _profile_problems(
        project, (HTML2RSS, "unframed:", "every tool of the profile keeps netglean's frame")
    )


def test_a_success_the_seed_calls_a_failure_is_told_by_pointers_the_tool_answers(
    project: Path,
) -> None:
    edit(
        project,
        CRAWLBERG,
        "  download: {}",
        "  download: {failed_when: [{when: {/payload/urll: x}, text: json}]}",
    )
    _profile_problems(
        project, (CRAWLBERG, "download: {failed", "'/payload/urll' points at nothing")
    )


def test_a_seeds_own_frame_is_written_once_with_markers_a_page_cannot_forge(project: Path) -> None:
    edit(
        project,
        CRAWLBERG,
        "  download: {}",
        "  download: {text: {template: '{/payload/url}', frame: seed}}",
    )
    quarantine = (
        "quarantine:\n  notice: 'From {source} at {time}'\n  begin: '--BEGIN CONTENT {nonce}--'\n"
        "  end: '--END UNTRUSTED CONTENT--'\n  nonce_digits: 16\ntools:"
    )
    edit(project, HTML2RSS, "tools:", quarantine)
    _profile_problems(
        project,
        (CRAWLBERG, "tools:", "download answer(s) in the seed's frame (frame: seed): write it"),
        (HTML2RSS, "quarantine:", "no text form answers in it"),
        (HTML2RSS, "notice: 'From", "its placeholders are {source}"),
        (HTML2RSS, "begin: '--BEGIN", "its placeholders are {nonce}, {source} (both)"),
        (HTML2RSS, "begin: '--BEGIN", "the marker must say BEGIN UNTRUSTED CONTENT"),
        (HTML2RSS, "end: '--END", "its placeholders are {nonce}"),
    )


def test_a_profiles_failures_are_error_codes_and_json_rpc_words_quote_no_target(
    project: Path,
) -> None:
    edit(project, CRAWLBERG, "  errors:\n", "  errors:\n    blockd: {result: envelope}\n")
    edit(
        project,
        CRAWLBERG,
        "    blocked: {jsonrpc: internal_error, message: Blocked by WAF/bot protection}",
        "    blocked: {jsonrpc: internal_error, message: {from: /payload/error/message}}",
    )
    _profile_problems(project, (CRAWLBERG, "blockd:", "'blockd' is not an error code"))
    quoting = [p for p in catalog_problems(project) if "message can quote what a target chose" in p]
    # invalid_arguments quotes none
    assert quoting and all("'blocked' message" in p for p in quoting), quoting


def test_a_profiles_settings_are_real_and_never_loosen_the_policy(project: Path) -> None:
    environment = (
        "environment:\n  LOG_LEVEL: {setting: log_levl}\n  BUDGET: {setting: session_budget, "
        "default: 5000}\n  PRIVATE: {setting: allow_private_hosts, default: true}\n  LEVEL: "
        "{setting: log_level, values: {warn: warnng}}\n  LOUD: {setting: log_level, values: "
        "{WARN: warning}}\npolicy: {session_budget: 1000, host_interval: 0.5, port: 1, "
        "global_concurrency: 2,\n  robots_agents: rebilder-ars, allow_http: 0}\ntools:"
    )
    edit(project, CRAWLBERG, "tools:", environment)
    _profile_problems(
        project,
        (CRAWLBERG, "log_levl", "'log_levl' is no operator setting"),
        (CRAWLBERG, "BUDGET:", "a profile may not loosen netglean's network policy"),
        (CRAWLBERG, "PRIVATE:", "a profile may not loosen netglean's network policy"),
        (CRAWLBERG, "  LEVEL:", "'warn' means: 'warnng' is not one of debug, info, warning, error"),
        (
            CRAWLBERG,
            "  LOUD:",
            "'WARN': the seed's spellings match in any case; write them lower-case",
        ),
        (CRAWLBERG, "robots_agents: rebilder-ars", "netglean's own group is always obeyed"),
        (CRAWLBERG, "robots_agents: rebilder-ars", "allow_http is a bool"),
        (CRAWLBERG, "policy: {session_budget", "0.5 would loosen netglean's host_interval (1.0)"),
        (CRAWLBERG, "policy: {session_budget", "'port' is no setting a profile can tighten"),
    )


def test_a_seeds_clamp_is_a_number_range_around_its_default_and_a_fallback_has_one(
    project: Path,
) -> None:
    environment = (
        "environment:\n  A: {setting: session_budget, default: 20, clamp: [500, 5]}\n  B: "
        "{setting: session_budget, default: 20, clamp: [0, 500]}\n  C: {setting: session_budget, "
        "default: 2, clamp: [5, 500]}\n  D: {setting: log_level, clamp: [1, 2]}\n  E: {setting: "
        "index_url, fallback: true}\ntools:"
    )
    edit(project, CRAWLBERG, "tools:", environment)
    _profile_problems(
        project,
        (CRAWLBERG, "  A:", "500 is more than 5"),
        (CRAWLBERG, "  B:", "0 is below session_budget's minimum 1"),
        (CRAWLBERG, "  C:", "the default 2 is outside [5, 500]"),
        (CRAWLBERG, "  D:", "log_level is no number to clamp"),
        (CRAWLBERG, "  E:", "a fallback gives the default: write one"),
    )


def test_profiles_that_collide_are_refused_together_saying_why(project: Path) -> None:
    """Two profiles answering one name, both announcing an identity, reading one variable two ways,
    or one tightening the server's policy: each pair is in the generated table of refusals, with
    every reason."""
    edit(project, CRAWLBERG, "  download: {}", "  download: {}\n  scrape_url: {}")
    edit(project, HTML2RSS, "environment:", "server: {name: html2rss}\nenvironment:")
    edit(
        project,
        CRAWLBERG,
        "tools:",
        "environment:\n  LOG_LEVEL: {setting: log_level, default: error}\ntools:",
    )
    edit(project, RTILA, "tools:", "policy: {session_budget: 20}\ntools:")
    catalog = load_catalog(project / "catalog", project / "handlers")
    refused = {c["profiles"]: c["reasons"] for c in conflicts(list(catalog.profiles))}
    assert refused[("crawlberg", "html2rss")] == (
        "crawlberg and html2rss both answer the tool 'scrape_url', each in its own seed's shape",
        "crawlberg and html2rss both announce the server's identity (crawlberg-mcp, html2rss); a "
        "server announces one",
        "crawlberg and html2rss both read LOG_LEVEL, each as its own seed means it",
    )
    tightening = (
        "rtila tightens the network policy of the whole server (session_budget 20), which would "
        "change"
    )
    assert refused[("html2rss", "rtila")] == (f"{tightening} html2rss's tools too",)
    assert set(refused) == {
        ("crawlberg", "html2rss"),
        # Rebilder's strict probe is the whole server's: refused with any other
        ("crawlberg", "rebilder"),
        ("crawlberg", "rtila"),
        ("html2rss", "rebilder"),
        ("html2rss", "rtila"),
        ("rebilder", "rtila"),
    }
    assert refused[("html2rss", "rebilder")][0].startswith(
        "rebilder tightens the network policy of the whole server"
    )


def test_a_cli_entry_names_only_payload_fields(project: Path) -> None:
    scrape = "catalog/tools/pages/scrape.yaml"
    edit(project, scrape, "cli: {content: [content]}", "cli: {content: [contents]}")
    assert_problem(
        project,
        scrape,
        line_of(project, scrape, "cli:"),
        "/cli/content: 'contents' is not a field of the payload",
    )


SCALE = "catalog/readability/scale.yaml"


def test_the_readability_scale_adds_up_to_100_and_names_its_facts(project: Path) -> None:
    edit(project, SCALE, "        weight: 11", "        weight: 12")
    edit(project, SCALE, "core_facts: [title, price,", "core_facts: [title, prize,")
    edit(project, SCALE, "extended_facts: [brand, sku,", "extended_facts: [brand, skus,")
    problems = catalog_problems(project)
    assert any("its checks' weights add up to 29, not its weight 28" in p for p in problems), (
        problems
    )
    assert any("'prize' is not a fact under /facts" in p for p in problems), problems
    assert any(
        "/page_kinds/product/extended_facts/1: 'skus' is not a fact under /facts" in p
        for p in problems
    )


def test_a_readability_id_is_one_check_or_finding(project: Path) -> None:
    edit(project, "catalog/readability/findings.yaml", "id: webmcp", "id: vary_accept")
    assert any("'vary_accept' is already the id at" in p for p in catalog_problems(project))


# the recorded examples (codegen/recordings.py)

SCRAPE = "catalog/tools/pages/scrape.yaml"
SCRAPE_RECORDING = "catalog/recorded/scrape.json"
RECORD = "run uv run python -m tests.support.recorded"


def _edit_recording(project: Path, relative: str, change: Any) -> None:
    path = project / relative
    document = json.loads(path.read_text())
    change(document["examples"][0])
    path.write_text(json.dumps(document))


def test_a_recorded_example_without_its_recording(project: Path) -> None:
    (project / SCRAPE_RECORDING).unlink()
    line = line_of(project, SCRAPE, "examples:")
    assert_problem(
        project, SCRAPE, line, f"example 'An article, as markdown' has no recording yet: {RECORD}"
    )


def test_a_recording_of_other_arguments_is_stale(project: Path) -> None:
    edit(project, SCRAPE, "news/new-pontoon-opens", "news/lifeboat-open-day")
    assert_problem(
        project, SCRAPE_RECORDING, 1, "the recording of 'An article, as markdown' is stale"
    )


def test_a_recorded_envelope_must_fit_the_output_schema(project: Path) -> None:
    _edit_recording(
        project, SCRAPE_RECORDING, lambda entry: entry["envelope"]["payload"].pop("content")
    )
    assert_problem(
        project, SCRAPE_RECORDING, 1, "the recorded envelope breaks the output schema at /payload"
    )


def test_a_recorded_envelope_must_meet_the_expectation(project: Path) -> None:
    _edit_recording(
        project, SCRAPE_RECORDING, lambda entry: entry["envelope"].update(next_step="scrape")
    )
    assert_problem(
        project, SCRAPE_RECORDING, 1, "recorded {'ok': True, 'next_step': 'scrape', 'error': None}"
    )


def test_a_recording_of_no_tool_or_no_example(project: Path) -> None:
    (project / "catalog/recorded/no_such_tool.json").write_text("{}")
    _edit_recording(project, SCRAPE_RECORDING, lambda entry: entry.update(title="Renamed"))
    found = catalog_problems(project)
    assert any(
        p.startswith("catalog/recorded/no_such_tool.json:1: a recording of no tool") for p in found
    ), found
    assert any("'Renamed' is no recorded example of scrape any more" in p for p in found), found


def test_an_unreadable_recording(project: Path) -> None:
    (project / SCRAPE_RECORDING).write_text('{"recorded_by": ')
    assert_problem(project, SCRAPE_RECORDING, 1, "unreadable recording")


def test_references_only_in_recorded_examples_and_only_backwards(project: Path) -> None:
    tool = "catalog/tools/runs/get_run_status.yaml"
    edit(
        project,
        tool,
        "{given: 0, pointer: /payload/run_id}",
        "{given: 1, pointer: /payload/run_id}",
    )
    assert_problem(
        project, tool, line_of(project, tool, "given: 1"), "must name one of the given calls"
    )
    edit(
        project,
        TOOL,
        "    arguments: {markdown: 50}",
        "    arguments: {markdown: {given: 0, pointer: /payload}}",
    )
    line = line_of(project, TOOL, "title: A number is not text")
    assert_problem(
        project, TOOL, line, "only a recorded example has given calls and references to them"
    )


def test_a_cli_entry_names_payload_fields_of_the_shape_it_shows(project: Path) -> None:
    """Every dotted segment is checked: a summary's placeholder is a value, a table's rows a list
    and its columns fields of the rows; ``a|b`` alternatives each."""
    relative = "catalog/tools/readability/scan_url.yaml"
    edit(project, relative, "{result.page_kind} page", "{result.page_kind|result.nosuch.deep} page")
    edit(project, relative, "{result.score} of 100", "{result.fixes} of 100")
    edit(
        project,
        relative,
        "rows: result.fixes, columns: [points, check,",
        "rows: result.grade, columns: [points, check,",
    )
    site = "catalog/tools/readability/scan_site.yaml"
    edit(project, site, "columns: [points, pages, check,", "columns: [points, pagez, check,")
    found = catalog_problems(project)
    for expected in (
        f"{relative}:{line_of(project, relative, 'summary:')}: /cli/summary: "
        "'result.nosuch.deep' is not a field",
        f"{relative}:{line_of(project, relative, 'summary:')}: /cli/summary: 'result.fixes' is a "
        "list or an object",
        f"{relative}:{line_of(project, relative, 'rows:')}: /cli/table/rows: 'result.grade' is "
        "not a list",
        f"{site}:{line_of(project, site, 'columns:')}: /cli/table/columns: 'pagez' names "
        "'pagez', which its rows",
    ):
        assert any(problem.startswith(expected) for problem in found), (expected, found)
    assert len(found) == 4, found


def test_a_recording_whose_failed_payload_is_no_object_is_a_problem_not_a_crash(
    project: Path,
) -> None:
    _edit_recording(
        project, SCRAPE_RECORDING, lambda entry: entry["envelope"].update(ok=False, payload="boom")
    )
    assert_problem(project, SCRAPE_RECORDING, 1, "the recorded envelope breaks the output schema")


def test_a_recording_nested_past_what_json_reads_is_unreadable(project: Path) -> None:
    (project / SCRAPE_RECORDING).write_text("[" * 200_000)
    assert_problem(project, SCRAPE_RECORDING, 1, "unreadable recording")


def test_a_recorded_examples_written_arguments_are_checked_beside_its_references(
    project: Path,
) -> None:
    tool = "catalog/tools/runs/get_run_status.yaml"
    edit(
        project,
        tool,
        "{run_id: {given: 0, pointer: /payload/run_id}}",
        "{run_id: {given: 0, pointer: /payload/run_id}, bogus: 1}",
    )
    assert_problem(
        project,
        tool,
        line_of(project, tool, "bogus: 1"),
        "example arguments break the input schema",
    )


def test_a_changed_reference_makes_the_recording_stale(project: Path) -> None:
    tool = "catalog/tools/runs/get_run_status.yaml"
    edit(project, tool, "pointer: /payload/run_id}", "pointer: /payload/nowhere}")
    assert_problem(project, "catalog/recorded/get_run_status.json", 1, "is stale")


def test_a_recording_must_hold_what_the_example_says_its_payload_includes(project: Path) -> None:
    _edit_recording(
        project,
        "catalog/recorded/get_version.json",
        lambda entry: entry["envelope"]["payload"].update(name="other"),
    )
    assert_problem(
        project,
        "catalog/recorded/get_version.json",
        1,
        "the recorded payload's name is not the example's",
    )


def test_guide_pages_are_named_titled_and_unique(project: Path) -> None:
    guide = project / "catalog" / "guide"
    (guide / "Notes.md").write_text("# Notes\n")
    assert_problem(project, "catalog/guide/Notes.md", 1, "a guide page is named NN-slug.md")
    (guide / "Notes.md").unlink()
    (guide / "97-untitled.md").write_text("Some text without a title.\n")
    assert_problem(project, "catalog/guide/97-untitled.md", 1, "starts with its title")
    (guide / "97-untitled.md").write_text("# Python again\n")
    (guide / "98-python-api.md").write_text("# Python again\n")
    assert_problem(
        project, "catalog/guide/98-python-api.md", 1, "another guide page is named python-api too"
    )


def test_guide_pages_render_into_the_docs_site_in_order() -> None:
    catalog = load_catalog(PROJECT / "catalog", PROJECT / "netglean" / "handlers")
    slugs = [page.slug for page in catalog.guide]
    assert slugs[0] == "install-and-connect" and "python-api" in slugs
    files = render(catalog)
    page = files["docs/guide/python-api.html"]
    assert (
        "<h1>The Python API</h1>" in page
        and "<table>" in page
        and '<a href="../tools/scrape.html">' in page
    )
    assert all(f'href="{slug}.html"' in files["docs/guide/index.html"] for slug in slugs)
